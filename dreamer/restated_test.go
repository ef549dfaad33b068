package dreamer

import (
	"testing"

	"github.com/loci-mem/loci/palace/embed"
)

// The restatements an unmeasured embedder's threshold is carried on
// (embed.MeasureRestatements) are near-duplicates by the text check, as
// the positives the thresholds were measured on are: cosines of pairs the
// pass would never compare would say nothing about its threshold.
func TestTheRestatementsPassTheTextCheck(t *testing.T) {
	texts, restated := embed.ScaleTexts(), embed.RestatedTexts()
	overlap := DefaultSettings().TextOverlap
	for i, r := range restated {
		if ok, _ := newTextPair(texts[i], r).check(overlap); !ok {
			t.Errorf("line %d: %q and %q fail the text check", i+1, texts[i], r)
		}
	}
}
