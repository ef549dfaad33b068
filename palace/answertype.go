package palace

import (
	"context"
	"os"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/words"
)

// What a question says about its answer. A question announces the kind of
// answer it wants, and often whose words hold it; the text that answers
// it usually fits both. Search reads two such signs in the question and
// lifts the head of the first ranking by them (hybrid search only):
//
//   - Answer type, time. "When did she move?" is answered by "we moved
//     last spring", a text that names a time. Matching the expected answer
//     type is one of the oldest features of question-answering retrieval
//     (the answer-type step of the TREC QA systems). In English a question
//     that asks when is answered by a time, whoever speaks.
//   - Speaker. "What does Melanie do to destress?" is answered by what
//     Melanie said ("I've been running farther to de-stress"), more
//     often than by what others said to or about her. A question that
//     names a drawer's speaker (its first sender) lifts that drawer.
//   - A text that only asks. "Do you have a favorite superhero?" shares
//     the question's words and answers nothing; "Spider-Man has always
//     been a favorite of mine" answers it. A text whose every sentence is
//     a question, and which says nothing of its speaker (no "I", "my",
//     "we"), is lowered, unless the question asks what was asked; if it
//     was among the best hits, its answer (answersTo) rises with it as a
//     neighbour would. "How do I deploy my app?" tells of the asker and
//     keeps its place.
//   - A text that only reacts. "lol", "Wow, that's awesome!", "Thanks,
//     Caroline!" say nothing of their own: all they have in common with
//     a question is the text they answer, which they borrow as context
//     (turn_context.go), and that text is the one to find. A text whose
//     every word is a function word or a word of reaction
//     (words.IsReaction), once the names it addresses are left out, is
//     lowered as a text that only asks is, and rises as a hit's
//     neighbour by that much less.
//
// A lift multiplies a candidate's fused score; nothing is dropped.

var (
	reAsksWhen = regexp.MustCompile(`(?i)^\s*(?:since |until )?when\b|\bwhen\s+(?:did|was|is|were|will|does|do|has|had|are|would)\b|\b(?:what|which)\s+(?:year|month|day|date|time|week|season|decade)\b|\bhow\s+long\b|\bhow\s+many\s+(?:days|weeks|months|years)\b`)

	timeUnit   = `(?:second|minute|hour|day|night|week|weekend|month|year|decade)s?`
	timeCount  = `(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|few|several|a couple of|couple of|many)`
	weekdays   = `(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)`
	seasons    = `(?:spring|summer|autumn|fall|winter)`
	monthNoMay = `(?:january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)`
	// A time a text names: a relative day or period ("yesterday", "last
	// week", "three years ago", "for a few months"), a weekday, a season
	// with a determiner, a date or a year. "May" counts only beside a day
	// number or after a preposition, where it cannot be the verb.
	reNamesTime = regexp.MustCompile(`(?i)\b(?:yesterday|today|tonight|tomorrow|recently|lately|the other day|ago|` +
		`(?:last|this|next|past|coming|previous)\s+(?:` + timeUnit + `|` + weekdays + `|` + seasons + `|` + monthNoMay + `|may)|` +
		timeCount + `\s+` + timeUnit + `\s+(?:ago|back|later|earlier|before|after)|` +
		`(?:for|in|over|within|after)\s+(?:the\s+)?(?:past\s+|last\s+)?` + timeCount + `\s+` + timeUnit + `|` +
		weekdays + `|(?:` + monthNoMay + `|may)\.?\s+\d{1,2}(?:st|nd|rd|th)?|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:` + monthNoMay + `|may)|` +
		`(?:in|since|until|by|of)\s+(?:` + monthNoMay + `|may)|(?:19|20)\d\d|\d{1,2}/\d{1,2}(?:/\d{2,4})?|` +
		`(?:this|that|every|each)\s+(?:morning|afternoon|evening|night|weekend))\b`)
)

