package palace

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Without an index to ask, a long query is searched with its first
// maxQueryTerms terms, and a word of Chinese, Japanese, Korean or Thai
// counts a term for each of its characters (the index searches each
// character and pair of them).
func TestQueryTermsBound(t *testing.T) {
	t.Parallel()
	first := func(q string) []string { return searchedTerms(queryTerms(q), nil) }
	var many []string
	for i := range 60 {
		many = append(many, "word"+strings.Repeat("x", i))
	}
	if got := first(strings.Join(many, " ")); len(got) != maxQueryTerms || got[0] != "word" {
		t.Errorf("60 words give %d terms, want the first %d", len(got), maxQueryTerms)
	}
	han := strings.Repeat("部署新版本", 20) // 100 characters, one word
	got := first("deploy " + han + " release")
	if len(got) != 3 || got[0] != "deploy" || got[2] != "release" || utf8.RuneCountInString(got[1]) != maxQueryTerms-2 || !strings.HasPrefix(han, got[1]) {
		t.Errorf("100 Han characters between two words give %q, want the words and the first %d characters", got, maxQueryTerms-2)
	}
	thai := strings.Repeat("ฐานข้อมูล", 10) // one word of 90 characters
	if got := first(thai); len(got) != 1 || utf8.RuneCountInString(got[0]) != maxQueryTerms {
		t.Errorf("90 Thai characters give %q, want the first %d", got, maxQueryTerms)
	}
	if got := first("缓存 redis"); len(got) != 2 {
		t.Errorf("a short CJK word and a word give %q", got)
	}
}

// Beyond the bound a query keeps its rarest terms, in its own order; terms
// no text holds go first, and a word of characters that no longer fits
// whole is cut.
func TestSearchedTermsKeepTheRarest(t *testing.T) {
	t.Parallel()
	var terms []string
	df := map[string]int{}
	for i := range 60 {
		w := fmt.Sprintf("common%02d", i)
		terms, df[w] = append(terms, w), 500+i
	}
	terms = append(terms, "absent", "parseinvoicelines", "redis")
	df["parseinvoicelines"], df["redis"] = 2, 40
	got := searchedTerms(terms, func(w string) int { return df[w] })
	if len(got) != maxQueryTerms {
		t.Fatalf("63 terms give %d, want %d", len(got), maxQueryTerms)
	}
	if got[len(got)-2] != "parseinvoicelines" || got[len(got)-1] != "redis" {
		t.Errorf("the two rare terms at the end of the query are not kept last, in order: %q", got[len(got)-3:])
	}
	if slices.Contains(got, "absent") {
		t.Errorf("a term no text holds is kept over terms the palace holds: %q", got)
	}
	if got[0] != "common00" || got[len(got)-3] != "common45" {
		t.Errorf("the common terms kept are %q…%q, want the 46 rarest (common00…common45)", got[0], got[len(got)-3])
	}
	// A short query is searched whole, whatever its terms' df.
	short := []string{"absent", "redis"}
	if got := searchedTerms(short, func(w string) int { return df[w] }); !slices.Equal(got, short) {
		t.Errorf("a short query gives %q", got)
	}
	han := strings.Repeat("部署新版本", 10) // one word of 50 characters
	got = searchedTerms([]string{"deploy", han, "release"}, func(w string) int { return map[string]int{"deploy": 9, han: 1, "release": 3}[w] })
	if len(got) != 3 || got[0] != "deploy" || got[2] != "release" || utf8.RuneCountInString(got[1]) != maxQueryTerms-2 {
		t.Errorf("a rare word of 50 characters between two words gives %q, want all three, it cut to %d characters", got, maxQueryTerms-2)
	}
}

// Whatever a query holds, the terms searched cost at most maxQueryTerms,
// come in the query's order, and are its terms, one of them perhaps cut;
// a query within the bound is searched whole.
func FuzzSearchedTerms(f *testing.F) {
	f.Add("deploy 部署新版本部署新版本 release the redis cache", uint8(3))
	f.Add(strings.Repeat("word ", 80)+"ฐานข้อมูล", uint8(7))
	f.Fuzz(func(t *testing.T, query string, seed uint8) {
		terms := queryTerms(query)
		df := func(w string) int { return (len(w)*int(seed) + int(w[0])) % 7 }
		got := searchedTerms(terms, df)
		cost, cut := 0, 0
		j := 0
		for _, g := range got {
			cost += termCost(g)
			for j < len(terms) && terms[j] != g && !(termCost(terms[j]) > 1 && strings.HasPrefix(terms[j], g)) {
				j++
			}
			if j == len(terms) {
				t.Fatalf("%q is not a term of %q, in order", g, terms)
			}
			if terms[j] != g {
				cut++
			}
			j++
		}
		if cost > maxQueryTerms || cut > 1 {
			t.Fatalf("%d terms searched cost %d (%d cut)", len(got), cost, cut)
		}
		total := 0
		for _, w := range terms {
			total += termCost(w)
		}
		if total <= maxQueryTerms && !slices.Equal(got, terms) {
			t.Fatalf("a query within the bound is searched with %q, not %q", got, terms)
		}
	})
}
