package palace

import (
	"strings"
	"testing"
)

// A long text is judged by its opening.
func TestLegibleShareReadsTheOpening(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("we walked the dog ", maxLegibleBytes/18+1) + strings.Repeat("x.y(z) ", 100_000)
	if got := legibleShare(long); got != 1 {
		t.Errorf("a long text of prose then code: %.3f, want 1 (its opening)", got)
	}
}
