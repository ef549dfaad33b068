package palace

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/words"
)

// Excerpt is what a face that splices memories into a model's context
// shows of one (the prompt hook, the mem_* tools' markdown): its text,
// when it fits in n characters; else, when the search matched a passage
// that ends past its first n characters (an answer deep in a long reply,
// a line of a pasted log), its opening line cut to n/5, "…" and that
// passage, so the part that answers is the part read; else its first n
// characters. A passage is a window of at most PassageWords words, whose
// match may lie at its end, so it is shown whole up to 2n characters. A
// text cut short ends in "…".
func Excerpt(content string, passage *Span, n int) string {
	return excerpt(content, passage, n, 2*n)
}

// ExcerptWithin is Excerpt held to n characters in all (n ≥ 1), for a
// face that promises its caller a bound: the passage gets what the opening
// line and the "…" line between them leave, and when that is less than the
// passage, the part of it that holds the most of query's words.
func ExcerptWithin(content string, passage *Span, query string, n int) string {
	opening := max(n/5, 1) // clipRunes gives even 0 characters one: "…"
	room := n - opening - utf8.RuneCountInString(elision)
	if _, ok := passage.Of(content); ok && room > 0 {
		f := focus(content, *passage, query, room)
		passage = &f
	}
	return excerpt(content, passage, n, room)
}

// Clip is what a face that promises its caller a bound of n characters
// (0: none) returns of a memory's content, for a search that matched
// passage with query: the content when it fits, else ExcerptWithin; and
// how long the content is whole when it had to be cut (0: it was not).
func Clip(content string, passage *Span, query string, n int) (shown string, whole int) {
	if n <= 0 {
		return content, 0
	}
	if whole = utf8.RuneCountInString(content); whole <= n {
		return content, 0
	}
	return ExcerptWithin(content, passage, query, n), whole
}

// elision joins a long text's opening line to its matched passage.
const elision = "\n…\n"

// excerpt is Excerpt with the passage cut to passageChars characters.
func excerpt(content string, passage *Span, n, passageChars int) string {
	text := strings.TrimSpace(content)
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	matched, ok := passage.Of(content)
	lead := len(content) - len(strings.TrimLeftFunc(content, unicode.IsSpace)) // where text starts
	if !ok || passage.End <= lead || passageChars < 1 || utf8.RuneCountInString(content[lead:passage.End]) <= n {
		return clipRunes(text, n) // no passage, it ends within the first n characters, or no room for it
	}
	return clipRunes(firstLine(text), n/5) + elision + clipRunes(strings.TrimSpace(matched), passageChars)
}

// clipRunes cuts s to at most n characters, the last of them "…" when it
// cuts.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:max(n-1, 0)])) + "…"
}

// firstLine is the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// focus narrows the span sp of content to at most room characters: the
// stretch that holds the most distinct words of query (compared by stem,
// stopwords aside), with some of the words that lead to it. A span that
// fits, or holds none of the query's words, is returned as it is (excerpt
// cuts it from its start).
func focus(content string, sp Span, query string, room int) Span {
	text := content[sp.Start:sp.End]
	if utf8.RuneCountInString(strings.TrimSpace(text)) <= room {
		return sp
	}
	terms := map[string]bool{}
	for _, w := range words.Lower(query, 0) {
		if !words.IsStopword(w) {
			terms[words.Stem(w)] = true
		}
	}
	type word struct {
		start, end int    // byte offsets in text
		from, to   int    // rune offsets in text
		term       string // its stem when it is one of the query's, else ""
	}
	var ws []word
	at, runes := 0, 0 // runes counted up to byte at
	words.Each(text, 0, func(w words.Word) {
		from := runes + utf8.RuneCountInString(text[at:w.Start])
		to := from + utf8.RuneCountInString(w.Text)
		at, runes = w.End, to
		t := words.Stem(strings.ToLower(w.Text))
		if !terms[t] {
			t = ""
		}
		ws = append(ws, word{w.Start, w.End, from, to, t})
	})
	best, bestFrom, bestTo := 0, 0, 0
	for i := range ws {
		if ws[i].term == "" {
			continue
		}
		seen := map[string]bool{}
		j := i
		for ; j < len(ws) && ws[j].to-ws[i].from <= room; j++ {
			if ws[j].term != "" {
				seen[ws[j].term] = true
			}
		}
		if len(seen) > best {
			best, bestFrom, bestTo = len(seen), i, j-1
		}
	}
	if best == 0 || bestTo < bestFrom {
		return sp
	}
	last := bestTo // the stretch's last word of the query
	for ws[last].term == "" {
		last--
	}
	// Up to a third of the room goes to the words that lead to the first
	// match, the rest to what follows; if the passage ends first, what it
	// leaves goes before.
	from, to := bestFrom, last
	for from > 0 && ws[bestFrom].from-ws[from-1].from <= room/3 && ws[last].to-ws[from-1].from <= room {
		from--
	}
	for to+1 < len(ws) && ws[to+1].to-ws[from].from <= room {
		to++
	}
	for from > 0 && ws[to].to-ws[from-1].from <= room {
		from--
	}
	return Span{Start: sp.Start + ws[from].start, End: sp.Start + ws[to].end}
}
