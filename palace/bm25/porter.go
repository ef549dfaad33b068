package bm25

// The Porter (1980) stemmer as FTS5's "porter" tokenizer applies it. FTS5's
// version differs from textbook implementations in small ways that change
// stems, and every one of them is kept here:
//
//   - it works on bytes: bytes of multi-byte UTF-8 characters are simply
//     consonants, so non-ASCII tokens are stemmed too (a Latin suffix after
//     them is removed like any other);
//   - whether 'y' is a vowel depends on the previous letter when measuring
//     (m) and testing *o, but "contains a vowel" (*v*) counts any 'y' that is
//     not the first letter;
//   - a rule's suffix must be a proper suffix (the stem keeps a letter), and
//     within one step only the first rule whose suffix matches is tried:
//     when its condition fails the step does nothing;
//   - step 1a turns "sses" into "ss" only in words longer than four letters
//     and "ies" into "i" only in words longer than three ("sses" becomes
//     "sse", "ies" becomes "ie");
//   - step 2 has the "logi" -> "log" rule and "bli" -> "ble" (instead of
//     "abli" -> "able");
//   - tokens shorter than 3 or longer than 64 bytes are not stemmed.

const (
	porterMinToken = 3  // tokens shorter than this (bytes) are left alone
	porterMaxToken = 64 // tokens longer than this (bytes) are left alone
)

// Stem returns the Porter stem of word exactly as FTS5's porter tokenizer
// computes it. word is expected to be a token as unicode61 produces it
// (lower case, no separators); words shorter than 3 or longer than 64 bytes
// are returned unchanged, as FTS5 does.
func Stem(word string) string {
	if len(word) < porterMinToken || len(word) > porterMaxToken {
		return word
	}
	var arr [porterMaxToken + 8]byte
	s := porterStem(append(arr[:0], word...))
	if len(s) <= len(word) && string(s) == word[:len(s)] {
		return word[:len(s)]
	}
	return string(s)
}

// porterStem stems w in place and returns the stem, which may be one byte
// longer than w (so w needs spare capacity to avoid a copy). The caller
// applies the length limits: len(w) must be at least porterMinToken.
func porterStem(w []byte) []byte {
	// Step 1a: plurals.
	if n := len(w); w[n-1] == 's' {
		switch {
		case w[n-2] == 'e':
			if (n > 4 && w[n-4] == 's' && w[n-3] == 's') || (n > 3 && w[n-3] == 'i') {
				w = w[:n-2]
			} else {
				w = w[:n-1]
			}
		case w[n-2] != 's':
			w = w[:n-1]
		}
	}

	// Step 1b: -eed, -ed, -ing, and the clean-up after the last two.
	var stepped, fixed bool
	if w, stepped = porterStep1b(w); stepped {
		if w, fixed = porterStep1bFix.apply(w); !fixed {
			n := len(w)
			c := w[n-1]
			if n >= 2 && !porterIsVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == w[n-2] {
				w = w[:n-1]
			} else if porterMeasureIs1(w) && porterEndsCVC(w) {
				w = append(w, 'e')
			}
		}
	}

	// Step 1c: a final y after a vowel becomes i.
	if n := len(w); w[n-1] == 'y' && porterHasVowel(w[:n-1]) {
		w[n-1] = 'i'
	}

	// Steps 2 to 4: suffix lists.
	w, _ = porterStep2.apply(w)
	w, _ = porterStep3.apply(w)
	w, _ = porterStep4.apply(w)

	// Step 5a: a final e goes when the measure allows.
	if n := len(w); w[n-1] == 'e' {
		if stem := w[:n-1]; porterMeasureOver1(stem) || (porterMeasureIs1(stem) && !porterEndsCVC(stem)) {
			w = stem
		}
	}

	// Step 5b: -ll becomes -l when m > 1.
	if n := len(w); n > 1 && w[n-1] == 'l' && w[n-2] == 'l' && porterMeasureOver1(w[:n-1]) {
		w = w[:n-1]
	}
	return w
}

// porterStep1b applies the first of -eed, -ed, -ing that is a proper suffix
// of w. It reports whether -ed or -ing was removed (the case that needs the
// step 1b clean-up).
func porterStep1b(w []byte) ([]byte, bool) {
	switch {
	case porterHasSuffix(w, "eed"):
		if porterMeasureOver0(w[:len(w)-3]) {
			return w[:len(w)-1], false
		}
	case porterHasSuffix(w, "ed"):
		if stem := w[:len(w)-2]; porterHasVowel(stem) {
			return stem, true
		}
	case porterHasSuffix(w, "ing"):
		if stem := w[:len(w)-3]; porterHasVowel(stem) {
			return stem, true
		}
	}
	return w, false
}

// porterCond is a rule's condition on the stem left once its suffix is cut.
type porterCond uint8

const (
	porterAlways porterCond = iota
	porterM0                // m > 0
	porterM1                // m > 1
	porterM1ST              // m > 1 and the stem ends in s or t
)

type porterRule struct {
	suffix, repl string
	cond         porterCond
}

// porterRules holds one step's rules grouped by the suffix's next-to-last
// byte (every suffix has at least two), each group in priority order:
// the rules for byte c are rules[group[c].lo:group[c].hi].
type porterRules struct {
	group [256]struct{ lo, hi uint8 }
	rules []porterRule
}

