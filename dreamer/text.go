package dreamer

import (
	"hash/fnv"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace/words"
)

// The text check that confirms a near-duplicate found by embedding
// similarity. Embeddings blur exactly the details that make two memories
// different facts — a number, a negation, a name, an opposite — and rate a
// one-word change as close as a paraphrase (measured: README.md), so the
// texts must agree on those details themselves:
//
//   - the same values: every token with a digit, number words ("two",
//     "third", "twice") and day words ("yesterday", "monday", "june");
//   - the same polarity (both negated or neither);
//   - no differing proper noun (a capitalised word inside a sentence:
//     "Boston" against "Denver");
//   - no word of one text whose opposite is in the other ("opened" and
//     "closed", "before" and "after", "brother" and "sister");
//   - content words in common, in the same order, of at least TextOverlap
//     of the longer text's: the longest common subsequence of the two
//     content-word sequences (stopwords dropped, a plural "s" stripped), so
//     "Alice paid Bob" and "Bob paid Alice" differ;
//   - at most one content word in maxDiffPer that is not matched, in the
//     distinct words and in the ordered sequences alike, so that in a short
//     text a single changed word is too much;
//   - and at least two content words each, unless the texts are equal
//     after normalisation (so "ok" and "no" never merge by accident).

// maxDiffPer: the longer text may have one unmatched content word per
// maxDiffPer content words (rounded down); see README.md for the measure.
var maxDiffPer = 5

