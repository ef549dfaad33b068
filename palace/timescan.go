package palace

import "strings"

// reNamesTime defines what names a time, and it is slow: a large
// alternation, case-folded, that Go's regexp runs as an NFA over every
// byte (about 150 µs for a 200-byte text). A question that asks when
// judges fifty candidates, so the expression cost a when-question several
// milliseconds at 100k drawers. scanNamesTime answers the same question a
// word at a time, ten times faster or more: the text is cut into the runs
// of word characters the expression's \b sees (ASCII letters, digits and
// the underscore, lower-cased), and each alternative of the expression is
// a test on a few consecutive runs and the bytes between them. The
// expression stays the definition: FuzzTimeScan holds the two to the same
// answer on any text, and a text holding one of the two letters outside
// ASCII that case folding reads as ASCII ones (ſ as s, the Kelvin sign as
// k) is left to the expression.

// timeWordClass is the set of parts a word plays in the expression's
// alternatives ("this" is a modifier of "this week" and the first word of
// "this morning"); timeScanWords gives each word its set.
type timeWordClass uint16

const (
	twRelative  timeWordClass = 1 << iota // yesterday, today, …, ago: a time alone
	twModifier                            // last, this, next, past, coming, previous
	twUnit                                // second(s) … decade(s), weekend(s)
	twWeekday                             // monday … sunday
	twSeason                              // spring … winter
	twMonth                               // january … december, their abbreviations, may
	twCount                               // a, an, one … twelve, few, several, many
	twDuring                              // for, in, over, within, after
	twAnchor                              // in, since, until, by, of
	twEvery                               // this, that, every, each
	twDayPart                             // morning, afternoon, evening, night, weekend
	twAfterward                           // ago, back, later, earlier, before, after
)

var timeScanWords = func() map[string]timeWordClass {
	m := map[string]timeWordClass{}
	add := func(c timeWordClass, list string) {
		for _, w := range strings.Fields(list) {
			m[w] |= c
		}
	}
	add(twRelative, "yesterday today tonight tomorrow recently lately ago")
	add(twModifier, "last this next past coming previous")
	for _, u := range strings.Fields("second minute hour day night week weekend month year decade") {
		m[u] |= twUnit
		m[u+"s"] |= twUnit
	}
	add(twWeekday, "monday tuesday wednesday thursday friday saturday sunday")
	add(twSeason, "spring summer autumn fall winter")
	add(twMonth, "january february march april may june july august september october november december "+
		"jan feb mar apr jun jul aug sept sep oct nov dec")
	add(twCount, "a an one two three four five six seven eight nine ten eleven twelve few several many")
	add(twDuring, "for in over within after")
	add(twAnchor, "in since until by of")
	add(twEvery, "this that every each")
	add(twDayPart, "morning afternoon evening night weekend")
	add(twAfterward, "ago back later earlier before after")
	return m
}()

// timeRuns is a text cut as the expression's \b cuts it: runs[i] is the
// i-th run of word characters, lower-cased, and gaps[i] the bytes between
// it and the next.
type timeRuns struct {
	runs, gaps []string
}

func (t *timeRuns) class(i int) timeWordClass {
	if i >= len(t.runs) {
		return 0
	}
	return timeScanWords[t.runs[i]]
}

func (t *timeRuns) is(i int, w string) bool { return i < len(t.runs) && t.runs[i] == w }

// gap reports whether the bytes after run i are exactly want.
func (t *timeRuns) gap(i int, want string) bool { return i < len(t.gaps) && t.gaps[i] == want }

// space reports whether the bytes after run i are white space (\s+), and
// another run follows.
func (t *timeRuns) space(i int) bool {
	if i >= len(t.gaps) || i+1 >= len(t.runs) {
		return false
	}
	return isSpaces(t.gaps[i])
}

func isSpaces(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\f', '\r':
		default:
			return false
		}
	}
	return true
}

func isDigits(s string, lo, hi int) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// dayNumber: \d{1,2}(?:st|nd|rd|th)? as a whole run.
func dayNumber(s string) bool {
	if n := len(s); n > 2 {
		switch s[n-2:] {
		case "st", "nd", "rd", "th":
			s = s[:n-2]
		}
	}
	return isDigits(s, 1, 2)
}

