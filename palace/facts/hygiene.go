package facts

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/loci-mem/loci/palace/words"
)

// Write hygiene for facts: a new fact is compared with the facts the
// shared search engine returns for it, deterministically:
//
//   - Near-duplicate: the same words in (nearly) the same order and the same
//     values. Word overlap (Dice coefficient over content words, stopwords
//     dropped) of at least dupWords, overlap of adjacent word pairs of at
//     least dupPairs (so "pnpm over npm" is no duplicate of "npm over
//     pnpm"), and equal value sets.
//   - Conflict: the same subject — the text with its values taken out
//     overlaps by at least conflictWords (words) and conflictPairs (pairs)
//     — and a value of the same type that differs: a date, an email
//     address, an amount, an id or number, or a version.
//
// Values are found by the patterns below; everything else is subject.
const (
	dupWords      = 0.8
	dupPairs      = 0.6
	conflictWords = 0.75
	conflictPairs = 0.5
)

// Value types a conflict is judged on.
const (
	valDate    = "date"
	valEmail   = "email"
	valAmount  = "amount"
	valVersion = "version"
	valID      = "id"
)

var month = `(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

// valuePatterns are tried in order; a span claimed by an earlier pattern
// is not matched again.
var valuePatterns = []struct {
	kind string
	re   *regexp.Regexp
}{
	{valEmail, regexp.MustCompile(`(?i)\b[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}\b`)},
	{valDate, regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2})?)?\b`)},
	{valDate, regexp.MustCompile(`\b\d{1,2}/\d{1,2}/\d{2,4}\b`)},
	{valDate, regexp.MustCompile(`(?i)\b` + month + `\.? \d{1,2}(?:st|nd|rd|th)?(?:,? \d{4})?\b`)},
	{valDate, regexp.MustCompile(`(?i)\b\d{1,2}(?:st|nd|rd|th)? (?:of )?` + month + `\.?(?:,? \d{4})?\b`)},
	{valAmount, regexp.MustCompile(`(?i)[$€£¥]\s?\d[\d,]*(?:\.\d+)?\s?(?:k|m|bn|million|billion)?\b`)},
	{valAmount, regexp.MustCompile(`(?i)\b\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|usd\b|eur\b|gbp\b|dollars?\b|euros?\b|pounds?\b)`)},
	{valID, regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)},
	{valVersion, regexp.MustCompile(`(?i)\bv\d+(?:\.\d+)*(?:[-+][0-9a-z.]+)?\b`)},
	{valVersion, regexp.MustCompile(`\b\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.]+)?\b`)},
	{valVersion, regexp.MustCompile(`(?i)\b(?:version|release|go|node|python|java|ruby|rust|php|postgres(?:ql)?|mysql|redis|ubuntu|debian|macos|ios|android|kubernetes|k8s|terraform|react|vue|angular)\s\d+(?:\.\d+)*\b`)},
	{valID, regexp.MustCompile(`\b[A-Za-z]*\d[A-Za-z0-9]*(?:[-_.:/][A-Za-z0-9]+)*\b`)},
}

type factValue struct {
	kind, norm string
}

// factShape is what hygiene compares: content words (in order) of the
// whole text and of its subject (the text without values), and values.
type factShape struct {
	words   []string
	subject []string
	values  []factValue
}

func shapeOf(text string) factShape {
	var sh factShape
	claimed := make([]bool, len(text))
	for _, vp := range valuePatterns {
		for _, m := range vp.re.FindAllStringIndex(text, -1) {
			free := true
			for i := m[0]; i < m[1]; i++ {
				if claimed[i] {
					free = false
					break
				}
			}
			if !free {
				continue
			}
			for i := m[0]; i < m[1]; i++ {
				claimed[i] = true
			}
			sh.values = append(sh.values, factValue{vp.kind, normValue(vp.kind, text[m[0]:m[1]])})
		}
	}
	var subject strings.Builder
	for i := 0; i < len(text); i++ {
		if claimed[i] {
			subject.WriteByte(' ')
		} else {
			subject.WriteByte(text[i])
		}
	}
	sh.words = contentWords(text)
	sh.subject = contentWords(subject.String())
	return sh
}

