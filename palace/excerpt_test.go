package palace_test

import (
	"strings"
	"testing"

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
