package bm25

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTokenize: the tokenizer never panics on any bytes; EachToken and
// Tokenize agree; a token is never empty nor longer than FTS5 stores; and
// an index built from the text finds it when asked for the text itself
// (queries are tokenized like documents: a stemmed token is not a query
// word, Porter stemming is not idempotent).
// Seed corpus: testdata/fuzz/FuzzTokenize; longer runs: make fuzz.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "Hello, World!", "fact_horizon e-mail 3.14 U.S.", "naïve café Ŝtraße",
		"日本語のテキスト", "\xff\xfe invalid \xc3", strings.Repeat("a", 40000), "don't stop-believing!!",
		"缓存使用Redis，数据库", "서울에서 만나요", "ฐานข้อมูล", "Мы купили машину ёлку", "x-сервера9ами",
		"والبيانات بالكتاب مدرسـة لها"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var a []string
		Tokenize(text, func(tok string) { a = append(a, tok) })
		var b []string
		EachToken(text, func(tok []byte) { b = append(b, string(tok)) })
		if !slices.Equal(a, b) {
			t.Fatalf("Tokenize %q and EachToken %q differ", a, b)
		}
		for _, tok := range a {
			if tok == "" || len(tok) > maxTermBytes {
				t.Fatalf("token %q (%d bytes)", tok, len(tok))
			}
		}
		if len(a) == 0 || !utf8.ValidString(text) {
			return
		}
		x := New(1)
		x.Put(7, true, text)
		if hits := x.Search([]string{text}, 1, true, nil); len(hits) != 1 || hits[0].Key != 7 {
			t.Fatalf("text %q (tokens %q) not found by itself: %v", text, a, hits)
		}
	})
}

// FuzzExpand builds a small index from a seed (words drawn by Zipf's law,
// some documents inactive, removed or added after Trim) and checks that
// Expand, which passes over the documents its tokens of smallest bound
// cannot lift into the best k, ranks exactly as SearchExpanded, which
// scores every posting.
func FuzzExpand(f *testing.F) {
	for _, seed := range []int64{1, 2, 3, 99, 12345} {
		f.Add(seed, uint8(10), uint8(6), 0.3)
	}
	f.Fuzz(func(t *testing.T, seed int64, k, extras uint8, weight float64) {
		if k == 0 || math.IsNaN(weight) || math.IsInf(weight, 0) {
			return
		}
		r := rand.New(rand.NewSource(seed))
		zipf := rand.NewZipf(r, 1.05+r.Float64(), 1+r.Float64()*3, 400)
		text := zipfText(zipf)
		x := New(1, 0.5)
		docs := 50 + r.Intn(400)
		for key := 1; key <= docs; key++ {
			x.Put(int64(key), r.Intn(5) > 0, text(1+r.Intn(25)), text(r.Intn(4)))
		}
		if r.Intn(2) == 0 {
			x.Trim()
		}
		for range r.Intn(20) {
			x.Remove(int64(1 + r.Intn(docs)))
			x.Put(int64(docs+1+r.Intn(50)), true, text(1+r.Intn(10)))
		}
		query := strings.Fields(text(1 + r.Intn(3)))
		var extra []Weighted
		for range int(extras % 16) {
			extra = append(extra, Weighted{Tok: fmt.Sprintf("w%d", zipf.Uint64()), W: math.Abs(weight) * r.Float64()})
		}
		active := r.Intn(2) == 0
		_, kept := x.SearchKeep(query, int(k), active, nil)
		sameHits(t, fmt.Sprintf("%q k=%d + %v", query, k, extra), x.Expand(kept, extra), x.SearchExpanded(query, extra, int(k), active, nil))
	})
}
