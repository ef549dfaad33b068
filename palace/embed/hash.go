package embed

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// HashID is the ID of the feature-hashing embedder at its default
// dimension, HashDim. Other dimensions get the ID "hash-v1/<dim>".
const HashID = "hash-v1"

// HashDim is the default dimension of the feature-hashing embedder.
const HashDim = 384

// Hash is a feature-hashing embedder: it needs no weights and no model, so
// it is the fallback when nothing better is available.
//
// Features are the text's words (NFKC-normalised, lower-cased runs of
// letters and digits) and the character trigrams of each word padded with
// a space on each side ("cat" gives " ca", "cat", "at "). Every feature is
// hashed (FNV-1a, 64 bit) to a dimension and a sign; words weigh 1 and
// trigrams 0.5 each. Repeated features add up through a sub-linear
// 1+log(count) term. The result is L2-normalised. The output depends only
// on the text and the dimension.
type Hash struct {
	dim int
	id  string
}

var _ Embedder = (*Hash)(nil)

// Lexical reports whether e's cosine measures the words and character
// trigrams two texts share rather than what they say, as the hash
// embedder's does. Where a face keeps a hit that shares no word with the
// query for its cosine alone, such an embedder's cosine keeps nothing,
// and the prompt hook judges its hits by their words.
func Lexical(e Embedder) bool {
	id := e.ID()
	return id == HashID || strings.HasPrefix(id, HashID+"/")
}

// NewHash returns a feature-hashing embedder of the given dimension; a
// dimension below 1 means HashDim.
func NewHash(dim int) Embedder {
	if dim < 1 {
		dim = HashDim
	}
	id := HashID
	if dim != HashDim {
		id = fmt.Sprintf("%s/%d", HashID, dim)
	}
	return &Hash{dim: dim, id: id}
}

// ID implements Embedder.
func (h *Hash) ID() string { return h.id }

// Dim implements Embedder.
func (h *Hash) Dim() int { return h.dim }

// Embed implements Embedder.
func (h *Hash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = h.one(t)
	}
	return out, nil
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv1a(seed uint64, s string) uint64 {
	x := seed
	for i := 0; i < len(s); i++ {
		x ^= uint64(s[i])
		x *= fnvPrime
	}
	// Finalise (splitmix64) so that low bits are well mixed.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// seeds keep word and trigram features apart ("the" the word and "the" the
// trigram hash differently).
const (
	seedWord    = fnvOffset
	seedTrigram = fnvOffset ^ 0x9e3779b97f4a7c15
)

func (h *Hash) one(text string) []float32 {
	counts := make(map[uint64]float64)
	for _, w := range HashWords(text) {
		counts[fnv1a(seedWord, w)] += 1
		padded := " " + w + " "
		// Walk trigrams by rune, not byte.
		var starts [3]int
		n := 0
		for pos := range padded {
			starts[n%3] = pos
			n++
			if n >= 3 {
				s := starts[(n-3)%3]
				_, sz := utf8.DecodeRuneInString(padded[pos:])
				counts[fnv1a(seedTrigram, padded[s:pos+sz])] += 0.5
			}
		}
	}
	v := make([]float32, h.dim)
	for key, c := range counts {
		// c is the summed weight; damp repetition sub-linearly while keeping
		// the per-feature weight (1 for words, 0.5 for trigrams).
		unit := 1.0
		if key&(1<<63) != 0 {
			unit = -1
		}
		idx := int((key >> 1) % uint64(h.dim))
		v[idx] += float32(unit * damp(c))
	}
	return Normalize(v)
}

// damp maps a summed feature weight w to sign-free magnitude w' with
// w' = w for w <= 1 and 1+log(w) beyond, so a word repeated ten times does
// not drown the rest.
func damp(w float64) float64 {
	if w <= 1 {
		return w
	}
	return 1 + math.Log(w)
}

// HashWords splits text into the word features of the hash embedder:
// NFKC-normalised, lower-cased maximal runs of letters, digits and marks.
// It is exported so that other lexical components can share the rule.
func HashWords(text string) []string {
	text = norm.NFKC.String(text)
	var words []string
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, strings.ToLower(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		words = append(words, strings.ToLower(text[start:]))
	}
	return words
}
