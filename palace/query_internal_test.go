package palace

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A query is searched with its first maxQueryTerms terms, and a word of
// Chinese, Japanese, Korean or Thai counts a term for each of its
// characters (the index searches each character and pair of them).
func TestQueryTermsBound(t *testing.T) {
	t.Parallel()
	var many []string
	for i := range 60 {
		many = append(many, "word"+strings.Repeat("x", i))
	}
	if got := queryTerms(strings.Join(many, " ")); len(got) != maxQueryTerms || got[0] != "word" {
		t.Errorf("60 words give %d terms, want the first %d", len(got), maxQueryTerms)
	}
	han := strings.Repeat("部署新版本", 20) // 100 characters, one word
	got := queryTerms("deploy " + han + " release")
	if len(got) != 2 || got[0] != "deploy" || utf8.RuneCountInString(got[1]) != maxQueryTerms-1 || !strings.HasPrefix(han, got[1]) {
		t.Errorf("a word and 100 Han characters give %q, want the word and the first %d characters", got, maxQueryTerms-1)
	}
	thai := strings.Repeat("ฐานข้อมูล", 10) // one word of 90 characters
	if got := queryTerms(thai); len(got) != 1 || utf8.RuneCountInString(got[0]) != maxQueryTerms {
		t.Errorf("90 Thai characters give %q, want the first %d", got, maxQueryTerms)
	}
	if got := queryTerms("缓存 redis"); len(got) != 2 {
		t.Errorf("a short CJK word and a word give %q", got)
	}
}