// The lifts, each chosen on LoCoMo conversations 1-5 (session path,
// hybrid any@10; RECALL.md, "What each method is worth") and checked on 6-10 and
// on the agent path.
const (
	// whenLift: a candidate that names a time, for a question that asks
	// when. 1.1, 1.25, 1.5, 2, 3 and 5 gave .848, .849, .850, .852, .850
	// and .843 (.847 without); 1.5-3 is a plateau and 2 its middle.
	whenLift = 2.0
	// speakerLift: a candidate whose speaker the question names. 1.05,
	// 1.1, 1.25, 1.5 and 2 gave .856, .861, .859, .856 and .845 (.852
	// without); 1.1-1.5 is a plateau and 1.25 its middle.
	speakerLift = 1.25
	// quietLift: a candidate that tells nothing, because it only asks
	// (onlyAsks) or only reacts (onlyReacts). On the short-message
	// rewrite, where a question is a message of its own, 0.7, 0.5 and
	// 0.3 for texts that only ask gave .762, .765 and .766 (.754 without;
	// measured before questions in the first person were excepted, which
	// gives .763 at 0.5). 0.5 is near the rate at which such messages
	// hold evidence, against all messages' (.080 against .171). For texts
	// that only react 0.7, 0.5, 0.3 and 0.1 then gave .779, .781, .781
	// and .781 (.769 without), so they share it. LoCoMo's own turns
	// almost never only ask or react, and it moved none of them.
	quietLift = 0.5
)

// questionCandidates bounds how many of the first ranking's candidates
// are read for the lifts: the head they can reorder.
const questionCandidates = 50

// whenBytes bounds the text read for a time: a long drawer is judged by
// its matching passage, and at most this much of it.
const whenBytes = 4 << 10

// question is what a query says about its answer.
type question struct {
	when   bool            // it asks for a time
	words  map[string]bool // its words, lower case (for speakers' names)
	short  []string        // its capitalised words, as written (for short forms of names)
	asks   bool            // it lowers texts that only ask
	reacts bool            // and texts that only react
}

func readQuestion(query string) question {
	q := question{when: whenOn() && asksWhen(query), asks: askOn() && !reAboutAsking.MatchString(query), reacts: reactOn()}
	if speakerOn() {
		q.words = map[string]bool{}
		nick := nicknamesOn()
		words.Each(query, 0, func(w words.Word) {
			lower := strings.ToLower(w.Text)
			q.words[lower] = true
			q.words[words.Unaccented(lower)] = true // "jose" and "josé" name José
			if r, _ := utf8.DecodeRuneInString(w.Text); nick && unicode.IsUpper(r) {
				q.short = append(q.short, w.Text)
			}
		})
	}
	return q
}

// lifts reports whether the question can lift anything.
func (q question) lifts() bool { return q.when || len(q.words) > 0 || q.asks || q.reacts }

// most is the largest lift the question can give.
func (q question) most() float64 {
	f := speakerLift
	if q.when {
		f *= whenLift
	}
	return f
}

// lift is the factor by which d rises for the question; passage, when not
// nil, is the part of a long drawer that matched. asks reports whether d
// was lowered for only asking (its answers may rise: answersTo).
func (q question) lift(d *Drawer, passage *Span) (f float64, asks bool) {
	if saysNothing(d) {
		return 0, false // nothing of it can answer (placeholders.go)
	}
	f = 1.0
	if q.when {
		var text string
		if passage != nil {
			text = d.Content[passage.Start:passage.End]
		} else {
			text = unlabelled(d.Content, d)
		}
		if len(text) > whenBytes {
			text = text[:whenBytes] // as namesTime reads it
		}
		if namesTime(unquoted(text)) {
			f *= whenLift
		}
	}
	if len(d.SenderIDs) > 0 && q.names(d.SenderIDs[0]) {
		f *= speakerLift
	}
	if asks = q.asks && onlyAsks(d); asks {
		f *= quietLift
	} else if q.reacts && onlyReacts(d) {
		f *= quietLift
	}
	return f, asks
}