var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then so as at by for from in into of on
	onto to with about than too very just also
	i me my mine myself we us our ours you your yours he him his she her hers it its they them their
	theirs this that these those there here what which who whom whose when where why how
	is am are was were be been being do does did doing have has had having will would shall should
	can could may might must let get got gets s t d ll m re ve o y oh um uh yeah yes ok okay well
	really all any some such own same each other both
	wow hey haha hah lol hmm ah aw omg yay`) {
		m[w] = true
	}
	return m
}()

var negations = map[string]bool{
	"not": true, "no": true, "never": true, "none": true, "nothing": true, "nobody": true,
	"neither": true, "nor": true, "cannot": true, "without": true, "nowhere": true,
}

// valueWords are compared like numbers: two texts must use the same ones.
var valueWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`zero one two three four five six seven eight nine ten eleven
	twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty
	sixty seventy eighty ninety hundred thousand million billion first second third fourth fifth
	sixth seventh eighth ninth tenth once twice thrice dozen half quarter single double triple
	yesterday today tomorrow tonight monday tuesday wednesday thursday friday saturday sunday
	january february march april june july august september october november december`) {
		m[w] = true
	}
	return m
}()

// opposites pairs words whose swap reverses a statement.
var opposites = func() map[string][]string {
	m := map[string][]string{}
	for _, p := range strings.Split(`love/hate like/dislike open/close approve/reject accept/reject
	accept/decline enable/disable start/stop begin/end add/remove increase/decrease win/lose won/lost
	buy/sell bought/sold before/after dark/light up/down left/right true/false on/off allow/deny
	allow/forbid include/exclude success/failure succeed/fail pass/fail old/new first/last last/next
	min/max minimum/maximum always/never more/less most/least many/few high/low big/small large/small
	hot/cold early/late fast/slow good/bad better/worse best/worst happy/sad easy/hard easy/difficult
	cheap/expensive public/private inside/outside input/output import/export push/pull read/write
	sunrise/sunset arrive/leave come/go give/take lend/borrow send/receive husband/wife
	brother/sister son/daughter mother/father mom/dad boy/girl man/woman male/female tab/space
	light/heavy lose/find lost/found hire/fire join/leave over/under above/below in/out inbound/outbound
	north/south east/west wet/dry full/empty rich/poor young/old alive/dead agree/disagree
	remember/forget lock/unlock connect/disconnect install/uninstall valid/invalid possible/impossible
	same/different sunny/rainy summer/winter spring/autumn spring/fall day/night morning/evening`, " ") {
		for _, q := range strings.Fields(p) {
			ab := strings.Split(q, "/")
			if len(ab) == 2 {
				m[ab[0]] = append(m[ab[0]], ab[1])
				m[ab[1]] = append(m[ab[1]], ab[0])
			}
		}
	}
	return m
}()

// lemmas are the forms a word is looked up under in opposites.
func lemmas(w string) []string {
	out := []string{w}
	switch {
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		out = append(out, w[:len(w)-3]+"y")
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		out = append(out, w[:len(w)-1], w[:len(w)-2])
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		out = append(out, w[:len(w)-3], w[:len(w)-3]+"e")
	case strings.HasSuffix(w, "er") && len(w) > 4:
		out = append(out, w[:len(w)-2], w[:len(w)-1])
	}
	return out
}

func opposed(a, b string) bool {
	for _, x := range lemmas(a) {
		for _, o := range opposites[x] {
			for _, y := range lemmas(b) {
				if o == y {
					return true
				}
			}
		}
	}
	return false
}

// sigText is a text's signature over a vocabulary's word ids.
type sigText struct {
	norm    uint64   // hash of the normalised text (lower-case words)
	vals    uint64   // hash of the sorted distinct values (numbers, number and day words)
	neg     bool     // negated
	toks    []uint32 // distinct content-word ids, ascending
	seq     []uint32 // content-word ids in text order
	propers []uint32 // distinct ids of content words capitalised inside a sentence, ascending
}

// vocab numbers words for signatures and counts their document frequency.
type vocab struct {
	ids   map[string]uint32
	words []string
	df    []int32
}

func newVocab() *vocab { return &vocab{ids: map[string]uint32{}} }

func (v *vocab) id(w string) uint32 {
	id, ok := v.ids[w]
	if !ok {
		id = uint32(len(v.words))
		v.ids[w] = id
		v.words = append(v.words, w)
		v.df = append(v.df, 0)
	}
	return id
}

// stem strips possessives, contracted verbs ("I'm" is "i") and a
// plural "s".
func stem(w string) string {
	w = strings.Trim(strings.ReplaceAll(w, "’", "'"), "'")
	for _, suf := range []string{"'s", "'m", "'re", "'ve", "'ll", "'d"} {
		w = strings.TrimSuffix(w, suf)
	}
	return words.Fold(w)
}

func hasDigit(w string) bool {
	for _, r := range w {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// rawWord is a word of the original text and whether it starts a sentence.
type rawWord struct {
	w       string
	initial bool
}

// splitWords splits text into words (words.Each, inner apostrophes
// kept) and marks the ones that start a sentence: the first, and any
// after sentence punctuation, a line break, a quote or a parenthesis.
func splitWords(text string) []rawWord {
	var out []rawWord
	prev := 0
	words.Each(text, words.Apostrophes, func(w words.Word) {
		initial := len(out) == 0 || strings.ContainsAny(text[prev:w.Start], ".!?:;\n\"“(")
		out = append(out, rawWord{w.Text, initial})
		prev = w.End
	})
	return out
}

// encode computes a text's signature, adding its words to the vocabulary.
// countDF counts each distinct content word once towards its document
// frequency.
func (v *vocab) encode(text string, countDF bool) sigText {
	var s sigText
	h := fnv.New64a()
	var vals []string
	for i, rw := range splitWords(text) {
		w := strings.ReplaceAll(strings.ToLower(rw.w), "’", "'")
		if i > 0 {
			h.Write([]byte{' '})
		}
		h.Write([]byte(w))
		if negations[w] || strings.HasSuffix(w, "n't") {
			s.neg = true
			continue
		}
		st := stem(w)
		if hasDigit(w) || valueWords[st] || valueWords[w] {
			vals = append(vals, st)
		}
		if st == "" || stop[st] {
			continue
		}
		id := v.id(st)
		s.seq = append(s.seq, id)
		if first, _ := utf8.DecodeRuneInString(rw.w); !rw.initial && unicode.IsUpper(first) {
			s.propers = append(s.propers, id)
		}
	}
	s.norm = h.Sum64()
	s.toks = sortedSet(append([]uint32(nil), s.seq...))
	s.propers = sortedSet(s.propers)
	if countDF {
		for _, id := range s.toks {
			v.df[id]++
		}
	}
	sort.Strings(vals)
	hv := fnv.New64a()
	for i, x := range vals {
		if i > 0 && vals[i-1] == x {
			continue
		}
		hv.Write([]byte(x))
		hv.Write([]byte{0})
	}
	s.vals = hv.Sum64()
	return s
}

// sortedSet sorts ids and drops repeats, in place.
func sortedSet(ids []uint32) []uint32 {
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := ids[:0]
	for i, id := range ids {
		if i == 0 || id != ids[i-1] {
			out = append(out, id)
		}
	}
	return out
}

func containsID(sorted []uint32, id uint32) bool {
	i := sort.Search(len(sorted), func(i int) bool { return sorted[i] >= id })
	return i < len(sorted) && sorted[i] == id
}

// check reports whether two signed texts may be near-duplicates, and their
// ordered word overlap (1 for equal texts).
func (v *vocab) check(a, b *sigText, minOverlap float64) (bool, float64) {
	if a.norm == b.norm {
		return true, 1
	}
	if a.vals != b.vals || a.neg != b.neg || len(a.toks) < 2 || len(b.toks) < 2 {
		return false, 0
	}
	common := 0
	for i, j := 0, 0; i < len(a.toks) && j < len(b.toks); {
		switch {
		case a.toks[i] == b.toks[j]:
			common++
			i++
			j++
		case a.toks[i] < b.toks[j]:
			i++
		default:
			j++
		}
	}
	longer := max(len(a.toks), len(b.toks))
	if common < minCommon(longer, minOverlap) {
		return false, float64(common) / float64(longer)
	}
	onlyA, onlyB := difference(a.toks, b.toks), difference(b.toks, a.toks)
	for _, x := range onlyA {
		if containsID(a.propers, x) {
			return false, 0
		}
	}
	for _, y := range onlyB {
		if containsID(b.propers, y) {
			return false, 0
		}
	}
	for _, x := range onlyA {
		for _, y := range onlyB {
			if opposed(v.words[x], v.words[y]) {
				return false, 0
			}
		}
	}
	n, matched := longer, common
	if r := lcsLen(a.seq, b.seq); r >= 0 {
		n, matched = max(len(a.seq), len(b.seq)), r
	}
	ov := float64(matched) / float64(n)
	if maxDiffPer > 0 && n-matched > n/maxDiffPer {
		return false, ov
	}
	return ov >= minOverlap, ov
}

// minCommon is how many distinct content words two texts must share when
// the larger has n: at least minOverlap of them, and all but one in
// maxDiffPer (the same budget the ordered check applies to sequences).
// The candidate join relies on it (pass_dedup.go).
func minCommon(n int, minOverlap float64) int {
	need := int(math.Ceil(minOverlap * float64(n)))
	if maxDiffPer > 0 {
		need = max(need, n-n/maxDiffPer)
	}
	return need
}

// difference returns the ids of sorted a that are not in sorted b.
func difference(a, b []uint32) []uint32 {
	var out []uint32
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			out = append(out, x)
		}
	}
	return out
}

// maxLCSCells bounds the dynamic programme; longer pairs fall back to the
// distinct-word overlap.
const maxLCSCells = 1 << 18

// lcsLen is the length of the longest common subsequence of a and b, or
// -1 when they are too long to align.
func lcsLen(a, b []uint32) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)*len(b) > maxLCSCells {
		return -1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// textPair is the text check on two plain strings, for tests and
// measurements: one throw-away vocabulary per pair.
type textPair struct {
	v    *vocab
	a, b sigText
}

func newTextPair(a, b string) *textPair {
	v := newVocab()
	return &textPair{v: v, a: v.encode(a, false), b: v.encode(b, false)}
}

func (p *textPair) check(minOverlap float64) (bool, float64) {
	return p.v.check(&p.a, &p.b, minOverlap)
}

// contentWords returns a text's distinct content words, sorted (closets
// and skill names use them).
func contentWords(text string) []string {
	v := newVocab()
	s := v.encode(text, false)
	out := make([]string, len(s.toks))
	for i, id := range s.toks {
		out[i] = v.words[id]
	}
	sort.Strings(out)
	return out
}
