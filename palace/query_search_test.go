package palace_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A prompt longer than a search's terms (a pasted log, then the question)
// is searched with the words that tell its subject apart, wherever they
// come: the note naming the function asked about is the keyword leg's
// first and among the hybrid's five, though every word of the log before
// it is in many notes too (and the log is most of what the vector reads).
func TestLongQueryKeepsItsRareWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	common := strings.Fields(`server client request response error retry timeout cache disk queue
		worker deploy build test memory index vector token user agent session record batch field
		value table column schema migration release branch commit review merge pipeline docker image
		registry secret config flag metric alert threshold latency backup restore snapshot shard
		replica leader election circuit breaker tenant region quota invoice billing refund ledger
		report export import parser reader writer buffer stream socket handler router`)
	if len(common) <= maxTerms {
		t.Fatalf("the log's vocabulary has %d words, want more than %d", len(common), maxTerms)
	}
	for i := range 40 {
		var words []string
		for j := range 8 {
			words = append(words, common[(i*7+j*11)%len(common)])
		}
		palacetest.MustAdd(t, p, &palace.Drawer{Content: fmt.Sprintf("Note %d: the %s.", i, strings.Join(words, " and the "))})
	}
	target := palacetest.MustAdd(t, p, &palace.Drawer{Content: "parseInvoiceLines drops the last line when the CSV has no trailing newline."})

	var log strings.Builder
	for i, w := range common {
		fmt.Fprintf(&log, "%s=%d ", w, i)
	}
	query := "Here is the log: " + log.String() + "\nWhy does parseInvoiceLines lose a line?"
	for _, mode := range []palace.Mode{palace.ModeKeyword, palace.ModeHybrid} {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: query, Mode: mode, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		at := slices.IndexFunc(hits, func(h palace.Hit) bool { return h.Drawer.ID == target.ID })
		if at < 0 || mode == palace.ModeKeyword && at != 0 {
			var got []string
			for _, h := range hits {
				got = append(got, h.Drawer.Content[:min(30, len(h.Drawer.Content))])
			}
			t.Errorf("%s: the note naming the function is not found (first, by keywords) for a long prompt: %q", mode, got)
		}
	}
}

// maxTerms is palace's maxQueryTerms, the terms a long query is searched with.
const maxTerms = 48
