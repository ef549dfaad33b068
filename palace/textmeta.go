package palace

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// A text written to memory on its own ("[D1:3] (8 May, 2023) Caroline: I
// went to the support group", "2024-03-02 — user: the build is red again")
// often says in its header when it happened and who said it. TextMeta
// reads that header so an agent's standalone texts are indexed like the
// turns of a recorded session: the date becomes the drawer's event time
// (time-aware recall), the speaker its sender (context indexing, filters).
//
// Only a header counts: bracketed or parenthesised groups, a leading date
// followed by a separator, and a "Name:" label, all before the body. A
// date inside the body ("we ship on 8 May") is content, not the text's own
// date, and relative dates ("yesterday") are never resolved.

// TextMeta is what a text's header says about it.
type TextMeta struct {
	When    time.Time // zero when the header names no date
	Speaker string    // "" when it names no speaker
}

const monthNamesRe = `(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

var (
	// An optional clock time before a day-month-year or month-day-year
	// date, or an ISO date with an optional time.
	reHeaderDate = regexp.MustCompile(`(?i)^(?:(\d{1,2}):(\d{2})\s*([ap]\.?m\.?)?\s*(?:on\s+)?)?` +
		`(?:(\d{1,2})(?:st|nd|rd|th)?\s+(` + monthNamesRe + `)\.?,?\s+(\d{4})` +
		`|(` + monthNamesRe + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})` +
		`|(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(z|[+-]\d{2}:?\d{2})?)?)`)
	reSpeaker = regexp.MustCompile(`^([\p{Lu}][\p{L}\p{N}'.\-]*(?:\s[\p{Lu}][\p{L}\p{N}'.\-]*){0,2}|user|assistant|system):\s`)
)

// headerLabels are words that end in a colon in a note's first line
// without naming a speaker ("Decision: we use Postgres").
var headerLabels = map[string]bool{
	"note": true, "notes": true, "todo": true, "update": true, "decision": true, "important": true, "summary": true,
	"question": true, "answer": true, "q": true, "a": true, "fix": true, "bug": true, "idea": true, "warning": true,
	"error": true, "info": true, "tip": true, "reminder": true, "context": true, "goal": true, "status": true,
	"action": true, "result": true, "example": true, "nb": true, "ps": true, "fact": true, "preference": true,
	"re": true, "subject": true, "title": true, "date": true, "time": true, "source": true, "tags": true,
	"warn": true, "done": true, "next": true, "plan": true, "problem": true, "solution": true, "why": true,
}

// ReadTextMeta reads the header of a text.
func ReadTextMeta(text string) TextMeta {
	m, _ := readHeader(text)
	return m
}

// textBody is a text without its header's bracketed groups and leading
// date: what the text says rather than when it was written.
func textBody(text string) string {
	_, rest := readHeader(text)
	return rest
}

// saidText is what a text says, for its vector and for what the next text
// borrows from it: a text whose header names its date ("[D1:3] (8 May,
// 2023) Caroline: …") without that header, which is metadata (the
// drawer's time, its sender) and would otherwise weigh in every vector
// with words that say nothing ("d1", "may", "2023"). A text whose header
// names no date is kept whole: a leading group that is not a date may be
// what it says ("(see the README) for details").
func saidText(text string) string {
	m, rest := readHeader(text)
	if m.When.IsZero() || rest == "" {
		return text
	}
	return rest
}

