package glove

import (
	_ "embed"
	"fmt"
	"strings"
	"unicode"

	"github.com/loci-mem/loci/palace/embed/wfile"
	"golang.org/x/text/unicode/norm"
)

// Written by cmd/lociweights; see palace/embed/README.md.
//
//go:embed weights/glove-100d.lwt
var weightFile []byte

//go:embed weights/SHA256SUMS
var weightSums string

type vocab struct {
	ids   map[string]int32
	words []string
	vec   []byte    // int8, Dim per word
	scale []float32 // per word
}

func loadVocab(maxWords int) (*vocab, error) {
	if err := wfile.Verify(weightFile, weightSums, "glove-100d.lwt"); err != nil {
		return nil, err
	}
	f, err := wfile.Parse(weightFile)
	if err != nil {
		return nil, fmt.Errorf("glove weights: %w", err)
	}
	words, err := f.Get("words")
	if err != nil {
		return nil, err
	}
	vec, err := f.Get("vec")
	if err != nil {
		return nil, err
	}
	se, err := f.Get("scale")
	if err != nil {
		return nil, err
	}
	scale, err := se.Float32s()
	if err != nil {
		return nil, err
	}
	v := &vocab{words: strings.Split(string(words.Data), "\n"), vec: vec.Data, scale: scale}
	if len(vec.Dims) != 2 || vec.Dims[1] != Dim || vec.Dims[0] != len(v.words) || len(scale) != len(v.words) {
		return nil, fmt.Errorf("glove weights: %d words, vectors %v, %d scales", len(v.words), vec.Dims, len(scale))
	}
	if maxWords > 0 && maxWords < len(v.words) {
		v.words, v.scale, v.vec = v.words[:maxWords], v.scale[:maxWords], v.vec[:maxWords*Dim]
	}
	v.ids = make(map[string]int32, len(v.words))
	for i, w := range v.words {
		v.ids[w] = int32(i)
	}
	return v, nil
}

// contractions maps a clitic to the word it stands for; "" drops it.
var contractions = map[string]string{
	"n't": "not", "'s": "", "'m": "am", "'re": "are", "'ve": "have", "'ll": "will", "'d": "would",
}

// irregular negations whose stem is not the bare verb.
var negStems = map[string]string{"can't": "can", "won't": "will", "shan't": "shall", "ain't": "is"}

var apostrophes = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u02bc", "'")

func isWord(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// lookup calls f with each word of text and its vocabulary id, or -1 for
// a word outside the vocabulary.
//
// Tokenizing: NFKC, lower case, curly apostrophes made straight; a word is
// a run of letters and digits, possibly joined by single hyphens or
// apostrophes ("well-known", "don't"). A word found in the vocabulary is
// used as it is. Otherwise a clitic is split off ("don't" -> "do" "not",
// "she's" -> "she", "we'll" -> "we" "will") and a hyphenated word falls
// back to its parts ("co-founder" -> "co" "founder" when the whole is
// unknown). Whatever is still unknown is reported with id -1.
func (v *vocab) lookup(text string, f func(word string, id int32)) {
	text = strings.ToLower(norm.NFKC.String(text))
	text = apostrophes.Replace(text)
	rs := []rune(text)
	for i := 0; i < len(rs); {
		if !isWord(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) {
			if isWord(rs[j]) {
				j++
				continue
			}
			if (rs[j] == '-' || rs[j] == '\'') && j+1 < len(rs) && isWord(rs[j+1]) {
				j++
				continue
			}
			break
		}
		v.word(string(rs[i:j]), f)
		i = j
	}
}

func (v *vocab) word(w string, f func(word string, id int32)) {
	if id, ok := v.ids[w]; ok {
		f(w, id)
		return
	}
	if k := strings.IndexByte(w, '\''); k >= 0 {
		if stem, ok := negStems[w]; ok {
			v.word(stem, f)
			v.word("not", f)
			return
		}
		stem, clitic := w[:k], w[k:]
		if strings.HasSuffix(stem, "n") && clitic == "'t" {
			stem, clitic = stem[:len(stem)-1], "n't"
		}
		v.word(stem, f)
		if rep, ok := contractions[clitic]; ok {
			if rep != "" {
				v.word(rep, f)
			}
		} else if rest := strings.Trim(clitic, "'"); rest != "" {
			v.word(rest, f) // "o'brien" -> "o" "brien"
		}
		return
	}
	if strings.Contains(w, "-") {
		for _, p := range strings.Split(w, "-") {
			if id, ok := v.ids[p]; ok {
				f(p, id)
			} else {
				f(p, -1)
			}
		}
		return
	}
	f(w, -1)
}