// reAboutAsking matches a question about what was asked ("What did she
// ask him?"), which a question answers.
var reAboutAsking = regexp.MustCompile(`(?i)\b(?:ask|asks|asked|asking|question|questions|wonder|wonders|wondered|wondering|inquire|inquired)\b`)

// onlyReacts reports whether a text only reacts: every word of what it
// says, the names it addresses left out, is a stopword or a word of
// reaction ("Wow, Caroline! That's so cool!", "hahaha", an emoji alone).
// A text of more than reactionBytes says more than a reaction.
func onlyReacts(d *Drawer) bool {
	if len(d.Content) > 4*reactionBytes {
		return false // not read for a header: no header is that long (readHeader)
	}
	body := unquoted(spokenWords(d.Content, d))
	if len(body) > reactionBytes {
		return false
	}
	return onlyReactsIn(unaddressed(body, addressedBy(d)))
}

// onlyReactsIn reports whether every word of text is a stopword or a word
// of reaction.
func onlyReactsIn(text string) bool {
	for _, w := range words.Lower(text, 0) {
		if !words.IsStopword(w) && !words.IsReaction(w) {
			return false
		}
	}
	return true
}

// reactionBytes bounds the text read for a reaction: a few dozen words,
// far more than a message that only reacts holds.
const reactionBytes = 200

// onlyAsks reports whether a text asks and tells nothing of its speaker:
// every sentence of what it says is a question or only reacts ("Cool! Who's
// your favorite player?", "Wow, Mel! Did you go?", the names it addresses
// left out), at least one asks, and none of its words is in the first
// person ("How do I deploy my app?" tells of the asker).
func onlyAsks(d *Drawer) bool {
	body := unquoted(spokenWords(d.Content, d))
	if len(body) > whenBytes {
		return false
	}
	names := addressedBy(d)
	asks := false
	for _, s := range extract.Sentences(body) {
		s = strings.TrimRightFunc(s, func(r rune) bool {
			return !words.IsWordRune(r) && !strings.ContainsRune(".!?？", r)
		})
		if s == "" {
			continue // an emoji or a symbol alone
		}
		if s = unaddressed(s, names); !extract.Asks(s) {
			if onlyReactsIn(s) {
				continue // "Wow, Mel!" before the question
			}
			return false // it says something
		}
		asks = true
	}
	if !asks {
		return false
	}
	for _, w := range words.Lower(body, 0) {
		if selfWords[w] {
			return false
		}
	}
	return true
}

// answersTo are the texts that answer d, a text that only asks: the run
// of texts of the next other speaker after it, as far as the context
// budget a turn borrows within (turnContextBytes; at most maxBorrowTurns
// texts). What the asker adds before the answer is passed over. A
// question and its answer are the adjacency pair of conversation analysis
// (Schegloff and Sacks 1973); the answer often shares no word with the
// question ("Spider-Man has always been a favorite of mine"), and it may
// take a few messages to come. A silence ends the search (apart), and a
// text outside a session or connection, or with no speaker, has none.
func (p *Palace) answersTo(ctx context.Context, d *Drawer) ([]*Drawer, error) {
	if d == nil || (d.SessionID == "" && d.Connection == "") || len(d.SenderIDs) == 0 {
		return nil, nil
	}
	var out []*Drawer
	asker, answerer, size := d.SenderIDs[0], "", 0
	at := d
	for steps := 0; steps < maxBorrowTurns && size < turnContextBytes; steps++ {
		_, next, err := p.st.Drawers().Adjacent(ctx, at, contextKinds)
		if err != nil {
			return out, storeErr("read adjacent drawers", err)
		}
		if next == nil || apart(next, at) || len(next.SenderIDs) == 0 {
			break
		}
		switch sp := next.SenderIDs[0]; {
		case sp == asker && answerer == "":
			// the asker goes on before anyone answers
		case sp == asker || (answerer != "" && sp != answerer):
			return out, nil
		default:
			answerer = sp
			out = append(out, next)
			size += len(next.Content)
		}
		at = next
	}
	return out, nil
}