func newPorterRules(cond porterCond, pairs ...string) *porterRules {
	var byKey [256][]porterRule
	for i := 0; i+1 < len(pairs); i += 2 {
		suf := pairs[i]
		k := suf[len(suf)-2]
		byKey[k] = append(byKey[k], porterRule{suffix: suf, repl: pairs[i+1], cond: cond})
	}
	r := &porterRules{}
	for k, rs := range byKey {
		r.group[k].lo = uint8(len(r.rules))
		r.rules = append(r.rules, rs...)
		r.group[k].hi = uint8(len(r.rules))
	}
	return r
}

var (
	porterStep1bFix = newPorterRules(porterAlways,
		"at", "ate",
		"bl", "ble",
		"iz", "ize",
	)
	porterStep2 = newPorterRules(porterM0,
		"ational", "ate",
		"tional", "tion",
		"enci", "ence",
		"anci", "ance",
		"izer", "ize",
		"logi", "log",
		"bli", "ble",
		"alli", "al",
		"entli", "ent",
		"eli", "e",
		"ousli", "ous",
		"ization", "ize",
		"ation", "ate",
		"ator", "ate",
		"alism", "al",
		"iveness", "ive",
		"fulness", "ful",
		"ousness", "ous",
		"aliti", "al",
		"iviti", "ive",
		"biliti", "ble",
	)
	porterStep3 = newPorterRules(porterM0,
		"ical", "ic",
		"ness", "",
		"icate", "ic",
		"iciti", "ic",
		"ful", "",
		"ative", "",
		"alize", "al",
	)
	porterStep4 = func() *porterRules {
		r := newPorterRules(porterM1,
			"al", "",
			"ance", "",
			"ence", "",
			"er", "",
			"ic", "",
			"able", "",
			"ible", "",
			"ant", "",
			"ement", "",
			"ment", "",
			"ent", "",
			"ion", "",
			"ou", "",
			"ism", "",
			"ate", "",
			"iti", "",
			"ous", "",
			"ive", "",
			"ize", "",
		)
		for i := range r.rules {
			if r.rules[i].suffix == "ion" {
				r.rules[i].cond = porterM1ST
			}
		}
		return r
	}()
)

// apply tries the first rule whose suffix is a proper suffix of w; if the
// rule's condition holds for the stem, the suffix is replaced. It returns
// the word and whether a replacement was made.
func (rs *porterRules) apply(w []byte) ([]byte, bool) {
	n := len(w)
	if n < 2 {
		return w, false
	}
	g := rs.group[w[n-2]]
	for _, r := range rs.rules[g.lo:g.hi] {
		if !porterHasSuffix(w, r.suffix) {
			continue
		}
		stem := w[:n-len(r.suffix)]
		ok := true
		switch r.cond {
		case porterM0:
			ok = porterMeasureOver0(stem)
		case porterM1:
			ok = porterMeasureOver1(stem)
		case porterM1ST:
			last := stem[len(stem)-1]
			ok = (last == 's' || last == 't') && porterMeasureOver1(stem)
		}
		if !ok {
			return w, false
		}
		return append(stem, r.repl...), true
	}
	return w, false
}

// porterHasSuffix reports whether suf is a proper suffix of w (w is
// longer).
func porterHasSuffix(w []byte, suf string) bool {
	if len(w) <= len(suf) {
		return false
	}
	w = w[len(w)-len(suf):]
	for i := len(suf) - 1; i >= 0; i-- { // the last bytes differ most often
		if w[i] != suf[i] {
			return false
		}
	}
	return true
}

// porterIsVowel reports whether c is a vowel; y counts as one when yVowel
// is set (after a consonant). Bytes outside ASCII are consonants.
func porterIsVowel(c byte, yVowel bool) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	case 'y':
		return yVowel
	}
	return false
}

// porterSkipVC returns the length of the shortest prefix of w of the form
// [C]V+C (consonants, then vowels, then one consonant), or 0 if there is
// none. prevCons says whether the byte before w was a consonant, which
// decides whether a leading y is a vowel.
func porterSkipVC(w []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(w); i++ {
		cons = !porterIsVowel(w[i], cons)
		if !cons {
			break
		}
	}
	for i++; i < len(w); i++ {
		cons = !porterIsVowel(w[i], cons)
		if cons {
			return i + 1
		}
	}
	return 0
}

// porterMeasureOver0 reports m > 0.
func porterMeasureOver0(w []byte) bool { return porterSkipVC(w, false) != 0 }

// porterMeasureOver1 reports m > 1.
func porterMeasureOver1(w []byte) bool {
	n := porterSkipVC(w, false)
	return n != 0 && porterSkipVC(w[n:], true) != 0
}

// porterMeasureIs1 reports m == 1.
func porterMeasureIs1(w []byte) bool {
	n := porterSkipVC(w, false)
	return n != 0 && porterSkipVC(w[n:], true) == 0
}

// porterEndsCVC reports *o: w ends consonant, vowel, consonant, the last
// not w, x or y.
func porterEndsCVC(w []byte) bool {
	n := len(w)
	if n < 3 {
		return false
	}
	switch w[n-1] {
	case 'w', 'x', 'y':
		return false
	}
	// Whether each letter is a consonant depends on the one before it (for
	// y), so walk the whole word.
	cons := false
	var last3 uint8
	for _, c := range w {
		cons = !porterIsVowel(c, cons)
		last3 <<= 1
		if cons {
			last3 |= 1
		}
	}
	return last3&7 == 5
}

// porterHasVowel reports *v*: w contains a vowel, any y but a leading one
// counting as a vowel.
func porterHasVowel(w []byte) bool {
	for i, c := range w {
		if porterIsVowel(c, i > 0) {
			return true
		}
	}
	return false
}
