package dreamer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace"
)

func TestClosetsDescribeRooms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := newClock()
	p := openPalace(t, clk)
	backend := []string{
		"The postgres migrations run before the API server starts",
		"Postgres connection pooling is handled by pgbouncer in staging",
		"The API server exposes metrics for postgres query latency",
		"Index the orders table in postgres by customer id",
		"Run the postgres migrations with the migrate tool",
	}
	frontend := []string{
		"The react components use CSS modules for styling",
		"Storybook documents every react component",
		"The CSS build strips unused classes from react bundles",
	}
	for _, s := range backend {
		add(t, p, &palace.Drawer{Content: s, Room: "Backend"})
	}
	for _, s := range frontend {
		add(t, p, &palace.Drawer{Content: s, Room: "Frontend", Importance: 0.8})
	}
	rep := dream(t, p, clk, "closets")
	if pr := passReport(t, rep, "closets"); pr.Changed != 2 || len(pr.Closets) != 2 {
		t.Fatalf("closets report %+v", pr)
	}
	cs, err := p.Closets(ctx)
	if err != nil || len(cs) != 2 {
		t.Fatalf("closets %v (%v)", cs, err)
	}
	byRoom := map[string]palace.Closet{}
	for _, c := range cs {
		byRoom[c.Room] = c
	}
	if b := byRoom["Backend"]; b.Drawers != 5 || !contains(b.Keywords, "postgre") && !contains(b.Keywords, "postgres") ||
		contains(b.Keywords, "react") {
		t.Fatalf("backend closet %+v", b)
	}
	if f := byRoom["Frontend"]; !contains(f.Keywords, "react") || !strings.Contains(f.Summary, "3 memories") {
		t.Fatalf("frontend closet %+v", f)
	}
	// Unchanged rooms: nothing to write.
	if pr := passReport(t, dream(t, p, clk, "closets"), "closets"); pr.Changed != 0 {
		t.Fatalf("second pass changed %d closets", pr.Changed)
	}
	info, err := p.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Closets) != 2 || info.Closets[0].Room != "Backend" {
		t.Fatalf("palace info closets %+v", info.Closets)
	}
}