// selfWords are the words by which a speaker speaks of themselves, with
// "im" and "ive" as "I'm" and "I've" are typed without the apostrophe
// ("whats it called im always up for something new"; "I'm" itself splits
// into "i" and "m").
var selfWords = map[string]bool{
	"i": true, "me": true, "my": true, "mine": true, "myself": true,
	"we": true, "us": true, "our": true, "ours": true, "ourselves": true,
	"im": true, "ive": true,
}

// names reports whether the question names a speaker: the first word of
// the speaker's name ("Melanie", "user", "ann" of ann@example.com) is a
// word of the question, or its possessive typed without the apostrophe
// ("what is melanies dog called", "mels garden"), as a question typed on
// a phone writes it. A stopword is no name.
func (q question) names(speaker string) bool {
	if len(q.words) == 0 {
		return false
	}
	first := ""
	words.Each(speaker, 0, func(w words.Word) {
		if first == "" {
			first = strings.ToLower(w.Text)
		}
	})
	if first == "" {
		return false
	}
	if pronouns, ok := rolePronouns[first]; ok {
		for _, w := range pronouns {
			if q.words[w] {
				return true
			}
		}
	}
	if words.IsStopword(first) {
		return false
	}
	if bare := words.Unaccented(first); q.words[first] || q.words[first+"s"] || q.words[bare] || q.words[bare+"s"] {
		return true
	}
	// A short form of the name ("What did Mel paint?"), as the question
	// writes it.
	for _, w := range q.short {
		if isShortFor(w, first) || isShortFor(strings.TrimSuffix(w, "s"), first) {
			return true
		}
	}
	return false
}

// rolePronouns are the words by which a question names a chat role's
// speaker without naming it. In a conversation between a person and an
// assistant, the person asks: "what did I decide", "my deadline" ask for
// what the user said, "what did you suggest" for what the assistant said.
// Only a speaker recorded by its role is named this way; between two
// people, "I" names no one. The lift is the one a name gives: the same
// sign, read another way. The roles are those the chat formats in use
// record (OpenAI's user and assistant, Anthropic's human, Gemini's model,
// ShareGPT's human and gpt, OpenAssistant's prompter) and the generic
// names an export gives the other side; an assistant's product name is
// not among them where it is also a person's name (Claude, Gemini).
var rolePronouns = map[string][]string{
	"user":      firstPerson,
	"human":     firstPerson,
	"prompter":  firstPerson,
	"assistant": secondPerson,
	"model":     secondPerson,
	"gpt":       secondPerson,
	"chatgpt":   secondPerson,
	"ai":        secondPerson,
	"agent":     secondPerson,
	"bot":       secondPerson,
}

var (
	firstPerson  = []string{"i", "me", "my", "mine", "myself"}
	secondPerson = []string{"you", "your", "yours", "yourself"}
)

// asksWhen reports whether a question asks for a time.
func asksWhen(query string) bool { return reAsksWhen.MatchString(query) }

// namesTime reports whether a text names a time in its body; the date in
// its header (when it was written) does not count. Informal words are read
// as their standard word ("tmrw", "this wknd"; standardText).
func namesTime(text string) bool {
	body := textBody(text)
	if len(body) > whenBytes {
		body = body[:whenBytes]
	}
	body = standardText(body)
	return scanNamesTime(body)
}

// whenOn, speakerOn, askOn and reactOn report whether each lift is used
// (LOCI_WHEN=0, LOCI_SPEAKER=0, LOCI_ASKS=0 and LOCI_REACTS=0 turn them
// off, for comparisons).
func whenOn() bool    { return os.Getenv("LOCI_WHEN") != "0" }
func speakerOn() bool { return os.Getenv("LOCI_SPEAKER") != "0" }
func askOn() bool     { return os.Getenv("LOCI_ASKS") != "0" }
func reactOn() bool   { return os.Getenv("LOCI_REACTS") != "0" }
