package palace_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace"
)

func TestExcerpt(t *testing.T) {
	t.Parallel()
	const n = 800 // the prompt hook's
	long := "User: why does the deploy fail?\n\nAssistant: " + strings.Repeat("Some background on the pipeline. ", 60) +
		"The fix: pin the base image to alpine 3.19."
	at := strings.Index(long, "The fix")
	early := &palace.Span{Start: 0, End: 40}
	late := &palace.Span{Start: at, End: len(long)}
	for _, c := range []struct {
		name    string
		content string
		passage *palace.Span
		want    string // a part the excerpt must show
		not     string // and one it must not
	}{
		{"short text whole", "User: hi\n\nAssistant: hello", nil, "Assistant: hello", "…"},
		{"long, no passage: its start", long, nil, "User: why does the deploy fail?", "alpine"},
		{"long, passage within the start", long, early, "User: why does the deploy fail?", "alpine"},
		{"long, passage past the start: the opening line and the passage", long, late, "User: why does the deploy fail?\n…\nThe fix: pin the base image to alpine 3.19.", "background on the pipeline. Some"},
		{"a passage out of range is ignored", long, &palace.Span{Start: 10, End: len(long) + 5}, "User: why", "alpine"},
	} {
		got := palace.Excerpt(c.content, c.passage, n)
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%s: %q", c.name, got)
		}
		if m := len([]rune(got)); m > 2*n+n/5+3 {
			t.Errorf("%s: %d characters", c.name, m)
		}
	}
}

// ExcerptWithin keeps its bound for any n, and still shows the passage that
// matched when there is room for it.
func TestExcerptWithin(t *testing.T) {
	t.Parallel()
	long := "Build log of Tuesday\n" + strings.Repeat("step ok; ", 500) + "FAILED: disk quota exceeded on /var/cache" + strings.Repeat(" step ok;", 100)
	at := strings.Index(long, "FAILED")
	passage := &palace.Span{Start: at, End: at + len("FAILED: disk quota exceeded on /var/cache")}
	for n := 0; n <= 300; n++ {
		for _, p := range []*palace.Span{nil, passage} {
			if got := palace.ExcerptWithin(long, p, "disk quota", n); len([]rune(got)) > n && n > 0 {
				t.Fatalf("n=%d passage=%v: %d characters: %q", n, p != nil, len([]rune(got)), got)
			}
		}
	}
	got := palace.ExcerptWithin(long, passage, "disk quota", 100)
	if !strings.HasPrefix(got, "Build log") || !strings.Contains(got, "FAILED: disk quota exceeded on /var/cache") {
		t.Errorf("n=100: %q, want the opening line and the passage", got)
	}
	// A passage wider than the room: the stretch with most of the query's
	// words, even at the passage's end, and not a lone one of them.
	wide := &palace.Span{Start: at - 600, End: passage.End}
	long2 := long[:at-300] + "quota " + long[at-300:]
	wide2 := &palace.Span{Start: wide.Start, End: wide.End + len("quota ")}
	for _, c := range []struct {
		content string
		span    *palace.Span
	}{{long, wide}, {long2, wide2}} {
		got := palace.ExcerptWithin(c.content, c.span, "why was the disk quota exceeded?", 100)
		if !strings.Contains(got, "disk quota exceeded") || len([]rune(got)) > 100 {
			t.Errorf("a wide passage in 100 characters: %q; want the words that matched", got)
		}
	}
	if got := palace.ExcerptWithin("short", passage, "disk quota", 100); got != "short" {
		t.Errorf("a short text: %q", got)
	}
}

// FuzzExcerptWithin: for any text, span, query and bound, the excerpt
// keeps the bound, is valid UTF-8 where the text is, and is the text
// itself when the text fits.
func FuzzExcerptWithin(f *testing.F) {
	f.Add("Build log\nstep ok; FAILED: disk quota exceeded", 10, 40, "disk quota", 30)
	f.Add("héllo wörld — ünïcode ✓ 日本語のテキスト", 3, 20, "wörld テキスト", 12)
	f.Add("  leading space\n\nthen more text here", -5, 1000, "", 1)
	f.Fuzz(func(t *testing.T, content string, start, end int, query string, n int) {
		if n < 1 || n > 1<<16 {
			return
		}
		sp := &palace.Span{Start: start, End: end}
		got := palace.ExcerptWithin(content, sp, query, n)
		if c := utf8.RuneCountInString(got); c > n {
			t.Fatalf("ExcerptWithin(%q, %+v, %q, %d) = %q: %d characters", content, sp, query, n, got, c)
		}
		if utf8.ValidString(content) && !utf8.ValidString(got) {
			t.Fatalf("ExcerptWithin(%q, %+v, %q, %d) = %q: not UTF-8", content, sp, query, n, got)
		}
		if text := strings.TrimSpace(content); utf8.RuneCountInString(text) <= n && got != text {
			t.Fatalf("a text that fits came back as %q, want %q", got, text)
		}
	})
}
