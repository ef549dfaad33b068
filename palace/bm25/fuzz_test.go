package bm25

import (
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
		"日本語のテキスト", "\xff\xfe invalid \xc3", strings.Repeat("a", 40000), "don't stop-believing!!"} {
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
