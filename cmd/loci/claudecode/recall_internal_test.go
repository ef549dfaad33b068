package claudecode

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A prompt over the limit is searched with its two ends, each cut at a
// character's edge; a shorter one as it is.
func FuzzEndsOf(f *testing.F) {
	f.Add(strings.Repeat("日本語のログ ", 5000), 64)
	f.Add("short prompt", 16)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 16 || limit > 1<<20 || !utf8.ValidString(s) {
			return
		}
		got := endsOf(s, limit)
		if len(s) <= limit {
			if got != s {
				t.Fatalf("a prompt within the limit became %q", got)
			}
			return
		}
		const gap = "\n…\n"
		var head, tail string
		ok := false
		for i := strings.Index(got, gap); i >= 0 && !ok; i = nextIndex(got, gap, i) {
			head, tail = got[:i], got[i+len(gap):]
			ok = strings.HasPrefix(s, head) && strings.HasSuffix(s, tail)
		}
		if !ok || len(got) > limit || !utf8.ValidString(got) || !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) {
			t.Fatalf("%d bytes over a limit of %d gave %d bytes (valid %v): %q…%q", len(s), limit, len(got), utf8.ValidString(got), head, tail)
		}
		if len(head) < limit/2-utf8.UTFMax-len(gap) || len(tail) < limit/2-utf8.UTFMax-len(gap) {
			t.Fatalf("ends of %d and %d bytes for a limit of %d", len(head), len(tail), limit)
		}
	})
}

// nextIndex is the index of sep in s after the one at i, or -1.
func nextIndex(s, sep string, i int) int {
	if j := strings.Index(s[i+1:], sep); j >= 0 {
		return i + 1 + j
	}
	return -1
}
