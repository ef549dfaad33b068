package palace

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/redact"
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

const weekdayRe = `(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)\.?`

// A header date is read in up to five parts, each optional but the date:
// a weekday ("Monday, "), a clock time before it ("1:56 pm on "), the date
// ("8 May, 2023", "May 8, 2023", "2023-05-08", "2023/05/30", "30/05/2023",
// "08.05.2023"), a weekday after it ("(Tue)", as LongMemEval writes it)
// and a clock time after it with its zone ("T09:15:30Z", ", 1:53:00 PM",
// " at 1:56 pm", " 09:15:00 +0000"). Chat exports, mail headers, SQL and
// JavaScript stamps are all some of these parts in order.
var (
	reWeekdayFirst = regexp.MustCompile(`(?i)^` + weekdayRe + `,?\s+`)
	reClockFirst   = regexp.MustCompile(`(?i)^(\d{1,2}):(\d{2})\s*([ap]\.?m\.?)?\s*(?:on\s+)?`)
	reNamedDate    = regexp.MustCompile(`(?i)^(?:(\d{1,2})(?:st|nd|rd|th)?\s+(` + monthNamesRe + `)\.?,?\s+(\d{4})` +
		`|(` + monthNamesRe + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4}))\b`)
	// Three numbers with one separator: year first, or year last.
	reNumericDate  = regexp.MustCompile(`^(?:(\d{4})([-/.])(\d{1,2})([-/.])(\d{1,2})|(\d{1,2})([/.])(\d{1,2})([/.])(\d{4}|\d{2}))`)
	reWeekdayAfter = regexp.MustCompile(`(?i)^\s*\(` + weekdayRe + `\)`)
	reClockAfter   = regexp.MustCompile(`(?i)^(?:t|,?\s+at\s+|,\s*|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:\s*([ap]\.?m\.?))?` +
		`(?:\s*(?:z|utc|gmt)\b)?(?:\s*([+-]\d{2}:?\d{2}))?`)
	// A speaker label: a name of up to three capitalised words, with the
	// particles names hold in lower case between them ("Maria del
	// Carmen", "Vincent van Gogh"), the last of which may be a number
	// ("Speaker 2", as anonymised transcripts write it), and the emoji a
	// contact's name may end with ("Jess 🌸", "Mom ❤️"), or a chat role.
	reSpeaker = regexp.MustCompile(`^([\p{Lu}][\p{L}\p{N}_'.\-]*(?:\s(?:` + nameParticles + `\s)?[\p{Lu}][\p{L}\p{N}_'.\-]*){0,2}(?:\s\d{1,3})?` + nameEmoji + `|user|assistant|system|human|gpt):\s`)
	// A speaker label of one word in any case or script ("sam: ",
	// "jenny_k: ", "李明: "), as chat exports and logs write user names:
	// read only after a header (a date or a bracketed group), where such
	// a log puts the speaker. Elsewhere a word in lower case before a
	// colon opens a note ("fyi: ", "edit: ") as often as it names anyone.
	reHandle = regexp.MustCompile(`^([\p{L}\p{N}_][\p{L}\p{N}_'.\-]{0,31}):\s`)
	// A phone number as a chat export names a sender it has no contact
	// for ("+44 7700 900123: ", "+1 (555) 010-4477: "): read after a
	// header too, and only with its leading "+", which no clock time or
	// count before a colon has.
	rePhone = regexp.MustCompile(`^(\+\d[\d \-()]{5,20}\d):\s`)
)

// nameParticles are the words in lower case that join the parts of a
// name in the languages that write them so: "Maria del Carmen", "Vincent
// van Gogh", "Ursula von der Leyen", "Ahmed bin Said".
const nameParticles = `(?:de|del|della|der|di|da|das|do|dos|du|la|le|van|von|von der|van der|van den|ter|ten|bin|ibn|al|el)`

// nameEmoji are the emoji after a name, with or without a space before
// them: symbols (most emoji), their modifiers (skin tones), variation
// selectors and the joiner that builds one emoji of several.
const nameEmoji = `(?:\s?[\p{So}\p{Sk}\x{FE0F}\x{200D}]+)*`

// isNameEmoji reports whether r is one of nameEmoji's runes.
func isNameEmoji(r rune) bool {
	return unicode.In(r, unicode.So, unicode.Sk) || r == '\uFE0F' || r == '\u200D'
}

// headerLabels are words that end in a colon in a note's first line
// without naming a speaker ("Decision: we use Postgres").
var headerLabels = map[string]bool{
	"note": true, "notes": true, "todo": true, "update": true, "decision": true, "important": true, "summary": true,
	"question": true, "answer": true, "q": true, "a": true, "fix": true, "bug": true, "idea": true, "warning": true,
	"error": true, "info": true, "tip": true, "reminder": true, "context": true, "goal": true, "status": true,
	"action": true, "result": true, "example": true, "nb": true, "ps": true, "fact": true, "preference": true,
	"re": true, "subject": true, "title": true, "date": true, "time": true, "source": true, "tags": true,
	"warn": true, "done": true, "next": true, "plan": true, "problem": true, "solution": true, "why": true,
	// A day names when, not who: "Monday: standup moved to 10".
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true,
	"sunday": true, "today": true, "tomorrow": true, "yesterday": true, "tonight": true,
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
	m, rest, _ := readHeaded(text)
	return m, rest
}

// readHeaded is readHeader, and reports whether the text has a header (a
// date or a bracketed group) before the rest.
func readHeaded(text string) (m TextMeta, rest string, headed bool) {
	rest = strings.TrimSpace(text)
	for steps := 0; steps < 4 && rest != ""; steps++ {
		switch rest[0] {
		case '[', '(':
			end := closing(rest)
			if end < 0 || end > 64 {
				return m.withSpeaker(rest, headed), rest, headed
			}
			headed = true
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
				if after == "" || strings.IndexAny(after, ":—–-,|") == 0 || labelLen(after, true) > 0 {
					m.When, headed = when, true
					rest = strings.TrimSpace(strings.TrimLeft(after, ":—–-,| "))
					continue
				}
			}
			return m.withSpeaker(rest, headed), rest, headed
		}
	}
	return m.withSpeaker(rest, headed), rest, headed
}

