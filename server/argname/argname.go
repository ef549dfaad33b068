// Package argname says what a caller most likely meant by a name a
// request does not take: an MCP tool's argument, a member of an HTTP
// body. The contracts let such names through (JSON Schema's objects and
// seed 001's bodies hold members they do not name), and they are ignored;
// but an ignored name is most often a misspelt one ("tags" for "tag",
// "k" or "limit" for "top_k"), and a filter or a count dropped in silence
// gives a caller results it believes are filtered. So each face names
// them in the sentences made here (Warning, Bound), each in its own
// place: server's tool results and httpapi's envelopes.
package argname

import (
	"fmt"
	"slices"
	"strings"
)

// MaxNamed is how many unknown names a request's warnings name one by
// one (Bound); the rest are counted, so that what a caller is told stays
// short whatever it sends.
const MaxNamed = 5

// MaxShown bounds how much of an unknown name a warning repeats: a name
// is the caller's input, and may be anything.
const MaxShown = 64

// Clip cuts name to MaxShown characters.
func Clip(name string) string {
	if r := []rune(name); len(r) > MaxShown {
		return string(r[:MaxShown]) + "…"
	}
	return name
}

// Warning is the sentence that says name was ignored: noun is what the
// face calls it ("argument", "field"), at the location of the object that
// held it ("messages.0"; "" at the top), taker what takes names (a tool,
// an endpoint) and names the names it takes. The sentence gives the name
// meant (Meant), or, where none is likely, the names taken.
func Warning(noun, name, at, taker string, names []string) string {
	shown := Clip(name)
	if at != "" {
		shown = at + "." + shown
	}
	if m := Meant(name, names); m != "" {
		return fmt.Sprintf("unknown %s '%s' ignored; did you mean '%s'?", noun, shown, m)
	}
	return fmt.Sprintf("unknown %s '%s' ignored; %s takes %s", noun, shown, taker, strings.Join(names, ", "))
}

// Bound keeps the first MaxNamed of warnings about total unknown names
// and counts the rest in one more sentence.
func Bound(noun string, warnings []string, total int) []string {
	if total <= MaxNamed {
		return warnings
	}
	out := slices.Clip(warnings[:min(len(warnings), MaxNamed)])
	return append(out, fmt.Sprintf("%d more unknown %ss ignored", total-len(out), noun))
}

// Names by which other memory APIs call a name that loci's contracts
// name otherwise: how many results (mem0's limit, LangChain's k), and the
// text to store.
var (
	countNames = []string{"k", "n", "limit", "count", "size", "max", "top", "topn", "maxresults", "numresults", "topk"}
	textNames  = []string{"text", "content", "memory", "body", "message", "note", "fact"}
)

// Meant is the one of names that name most likely stands for, or "": the
// same name written in another case or with other separators (topK,
// top-k), its singular or plural, a misspelling of one or two letters
// (the nearest, when no other name is as near: "txt" is a letter from
// both "ext" and "text", and is not guessed at), a part of one and of no
// other ("id" of drawer_id), or a name another memory API gives it
// (countNames, textNames).
func Meant(name string, names []string) string {
	n := squash(name)
	if n == "" {
		return ""
	}
	near, nearest := "", 3 // the closest misspelling, and its distance
	tied := false          // another name is as close: no guess
	var part []string
	for _, f := range names {
		k := squash(f)
		if k == n || k == n+"s" || k+"s" == n || k == n+"es" || k+"es" == n {
			return f
		}
		switch d := editDistance(n, k, 2); {
		case d > 2 || d == 2 && len(k) <= 5:
		case d < nearest:
			near, nearest, tied = f, d, false
		case d == nearest:
			tied = true
		}
		if len(n) >= 2 && (strings.HasPrefix(k, n) || strings.HasSuffix(k, n)) ||
			len(k) >= 3 && strings.HasPrefix(n, k) {
			part = append(part, f)
		}
	}
	if near != "" && !tied {
		return near
	}
	if len(part) == 1 {
		return part[0]
	}
	for _, group := range [][]string{countNames, textNames} {
		if !slices.Contains(group, n) {
			continue
		}
		for _, f := range names {
			if k := squash(f); k != n && slices.Contains(group, k) {
				return f
			}
		}
	}
	return ""
}

// squash writes a name in lower case without separators, so that top_k,
// topK and top-k read alike.
func squash(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r != '_' && r != '-' && r != ' ' && r != '.' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// editDistance is the Levenshtein distance between a and b (bytes), or
// limit+1 once it is certain to exceed limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			low = min(low, cur[j])
		}
		if low > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
