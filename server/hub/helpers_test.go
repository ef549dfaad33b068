package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/server/hub"
)

// KnownPhrase is the text of one seeded memory that searches look for.
const KnownPhrase = "Deploy the aurora-mirror service with a blue green rollout on Fridays"

// fixture is a seeded data dir: two palaces with memories spread over
// many days, a pending fact and a few knowledge-graph triples, plus what
// a correct hub must report about them, computed here independently.
type fixture struct {
	reg          *palace.Registry
	alpha, beta  *palace.Palace
	known        *palace.Drawer
	pending      facts.Fact
	memories     int64
	activeDays   int
	lastSixMonth int64 // memories in the heatmap's 182 days (UTC)
	lastWeek     int64 // memories in the last 7 days (UTC)
}

// noonDaysAgo is noon UTC k days before today (UTC).
func noonDaysAgo(k int) time.Time {
	y, m, d := time.Now().UTC().Date()
	return time.Date(y, m, d, 12, 0, 0, 0, time.UTC).AddDate(0, 0, -k)
}

// clearOfMidnight waits out the last two minutes of a day, in UTC (the
// overview's zone when a request names none) and in the local zone (the
// browser's): a fixture seeded on one day and read on the next would see
// its heatmap move by a day under it.
func clearOfMidnight(t testing.TB) {
	t.Helper()
	const margin = 2 * time.Minute
	for _, loc := range []*time.Location{time.UTC, time.Local} {
		now := time.Now().In(loc)
		y, m, d := now.Date()
		if left := time.Date(y, m, d+1, 0, 0, 0, 0, loc).Sub(now); left < margin {
			t.Logf("waiting %v for the day to end (%s)", left.Round(time.Second), loc)
			time.Sleep(left + time.Second)
		}
	}
}

func seed(t testing.TB) *fixture {
	t.Helper()
	clearOfMidnight(t)
	ctx := context.Background()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	f := &fixture{reg: reg}
	if f.alpha, err = reg.Create(ctx, "alpha", "The loci project itself"); err != nil {
		t.Fatal(err)
	}
	if f.beta, err = reg.Create(ctx, "beta", ""); err != nil {
		t.Fatal(err)
	}
	days := map[string]bool{}
	add := func(p *palace.Palace, kind, text string, daysAgo int) *palace.Drawer {
		d := &palace.Drawer{Kind: kind, Content: text, Timestamp: noonDaysAgo(daysAgo)}
		if err := p.Add(ctx, d); err != nil {
			t.Fatal(err)
		}
		f.memories++
		days[d.Timestamp.Format(time.DateOnly)] = true
		if daysAgo < hub.HeatmapDays {
			f.lastSixMonth++
		}
		if daysAgo < 7 {
			f.lastWeek++
		}
		return d
	}
	f.known = add(f.alpha, palace.KindNote, KnownPhrase, 0)
	add(f.alpha, palace.KindNote, "The hub is served by the HTTP companion at the root path", 0)
	add(f.alpha, palace.KindEpisode, "We chose SQLite in WAL mode as the source of truth", 1)
	for i := range 3 {
		add(f.alpha, palace.KindNote, fmt.Sprintf("Retrospective item %d: keep the test suite under a minute", i+1), 3)
	}
	add(f.beta, palace.KindNote, "Beta palace started with the onboarding checklist", 10)
	add(f.beta, palace.KindNote, "Quarterly planning notes for the beta launch", 40)
	add(f.beta, palace.KindAgentCase, "Agent fixed the flaky websocket reconnect test", 100)
	add(f.beta, palace.KindNote, "Six months ago the beta palace moved to a new laptop", 170)
	add(f.beta, palace.KindNote, "An old memory from more than a year ago", 400)
	for i := range 24 {
		add(f.beta, palace.KindTurn, fmt.Sprintf("Conversation turn %02d about paging through long timelines", i), 5+i)
	}
	f.activeDays = len(days)

	// A deleted drawer counts nowhere.
	gone := &palace.Drawer{Content: "a memory that was forgotten", Timestamp: noonDaysAgo(2)}
	if err := f.beta.Add(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.beta.Forget(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}

	st, err := facts.Of(f.alpha).Stage(ctx, facts.Input{Text: "The user prefers tabs over spaces in Go code",
		Kind: "preference", Confidence: 0.7, Source: "test", NoAutoPromote: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Fact.Status != palace.StatusPending {
		t.Fatalf("staged fact is %s, want pending", st.Fact.Status)
	}
	f.pending = st.Fact

	for _, a := range []kg.Assertion{
		{Subject: "loci", Predicate: "written_in", Object: "Go"},
		{Subject: "loci", Predicate: "license", Object: "MIT"},
		{Subject: "loci", Predicate: "license", Object: "Apache-2.0"},
		{Subject: "hub", Predicate: "served_at", Object: "/"},
	} {
		if _, err := f.alpha.KG().Assert(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// serve starts the hub over the fixture on a loopback test server.
func serve(t testing.TB, f *fixture) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(hub.Handler(f.reg, hub.Options{Version: "test", PollInterval: 100 * time.Millisecond}))
	t.Cleanup(srv.Close)
	return srv
}

// call sends a request to the hub and decodes a JSON answer into out
// (when non-nil), returning the status code.
func call(t testing.TB, srv *httptest.Server, method, path string, body string, out any) int {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if method != http.MethodGet {
		req.Header.Set(hub.MutationHeader, "1")
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v\n%s", method, path, err, b)
		}
	}
	return res.StatusCode
}