// closing is the offset of the bracket that closes the one s opens with
// (a group may hold another: "(2023/05/30 (Tue) 13:53)"), or -1.
func closing(s string) int {
	open := s[0]
	closer := map[byte]byte{'[': ']', '(': ')'}[open]
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case closer:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// withSpeaker reads the speaker label rest opens with, if m has no
// speaker yet; headed says a header came before rest.
func (m TextMeta) withSpeaker(rest string, headed bool) TextMeta {
	if m.Speaker == "" {
		m.Speaker = speakerLabel(rest, headed)
	}
	return m
}

// speakerLabel returns the speaker the label s opens with names ("Caroline:
// ", "user: "; after a header, "sam: " and "A: " too), or "" when it opens
// with none or with a word that labels a note ("Decision: ").
func speakerLabel(s string, headed bool) string {
	for _, re := range []*regexp.Regexp{reSpeaker, reHandle, rePhone} {
		if re != reSpeaker && !headed {
			break
		}
		if sm := re.FindStringSubmatch(s); sm != nil {
			// After a header one letter is a speaker ("A: ", "B: ", as
			// anonymised dialogues write them), not a note's "Q:" or "A:".
			if headerLabels[strings.ToLower(sm[1])] && !(headed && utf8.RuneCountInString(sm[1]) == 1) {
				return ""
			}
			return sm[1]
		}
	}
	return ""
}

// labelLen is the length of the label s opens with (a speaker's, or a
// note's: "Decision: "), or 0 when it opens with none; headed says a
// header came before s (speakerLabel).
func labelLen(s string, headed bool) int {
	if loc := reSpeaker.FindStringIndex(s); loc != nil {
		return loc[1]
	}
	if !headed {
		return 0
	}
	for _, re := range []*regexp.Regexp{reHandle, rePhone} {
		if loc := re.FindStringIndex(s); loc != nil {
			return loc[1]
		}
	}
	return 0
}

// Epoch is the time of an epoch number as the faces take one: Unix
// milliseconds, or seconds below 10^12 (10^12 ms is 2001, 10^12 s some
// 30,000 years away), in UTC.
func Epoch(n int64) time.Time {
	if n < 1e12 && n > -1e12 {
		return time.Unix(n, 0).UTC()
	}
	return time.UnixMilli(n).UTC()
}

// MaxSessionBytes bounds a session's name (RememberOptions.Session; the
// REST API's session_id takes as many), and maxSpeakerBytes a speaker's
// given apart from the text (RememberOptions.Speaker).
const (
	MaxSessionBytes = 128
	maxSpeakerBytes = MaxSessionBytes
)

// CheckSessionName checks a session's name as a face was given it (what
// names the argument in errors) and returns it trimmed ("": none): at most
// MaxSessionBytes, no control character, and no credential, since it is
// stored as it is.
func CheckSessionName(what, s string) (string, error) {
	s = strings.TrimSpace(s)
	if err := CheckName(what, s, MaxSessionBytes); err != nil {
		return "", err
	}
	if redact.Contains(s) {
		return "", Invalidf("%s looks like a credential (an access token or key); choose a name without one", what)
	}
	return s, nil
}

// CheckSpeakerName checks a speaker's name as a face was given it (what
// names the argument in errors) and returns it trimmed ("": none): a
// session name's rules, and no colon, which would end its label.
func CheckSpeakerName(what, s string) (string, error) {
	s = strings.TrimSpace(s)
	if err := CheckName(what, s, maxSpeakerBytes); err != nil {
		return "", err
	}
	if strings.ContainsRune(s, ':') {
		return "", Invalidf("%s contains a colon, which would end the speaker's label (\"name: …\"); leave it out", what)
	}
	if redact.Contains(s) {
		return "", Invalidf("%s looks like a credential (an access token or key); give the speaker's name", what)
	}
	return s, nil
}

// SpeakerName is a speaker as a label names it: a role ("User") in lower
// case, as a header's "[user]" is read, and a name as it is written.
func SpeakerName(s string) string {
	if isRoleWord(s) {
		return strings.ToLower(s)
	}
	return s
}

// withLabel is text as a line of speaker's in a transcript: "speaker: "
// after the text's header ("[D1:3] (8 May, 2023) Caroline: …"), or text
// as it is when its header or label names speaker already, in any case.
// What the text opens with otherwise stays after the label: the call's
// word is taken over what reads as a label ("Ana: Meeting notes: …").
// speaker is a name CheckSpeakerName passed.
func withLabel(text, speaker string) string {
	sp := SpeakerName(speaker)
	m, body, _ := readHeaded(text)
	if len(body) > len(sp) && body[len(sp)] == ':' && strings.EqualFold(body[:len(sp)], sp) {
		return text // "sam: …", which only a header makes a label
	}
	if strings.EqualFold(m.Speaker, sp) || body == "" {
		return text // labelled already, or a header alone
	}
	// body is the end of text, past any space after it (readHeaded).
	trimmed := strings.TrimRightFunc(text, unicode.IsSpace)
	at := len(trimmed) - len(body)
	return trimmed[:at] + sp + ": " + body
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

// DateOrder says how to read a numeric date whose first two numbers could
// each be the month ("03/04/2023"): a text alone cannot tell, the other
// dates of its file or conversation can (see NumericDateOrder).
type DateOrder int

const (
	// OrderUnknown reads only numeric dates that say their order: a day
	// after the 12th, or the year first.
	OrderUnknown DateOrder = iota
	// MonthFirst reads 03/04/2023 as 4 March, as the United States write it.
	MonthFirst
	// DayFirst reads it as 3 April, as most of the world writes it.
	DayFirst
)

// NumericDateOrder is the order a numeric date at the start of s shows
// ("30/05/2023": DayFirst, "5/30/2023": MonthFirst), or OrderUnknown when
// it shows none. Dotted dates are always day first.
func NumericDateOrder(s string) DateOrder {
	sm := reNumericDate.FindStringSubmatch(strings.TrimSpace(stripWeekday(s)))
	if sm == nil || sm[6] == "" {
		return OrderUnknown
	}
	return shownOrder(atoi(sm[6]), atoi(sm[8]), sm[7])
}

// shownOrder is the order a numeric date a<sep>b<sep>year shows.
func shownOrder(a, b int, sep string) DateOrder {
	switch {
	case sep == ".", a > 12 && b <= 12:
		return DayFirst
	case b > 12 && a <= 12:
		return MonthFirst
	}
	return OrderUnknown
}

// stripWeekday is s without the weekday it may open with ("Monday, ").
func stripWeekday(s string) string {
	if loc := reWeekdayFirst.FindStringIndex(s); loc != nil {
		return s[loc[1]:]
	}
	return s
}

// ReadDate reads s as one date and nothing else, in any form a text's
// header date may take; a numeric date whose order s does not show is
// read in the given order. Zero when s is no date.
func ReadDate(s string, order DateOrder) time.Time {
	s = strings.TrimSpace(s)
	t, n, ok := dateAt(s, order, time.Local)
	if !ok {
		return time.Time{}
	}
	// A zone's name may follow in parentheses, as JavaScript writes it.
	if rest := strings.TrimSpace(s[n:]); rest != "" && !(rest[0] == '(' && strings.IndexByte(rest, ')') == len(rest)-1) {
		return time.Time{}
	}
	return t
}

// leadingDate parses a date at the start of s and says how many bytes it
// took (dateAt, in this machine's time zone).
func leadingDate(s string) (time.Time, int, bool) { return dateAt(s, OrderUnknown, time.Local) }

// dateAt parses a date at the start of s, a numeric one whose order s does
// not show read in order. A clock time without a zone is a wall clock in
// loc (this machine's zone, time.Local, where the writer most likely is:
// "[30/05/2023, 00:30] Ana: …" written in New York happened at 04:30 UTC,
// and a question about 30 May, whose day the search reads in the same
// zone, finds it); a date without a clock time is noon there, so that the
// day is the same in every zone a reader may be in. The time is returned
// in UTC.
func dateAt(s string, order DateOrder, loc *time.Location) (time.Time, int, bool) {
	at := len(s) - len(stripWeekday(s))
	hour, minute, second, zone := 12, 0, 0, loc
	clockFirst := false
	if sm := reClockFirst.FindStringSubmatchIndex(s[at:]); sm != nil {
		g := groups(s[at:], sm)
		hour, minute, clockFirst = clock(atoi(g(1)), g(3)), atoi(g(2)), true
		if hour < 0 {
			return time.Time{}, 0, false
		}
		at += sm[1]
	}
	y, mon, d, n := calendarDate(s[at:], order)
	if n == 0 {
		return time.Time{}, 0, false
	}
	at += n
	if loc := reWeekdayAfter.FindStringIndex(s[at:]); loc != nil {
		at += loc[1]
	}
	if sm := reClockAfter.FindStringSubmatchIndex(s[at:]); sm != nil && !clockFirst {
		g := groups(s[at:], sm)
		if hour = clock(atoi(g(1)), g(4)); hour < 0 {
			return time.Time{}, 0, false
		}
		minute, second = atoi(g(2)), atoi(g(3))
		if z := strings.ReplaceAll(g(5), ":", ""); len(z) == 5 {
			off := (atoi(z[1:3])*60 + atoi(z[3:5])) * 60
			if z[0] == '-' {
				off = -off
			}
			zone = time.FixedZone("", off)
		}
		at += sm[1]
	}
	if y < 1900 || y > 2200 || mon < 1 || mon > 12 || d < 1 || d > 31 || hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, 0, false
	}
	t := time.Date(y, mon, d, hour, minute, second, 0, zone)
	if t.Day() != d { // 31 February
		return time.Time{}, 0, false
	}
	return t.UTC(), at, true
}

// calendarDate reads the date part at the start of s and says how many
// bytes it took (0: none).
func calendarDate(s string, order DateOrder) (y int, mon time.Month, d, n int) {
	if sm := reNamedDate.FindStringSubmatchIndex(s); sm != nil {
		g := groups(s, sm)
		if g(3) != "" {
			return atoi(g(3)), monthOf(g(2)), atoi(g(1)), sm[1]
		}
		return atoi(g(6)), monthOf(g(4)), atoi(g(5)), sm[1]
	}
	sm := reNumericDate.FindStringSubmatchIndex(s)
	if sm == nil || sm[1] < len(s) && '0' <= s[sm[1]] && s[sm[1]] <= '9' {
		return 0, 0, 0, 0
	}
	g := groups(s, sm)
	if g(1) != "" { // year first: 2023-05-08, 2023/05/30, 2023.05.08
		if g(2) != g(4) {
			return 0, 0, 0, 0
		}
		return atoi(g(1)), time.Month(atoi(g(3))), atoi(g(5)), sm[1]
	}
	if g(7) != g(9) {
		return 0, 0, 0, 0
	}
	a, b, y := atoi(g(6)), atoi(g(8)), atoi(g(10))
	if len(g(10)) == 2 { // 5/30/23: POSIX's pivot, 69 and later are 19xx
		if g(7) == "." {
			return 0, 0, 0, 0
		}
		y += 2000
		if y >= 2069 {
			y -= 100
		}
	}
	if shown := shownOrder(a, b, g(7)); shown != OrderUnknown {
		order = shown
	}
	switch order {
	case DayFirst:
		return y, time.Month(b), a, sm[1]
	case MonthFirst:
		return y, time.Month(a), b, sm[1]
	}
	return 0, 0, 0, 0
}

// clock is the hour h with its am or pm, or -1 when that is no hour.
func clock(h int, ampm string) int {
	switch strings.ToLower(strings.ReplaceAll(ampm, ".", "")) {
	case "pm":
		if h < 1 || h > 12 {
			return -1
		}
		if h < 12 {
			h += 12
		}
	case "am":
		if h < 1 || h > 12 {
			return -1
		}
		if h == 12 {
			h = 0
		}
	}
	return h
}

// groups returns a function that gives submatch i of a match in s.
func groups(s string, sm []int) func(int) string {
	return func(i int) string {
		if 2*i >= len(sm) || sm[2*i] < 0 {
			return ""
		}
		return s[sm[2*i]:sm[2*i+1]]
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

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