// readHeader reads the header of a text and returns the rest of it (a
// speaker label, when there is one, stays in the rest).
func readHeader(text string) (TextMeta, string) {
	var m TextMeta
	rest := strings.TrimSpace(text)
	for steps := 0; steps < 4 && rest != ""; steps++ {
		switch rest[0] {
		case '[', '(':
			closer := map[byte]byte{'[': ']', '(': ')'}[rest[0]]
			end := strings.IndexByte(rest, closer)
			if end < 0 || end > 64 {
				return m.withSpeaker(rest), rest
			}
			inner := strings.TrimSpace(rest[1:end])
			if when, ok := headerDate(inner, true); ok && m.When.IsZero() {
				m.When = when
			} else if sp := strings.TrimSuffix(inner, ":"); m.Speaker == "" && isRoleWord(sp) {
				m.Speaker = strings.ToLower(sp)
			}
			rest = strings.TrimSpace(rest[end+1:])
			rest = strings.TrimLeft(rest, ":—–- ")
		default:
			if when, n, ok := leadingDate(rest); ok && m.When.IsZero() {
				after := strings.TrimLeft(rest[n:], " ")
				if after == "" || strings.IndexAny(after, ":—–-,|") == 0 {
					m.When = when
					rest = strings.TrimSpace(strings.TrimLeft(after, ":—–-,| "))
					continue
				}
			}
			return m.withSpeaker(rest), rest
		}
	}
	return m.withSpeaker(rest), rest
}

func (m TextMeta) withSpeaker(rest string) TextMeta {
	if m.Speaker != "" {
		return m
	}
	if sm := reSpeaker.FindStringSubmatch(rest); sm != nil && !headerLabels[strings.ToLower(sm[1])] {
		m.Speaker = sm[1]
	}
	return m
}

// labelLen is the length of the speaker label s opens with ("Caroline: ",
// "user: "), or 0 when it opens with none.
func labelLen(s string) int {
	if loc := reSpeaker.FindStringIndex(s); loc != nil {
		return loc[1]
	}
	return 0
}

func isRoleWord(s string) bool {
	switch strings.ToLower(s) {
	case "user", "assistant", "system", "human", "ai", "model":
		return true
	}
	return false
}

// headerDate parses s as a whole date (whole: nothing else in s).
func headerDate(s string, whole bool) (time.Time, bool) {
	t, n, ok := leadingDate(s)
	if !ok || whole && strings.TrimSpace(s[n:]) != "" {
		return time.Time{}, false
	}
	return t, true
}

// leadingDate parses a date at the start of s and says how many bytes it
// took. Times are UTC; a date without a clock time is noon, so that the
// day is the same in every time zone a reader may be in.
func leadingDate(s string) (time.Time, int, bool) {
	sm := reHeaderDate.FindStringSubmatchIndex(s)
	if sm == nil {
		return time.Time{}, 0, false
	}
	g := func(i int) string {
		if sm[2*i] < 0 {
			return ""
		}
		return s[sm[2*i]:sm[2*i+1]]
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	var y, d int
	var mon time.Month
	switch {
	case g(6) != "":
		d, mon, y = atoi(g(4)), monthOf(g(5)), atoi(g(6))
	case g(9) != "":
		mon, d, y = monthOf(g(7)), atoi(g(8)), atoi(g(9))
	default:
		y, mon, d = atoi(g(10)), time.Month(atoi(g(11))), atoi(g(12))
	}
	hour, minute := 12, 0
	switch {
	case g(1) != "":
		hour, minute = atoi(g(1)), atoi(g(2))
		if ap := strings.ToLower(strings.ReplaceAll(g(3), ".", "")); ap == "pm" && hour < 12 {
			hour += 12
		} else if ap == "am" && hour == 12 {
			hour = 0
		}
	case g(13) != "":
		hour, minute = atoi(g(13)), atoi(g(14))
	}
	second, zone := atoi(g(15)), time.UTC
	if z := strings.ReplaceAll(g(16), ":", ""); len(z) == 5 {
		off := (atoi(z[1:3])*60 + atoi(z[3:5])) * 60
		if z[0] == '-' {
			off = -off
		}
		zone = time.FixedZone("", off)
	}
	if y < 1900 || y > 2200 || mon < 1 || mon > 12 || d < 1 || d > 31 || hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, 0, false
	}
	t := time.Date(y, mon, d, hour, minute, second, 0, zone)
	if t.Day() != d { // 31 February
		return time.Time{}, 0, false
	}
	return t.UTC(), sm[1], true
}

func monthOf(s string) time.Month {
	s = strings.ToLower(strings.TrimRightFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }))
	if m, ok := monthNames[s]; ok {
		return m
	}
	if len(s) >= 3 {
		return monthNames[s[:3]]
	}
	return 0
}
