package bm25

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Doc is a document analysed for the index: its distinct tokens with their
// per-field counts. Analyse is pure and may run in parallel; Put is cheap.
type Doc struct {
	terms  []string
	counts []uint8
	length uint32
	hash   uint64
}

// Analyze tokenizes the fields of a document (one text per weight).
func (x *Index) Analyze(fields ...string) Doc {
	return x.Analyzer().Analyze(fields...)
}

// Analyzer returns an analyser for this index's documents that reuses its
// buffers: one per goroutine.
func (x *Index) Analyzer() *Analyzer { return &Analyzer{nf: len(x.weights)} }

// Analyzer analyses documents (see Index.Analyzer).
type Analyzer struct {
	nf              int
	pos             map[string]int
	prev, pair, cat []byte
}

// Analyze is Index.Analyze. Besides its tokens, a document holds its
// joined pairs: two tokens written with only punctuation between them
// ("fact_horizon", "e-mail", "3.14", "don't") make the term
// "fact\x00horizon" (no token holds a zero byte). Pairs answer query words
// of several tokens (Search); they count in no document's length, so
// single-token scores stay FTS5's.
func (z *Analyzer) Analyze(fields ...string) Doc {
	if z.pos == nil {
		z.pos = map[string]int{}
	}
	clear(z.pos)
	d := Doc{hash: hashFields(fields)}
	for f, text := range fields {
		if f >= z.nf {
			break
		}
		eachToken(text, func(tok []byte, joined, _ bool) {
			d.length++
			z.count(&d, tok, f)
			if joined {
				z.pair = appendPair(z.pair[:0], z.prev, tok)
				z.count(&d, z.pair, f)
			}
			z.prev = append(z.prev[:0], tok...)
		})
		hyphenated(text, func(word string) {
			n := 0
			eachToken(word, func(tok []byte, _, _ bool) {
				if n++; n == 1 {
					z.cat = append(z.cat[:0], tok...)
				}
			})
			if n == 1 {
				z.count(&d, z.cat, f)
			}
		})
	}
	return d
}

// A word written with hyphens ("e-mail", "de-stress", "well-being") is
// often written without them too, and a query word of one token
// ("email") matched only the texts that wrote it so. So a document also
// counts each such word with its parts joined, as the one token that
// gives ("email", "destress", "wellb"), beside its parts; like a joined
// pair it counts in no document's length. This is the catenation of
// Lucene's word delimiter filter. Only words whose every part holds a
// letter are joined: "3-4" is a range, not the number 34.

// hyphenated calls fn with each word of text whose parts are joined by
// hyphens (ASCII or U+2010/U+2011), with the hyphens taken out.
func hyphenated(text string, fn func(word string)) {
	for i := 0; i < len(text); {
		j := strings.IndexAny(text[i:], "-\u2010\u2011")
		if j < 0 {
			return
		}
		j += i
		// The word around the hyphen: the parts before and after, each a
		// run of letters and digits, and more hyphens and parts after.
		start := j
		for start > 0 {
			r, size := utf8.DecodeLastRuneInString(text[:start])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			start -= size
		}
		end, parts, lettered := j, 1, hasLetter(text[start:j])
		for end < len(text) {
			r, size := utf8.DecodeRuneInString(text[end:])
			if r != '-' && r != '\u2010' && r != '\u2011' {
				break
			}
			k := end + size
			for k < len(text) {
				r, size := utf8.DecodeRuneInString(text[k:])
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				k += size
			}
			if k == end+size {
				break // a hyphen with no part after it
			}
			lettered = lettered && hasLetter(text[end+size:k])
			end, parts = k, parts+1
		}
		if start < j && parts > 1 && lettered {
			fn(dehyphen.Replace(text[start:end]))
		}
		i = max(end, j+1)
	}
}

// dehyphen takes out the hyphens hyphenated finds.
var dehyphen = strings.NewReplacer("-", "", "\u2010", "", "\u2011", "")

// hasLetter reports whether s holds a letter.
func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// count counts term once more in field f of d.
func (z *Analyzer) count(d *Doc, term []byte, f int) {
	i, ok := z.pos[string(term)] // no allocation for the lookup
	if !ok {
		t := string(term)
		i = len(d.terms)
		z.pos[t] = i
		d.terms = append(d.terms, t)
		for range z.nf {
			d.counts = append(d.counts, 0)
		}
	}
	if c := &d.counts[i*z.nf+f]; *c < maxCount {
		*c++
	}
}

// appendPair appends the term of the joined pair of tokens a and b.
func appendPair[T string | []byte](dst []byte, a, b T) []byte {
	dst = append(dst, a...)
	dst = append(dst, 0)
	return append(dst, b...)
}

// hashFields fingerprints a document's texts, so that re-putting an
// unchanged document costs no tokenizing and leaves no dead slot. The hash
// is saved in snapshots, so it is a fixed function (FNV-1a over each
// field's length and bytes), never a seeded one.
func hashFields(fields []string) uint64 {
	h := uint64(fnvOffset)
	for _, f := range fields {
		for n := uint64(len(f)); ; n >>= 8 {
			h = (h ^ n&0xff) * fnvPrime
			if n < 0x100 {
				break
			}
		}
		h = fnv(h, f)
	}
	return h
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv continues an FNV-1a hash over s.
func fnv[T string | []byte](h uint64, s T) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// mix64 spreads a hash's entropy over all its bits (MurmurHash3's
// finalizer), so that tables can use its low bits.
func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
