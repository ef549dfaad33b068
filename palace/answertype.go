package palace

import (
	"os"
	"regexp"
)

// Answer types. A question announces the kind of answer it wants, and
// the text that answers it usually contains a phrase of that kind: "when
// did she move?" is answered by "we moved last spring", a text that names
// a time. Matching the expected answer type is one of the oldest features
// of question-answering retrieval (the answer-type step of the TREC QA
// systems). It is independent of any collection's wording: in English, a
// question that asks when is answered by a time, whoever speaks.
//
// Search uses one answer type, time. When the question asks when (or how
// long, or which year), the candidates whose text names a time rise by a
// factor (whenLift) over those that name none. Nothing that names no time
// is removed, and a question that does not ask when is ranked as before.

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
		weekdays + `|` + monthNoMay + `\.?\s+\d{1,2}|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:` + monthNoMay + `|may)|` +
		`(?:in|since|until|by|of)\s+(?:` + monthNoMay + `|may)|(?:19|20)\d\d|\d{1,2}/\d{1,2}(?:/\d{2,4})?|` +
		`(?:this|that|every|each)\s+(?:morning|afternoon|evening|night|weekend))\b`)
)

// whenLift is the factor by which a candidate that names a time rises
// for a question that asks when. Chosen on LoCoMo conversations 1-5,
// session path: 1.1, 1.25, 1.5, 2, 3 and 5 gave hybrid any@10 .848,
// .849, .850, .852, .850 and .843 (.847 without); 1.5-3 is a plateau and 2
// its middle. It held on conversations 6-10 and on the agent path
// (temporal questions +3.6 to +5.4 points of any@10 there).
const whenLift = 2.0

// whenCandidates bounds how many of the first ranking's candidates are
// read for the answer type: the head the lift can reorder.
const whenCandidates = 50

// whenBytes bounds the text read for a time: a long drawer is judged by
// its matching passage, and at most this much of it.
const whenBytes = 4 << 10

// asksWhen reports whether a question asks for a time.
func asksWhen(query string) bool { return reAsksWhen.MatchString(query) }

// namesTime reports whether a text names a time in its body; the date in
// its header (when it was written) does not count.
func namesTime(text string) bool {
	body := textBody(text)
	if len(body) > whenBytes {
		body = body[:whenBytes]
	}
	return reNamesTime.MatchString(body)
}

// whenOn reports whether the answer type is used (LOCI_WHEN=0 turns it
// off, for comparisons).
func whenOn() bool { return os.Getenv("LOCI_WHEN") != "0" }