// counts calls f with the index of the run after each count (timeCount)
// that starts at run i: a number, a count word, "a few", "a couple of",
// "couple of" (the expression's spaces inside a count are single).
func (t *timeRuns) counts(i int, f func(next int) bool) bool {
	if i >= len(t.runs) {
		return false
	}
	if isDigits(t.runs[i], 1, len(t.runs[i])) || t.class(i)&twCount != 0 {
		if f(i + 1) {
			return true
		}
	}
	if t.is(i, "a") && t.gap(i, " ") {
		if t.is(i+1, "few") && f(i+2) {
			return true
		}
		if t.is(i+1, "couple") && t.gap(i+1, " ") && t.is(i+2, "of") && f(i+3) {
			return true
		}
	}
	return t.is(i, "couple") && t.gap(i, " ") && t.is(i+1, "of") && f(i+2)
}

// at reports whether an alternative of reNamesTime matches from run i.
func (t *timeRuns) at(i int) bool {
	c, w := t.class(i), t.runs[i]
	const named = twUnit | twWeekday | twSeason | twMonth
	switch {
	case c&(twRelative|twWeekday) != 0:
		return true
	case w == "the" && t.gap(i, " ") && t.is(i+1, "other") && t.gap(i+1, " ") && t.is(i+2, "day"):
		return true
	case c&twModifier != 0 && t.space(i) && t.class(i+1)&named != 0:
		return true
	case c&twEvery != 0 && t.space(i) && t.class(i+1)&twDayPart != 0:
		return true
	case c&twAnchor != 0 && t.space(i) && t.class(i+1)&twMonth != 0:
		return true
	case c&twMonth != 0 && i+1 < len(t.runs) && isSpaces(strings.TrimPrefix(t.gaps[i], ".")) && dayNumber(t.runs[i+1]):
		return true
	case dayNumber(w) && t.space(i) && (t.class(i+1)&twMonth != 0 || t.is(i+1, "of") && t.space(i+1) && t.class(i+2)&twMonth != 0):
		return true
	case len(w) == 4 && isDigits(w, 4, 4) && (w[:2] == "19" || w[:2] == "20"):
		return true
	case isDigits(w, 1, 2) && t.gap(i, "/") && i+1 < len(t.runs) && isDigits(t.runs[i+1], 1, 2):
		return true
	}
	// A count of units, with a word of time after it ("three years ago")
	// or a word of duration before it ("for the past few months").
	unitAfter := func(next int) bool { return next > 0 && t.space(next-1) && t.class(next)&twUnit != 0 }
	if t.counts(i, func(next int) bool {
		return unitAfter(next) && t.space(next) && t.class(next+1)&twAfterward != 0
	}) {
		return true
	}
	if c&twDuring == 0 || !t.space(i) {
		return false
	}
	for _, the := range []bool{false, true} {
		j := i + 1
		if the {
			if !t.is(j, "the") || !t.space(j) {
				continue
			}
			j++
		}
		if t.counts(j, unitAfter) {
			return true
		}
		if (t.is(j, "past") || t.is(j, "last")) && t.space(j) && t.counts(j+1, unitAfter) {
			return true
		}
	}
	return false
}

// scanNamesTime reports whether reNamesTime matches text.
func scanNamesTime(text string) bool {
	if strings.Contains(text, "ſ") || strings.Contains(text, "\u212a") {
		return reNamesTime.MatchString(text)
	}
	lower := []byte(text)
	for i, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	low := string(lower)
	var t timeRuns
	start, end := -1, 0 // the run being read, and where the last one ended
	for i := 0; i <= len(low); i++ {
		word := i < len(low) && ('a' <= low[i] && low[i] <= 'z' || '0' <= low[i] && low[i] <= '9' || low[i] == '_')
		switch {
		case word && start < 0:
			if len(t.runs) > 0 {
				t.gaps = append(t.gaps, low[end:i])
			}
			start = i
		case !word && start >= 0:
			t.runs = append(t.runs, low[start:i])
			start, end = -1, i
		}
	}
	for i := range t.runs {
		if t.at(i) {
			return true
		}
	}
	return false
}