// normValue puts a value in a comparable form: lower case, no spaces or
// thousands separators, version words dropped ("Go 1.22" → "1.22").
func normValue(kind, v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	switch kind {
	case valAmount:
		v = strings.NewReplacer(",", "", " ", "").Replace(v)
	case valVersion:
		if i := strings.LastIndexByte(v, ' '); i >= 0 {
			v = v[i+1:]
		}
		v = strings.TrimPrefix(v, "v")
	default:
		v = strings.Join(strings.Fields(v), " ")
	}
	return v
}

// contentWords splits text into lower-case words, drops stopwords and
// folds plurals (words.Fold) so "ports" meets "port". A run of Chinese or
// Japanese, one word however long, counts as its character pairs
// (words.EachPair), so two statements of it that differ in a word still
// share most of their units.
func contentWords(text string) []string {
	var out []string
	words.Each(text, 0, func(w words.Word) {
		lw := strings.ToLower(w.Text)
		switch {
		case w.CJK:
			words.EachPair(lw, func(p string) { out = append(out, p) })
		case !words.IsStopword(lw):
			out = append(out, words.Fold(lw))
		}
	})
	return out
}

// dice is the Dice coefficient of two multisets of strings: 1 for equal
// sets, 0 for disjoint ones. Two empty sets are equal.
func dice(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	count := map[string]int{}
	for _, x := range a {
		count[x]++
	}
	common := 0
	for _, x := range b {
		if count[x] > 0 {
			count[x]--
			common++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// pairs returns the adjacent word pairs of words; a single word is its own
// pair so short facts still compare.
func pairs(words []string) []string {
	if len(words) < 2 {
		return words
	}
	out := make([]string, 0, len(words)-1)
	for i := 0; i+1 < len(words); i++ {
		out = append(out, words[i]+" "+words[i+1])
	}
	return out
}

func valueSet(vs []factValue, kind string) []string {
	var out []string
	for _, v := range vs {
		if kind == "" || v.kind == kind {
			out = append(out, v.kind+":"+v.norm)
		}
	}
	sort.Strings(out)
	return dedupeSorted(out)
}

func dedupeSorted(ss []string) []string {
	out := ss[:0]
	for i, s := range ss {
		if i == 0 || s != ss[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// factRelation is how a new fact relates to an existing one.
type factRelation int

const (
	relNone factRelation = iota
	relDuplicate
	relConflict
)

// relate compares a new fact's shape with an existing one's. It returns
// the relation and, for a conflict, the value type that differs.
func relate(n, old factShape) (factRelation, string) {
	if slices.Equal(valueSet(n.values, ""), valueSet(old.values, "")) &&
		dice(n.words, old.words) >= dupWords && dice(pairs(n.words), pairs(old.words)) >= dupPairs {
		return relDuplicate, ""
	}
	if len(n.subject) == 0 || len(old.subject) == 0 {
		return relNone, ""
	}
	if dice(n.subject, old.subject) < conflictWords || dice(pairs(n.subject), pairs(old.subject)) < conflictPairs {
		return relNone, ""
	}
	for _, kind := range []string{valDate, valEmail, valAmount, valID, valVersion} {
		a, b := valueSet(n.values, kind), valueSet(old.values, kind)
		if len(a) > 0 && len(b) > 0 && !slices.Equal(a, b) {
			return relConflict, kind
		}
	}
	return relNone, ""
}

// normalizeFactText collapses runs of white space: a fact is one line.
func normalizeFactText(s string) string { return strings.Join(strings.Fields(s), " ") }

// Restates reports whether text b states the same fact as text a: the
// same values and (nearly) the same words in (nearly) the same order — the
// duplicate test Stage applies to Engram facts, for any short statement
// (session extraction uses it on atomic facts).
func Restates(a, b string) bool {
	rel, _ := relate(shapeOf(normalizeFactText(a)), shapeOf(normalizeFactText(b)))
	return rel == relDuplicate
}
