package hub_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/server/hub"
)

type overviewBody struct {
	Stats    hub.Stats `json:"stats"`
	Today    string    `json:"today"`
	TimeZone string    `json:"time_zone"`
	Days     []hub.Day `json:"days"`
}

func TestOverviewMatchesStore(t *testing.T) {
	t.Parallel()
	f := seed(t)
	srv := serve(t, f)
	var ov overviewBody
	if code := call(t, srv, "GET", "/hub/api/overview?tz=UTC", "", &ov); code != 200 {
		t.Fatalf("status %d", code)
	}
	// The store's own count of active drawers, through the palace API.
	var store int64
	for _, p := range []*palace.Palace{f.alpha, f.beta} {
		in, err := p.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		store += in.DrawerCount
	}
	st := ov.Stats
	if st.Memories != store || st.Memories != f.memories {
		t.Errorf("memories = %d; store says %d, fixture %d", st.Memories, store, f.memories)
	}
	if st.Palaces != 2 {
		t.Errorf("palaces = %d, want 2", st.Palaces)
	}
	if st.ActiveDays != f.activeDays {
		t.Errorf("active days = %d, want %d", st.ActiveDays, f.activeDays)
	}
	if want := math.Round(float64(f.memories)/float64(f.activeDays)*10) / 10; st.AvgPerDay != want {
		t.Errorf("avg per day = %v, want %v", st.AvgPerDay, want)
	}
	if want := math.Round(float64(f.memories)/2*10) / 10; st.AvgPerPalace != want {
		t.Errorf("avg per palace = %v, want %v", st.AvgPerPalace, want)
	}
	if st.Pending != 1 || st.Triples != 3 {
		t.Errorf("pending, triples = %d, %d; want 1, 3", st.Pending, st.Triples)
	}
	if len(ov.Days) != hub.HeatmapDays {
		t.Fatalf("%d days, want %d", len(ov.Days), hub.HeatmapDays)
	}
	if today := time.Now().UTC().Format(time.DateOnly); ov.Today != today || ov.Days[len(ov.Days)-1].Date != today {
		t.Errorf("today = %s, last day %s; want %s", ov.Today, ov.Days[len(ov.Days)-1].Date, today)
	}
	var six, week int64
	for i, d := range ov.Days {
		six += d.Count
		if i >= len(ov.Days)-7 {
			week += d.Count
		}
	}
	if six != f.lastSixMonth || week != f.lastWeek {
		t.Errorf("six months, week = %d, %d; want %d, %d", six, week, f.lastSixMonth, f.lastWeek)
	}
}

func TestOverviewTimeZones(t *testing.T) {
	t.Parallel()
	f := seed(t)
	srv := serve(t, f)
	var utc, east overviewBody
	call(t, srv, "GET", "/hub/api/overview?tz=UTC", "", &utc)
	// Noon UTC is 01:00 the next day at UTC+13.
	if code := call(t, srv, "GET", "/hub/api/overview?tz_offset=780", "", &east); code != 200 {
		t.Fatalf("status %d", code)
	}
	if east.TimeZone != "UTC+13:00" {
		t.Errorf("time zone = %q", east.TimeZone)
	}
	eastDays := map[string]int64{}
	for _, d := range east.Days {
		eastDays[d.Date] = d.Count
	}
	checked := 0
	for _, d := range utc.Days {
		day, _ := time.Parse(time.DateOnly, d.Date)
		next := day.AddDate(0, 0, 1).Format(time.DateOnly)
		if n, ok := eastDays[next]; ok {
			checked++
			if n != d.Count {
				t.Errorf("%s at UTC has %d; %s at UTC+13 has %d", d.Date, d.Count, next, n)
			}
		}
	}
	if checked < hub.HeatmapDays-2 {
		t.Errorf("only %d days compared", checked)
	}
	if east.Stats.ActiveDays != f.activeDays {
		t.Errorf("active days at UTC+13 = %d, want %d", east.Stats.ActiveDays, f.activeDays)
	}
	for _, bad := range []string{"tz_offset=abc", "tz_offset=9999"} {
		if code := call(t, srv, "GET", "/hub/api/overview?"+bad, "", nil); code != 400 {
			t.Errorf("%s: status %d, want 400", bad, code)
		}
	}
}

func TestPalaceCardsAndTimeline(t *testing.T) {
	t.Parallel()
	f := seed(t)
	srv := serve(t, f)
	var cards struct{ Palaces []hub.PalaceCard }
	call(t, srv, "GET", "/hub/api/palaces", "", &cards)
	if len(cards.Palaces) != 2 || cards.Palaces[0].Name != "alpha" || cards.Palaces[1].Name != "beta" {
		t.Fatalf("cards = %+v", cards.Palaces)
	}
	a, b := cards.Palaces[0], cards.Palaces[1]
	if a.Memories != 6 || a.Pending != 1 || a.Triples != 3 || a.Description != "The loci project itself" {
		t.Errorf("alpha card = %+v", a)
	}
	if b.Memories != 29 || b.Pending != 0 {
		t.Errorf("beta card = %+v", b)
	}
	if !a.LastActivity.Equal(f.known.Timestamp) {
		t.Errorf("alpha last activity = %v, want %v", a.LastActivity, f.known.Timestamp)
	}

	seen := map[string]bool{}
	var last time.Time
	for offset, pages := 0, 0; ; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		var pg hub.Page
		if code := call(t, srv, "GET", "/hub/api/palaces/beta/drawers?limit=10&offset="+strconv.Itoa(offset), "", &pg); code != 200 {
			t.Fatalf("status %d", code)
		}
		if pg.Total != 29 || pg.Remaining != max(29-offset-10, 0) || pg.HasMore != (pg.Remaining > 0) {
			t.Errorf("page at %d: total %d remaining %d has_more %v", offset, pg.Total, pg.Remaining, pg.HasMore)
		}
		if len(pg.Drawers) == 0 {
			t.Fatalf("empty page at %d", offset)
		}
		for i := range pg.Drawers {
			d := pg.Drawers[i]
			if seen[d.ID] {
				t.Errorf("drawer %s on two pages", d.ID)
			}
			seen[d.ID] = true
			if !last.IsZero() && d.Timestamp.After(last) {
				t.Errorf("timeline not newest first at %s", d.ID)
			}
			last = d.Timestamp
		}
		if !pg.HasMore {
			break
		}
		offset = pg.NextOffset
	}
	if len(seen) != 29 {
		t.Errorf("pages covered %d drawers, want 29", len(seen))
	}
	for _, path := range []string{"/hub/api/palaces/nope/drawers", "/hub/api/palaces/beta/drawers?limit=0", "/hub/api/palaces/..%2Fx/drawers"} {
		if code := call(t, srv, "GET", path, "", nil); code != 404 && code != 400 {
			t.Errorf("%s: status %d, want 4xx", path, code)
		}
	}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	f := seed(t)
	srv := serve(t, f)
	var res struct {
		Hits []hub.SearchHit
	}
	call(t, srv, "GET", "/hub/api/search?q="+url.QueryEscape("aurora mirror rollout"), "", &res)
	if len(res.Hits) == 0 || res.Hits[0].Drawer.ID != f.known.ID || res.Hits[0].Palace != "alpha" {
		t.Fatalf("hits = %+v; want %s first", res.Hits, f.known.ID)
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Errorf("hits not ordered by score at %d", i)
		}
	}
	call(t, srv, "GET", "/hub/api/search?palace=beta&mode=keyword&q=aurora", "", &res)
	for _, h := range res.Hits {
		if h.Palace != "beta" || h.Drawer.ID == f.known.ID {
			t.Errorf("palace=beta search returned %+v", h)
		}
	}
	for _, bad := range []string{"q=", "q=x&mode=psychic", "q=x&k=5000"} {
		if code := call(t, srv, "GET", "/hub/api/search?"+bad, "", nil); code != 400 {
			t.Errorf("%s: status %d, want 400", bad, code)
		}
	}
}

// A search hit deep in a long drawer shows the passage that matched,
// after the drawer's opening line, not only the drawer's start. A word is
// matched as the index reads it: "bday" is where "birthday" matched.
func TestSearchShowsTheMatchedPassage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ said, query, shown string }{
		{"the zeppelin rudder hinge cracked during inspection", "zeppelin rudder hinge", "zeppelin"},
		{"we threw a surprise bday for the airship crew", "birthday", "bday"},
	} {
		f := seed(t)
		var filler []string
		for i := range 2000 {
			filler = append(filler, fmt.Sprintf("filler%d", i%97))
		}
		filler[1230] = c.said // inside a passage, not at its start
		long := &palace.Drawer{Content: strings.Join(filler, " ")}
		if err := f.alpha.Add(context.Background(), long); err != nil {
			t.Fatal(err)
		}
		srv := serve(t, f)
		var res struct {
			Hits []hub.SearchHit
		}
		call(t, srv, "GET", "/hub/api/search?q="+url.QueryEscape(c.query), "", &res)
		if len(res.Hits) == 0 || res.Hits[0].Drawer.ID != long.ID {
			t.Fatalf("%q: hits = %+v; want the long drawer first", c.query, res.Hits)
		}
		d := res.Hits[0].Drawer
		if !d.Truncated || !strings.HasPrefix(d.Content, "filler0 filler1") || !strings.Contains(d.Content, c.said) || len(d.Content) > 3000 {
			t.Errorf("%q: the hit shows %d bytes (truncated %v): want its opening and the matched passage:\n%.400s", c.query, len(d.Content), d.Truncated, d.Content)
		}
		// The list shows a hit's first lines: what it shows of the passage
		// starts at most a few words before the match.
		if _, tail, ok := strings.Cut(d.Content, "\n…\n"); !ok || !strings.Contains(tail[:min(len(tail), 120)], c.shown) {
			t.Errorf("%q: the passage shown does not start a few words before the match:\n%.400s", c.query, tail)
		}
	}
}

func TestDrawerDetailAndForget(t *testing.T) {
	t.Parallel()
	f := seed(t)
	srv := serve(t, f)
	path := "/hub/api/palaces/alpha/drawers/" + f.known.ID
	var detail struct{ Drawer palace.Drawer }
	if code := call(t, srv, "GET", path, "", &detail); code != 200 || detail.Drawer.Content != KnownPhrase {
		t.Fatalf("detail: status %d, drawer %+v", code, detail.Drawer)
	}
	// A change without the hub header (a cross-site form, say) is refused.
	req, _ := http.NewRequest("DELETE", srv.URL+path, nil)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("DELETE without %s: status %d, want 403", hub.MutationHeader, res.StatusCode)
	}
	if d, _ := f.alpha.Get(context.Background(), f.known.ID); d.Status != palace.StatusActive {
		t.Fatalf("refused forget changed the drawer to %s", d.Status)
	}
	var forgot struct{ Undo string }
	if code := call(t, srv, "DELETE", path, "", &forgot); code != 200 {
		t.Fatalf("forget: status %d", code)
	}
	if d, _ := f.alpha.Get(context.Background(), f.known.ID); d.Status != palace.StatusDeleted {
		t.Errorf("after forget the drawer is %s", d.Status)
	}
	if code := call(t, srv, "DELETE", path, "", nil); code != 404 {
		t.Errorf("second forget: status %d, want 404", code)
	}
	var ov overviewBody
	call(t, srv, "GET", "/hub/api/overview", "", &ov)
	if ov.Stats.Memories != f.memories-1 {
		t.Errorf("memories after forget = %d, want %d", ov.Stats.Memories, f.memories-1)
	}
	// The forget's undo token brings it back.
	if code := call(t, srv, "POST", "/hub/api/palaces/alpha/undo", `{"token":"`+forgot.Undo+`"}`, nil); code != 200 {
		t.Fatalf("undo forget (token %q): status %d", forgot.Undo, code)
	}
	if d, _ := f.alpha.Get(context.Background(), f.known.ID); d.Status != palace.StatusActive {
		t.Errorf("after undo the drawer is %s", d.Status)
	}
}

type reviewBody struct {
	Items []hub.ReviewItem
	Total int
}

func TestReviewQueue(t *testing.T) {
	t.Parallel()
	f := seed(t)
	srv := serve(t, f)
	ctx := context.Background()
	status := func() string {
		t.Helper()
		fact, err := facts.Of(f.alpha).Get(ctx, f.pending.ID)
		if err != nil {
			t.Fatal(err)
		}
		return fact.Status
	}
	var q reviewBody
	call(t, srv, "GET", "/hub/api/review", "", &q)
	if q.Total != 1 || len(q.Items) != 1 || q.Items[0].Fact.ID != f.pending.ID || q.Items[0].Palace != "alpha" {
		t.Fatalf("queue = %+v", q)
	}
	base := "/hub/api/palaces/alpha/review/"
	var act struct {
		Fact facts.Fact
		Undo string
	}
	// Reject hands out an undo token, which puts the fact back in the queue.
	if code := call(t, srv, "POST", base+f.pending.ID+"/reject", "", &act); code != 200 {
		t.Fatalf("reject: status %d", code)
	}
	if got := status(); got != palace.StatusRejected || act.Fact.Status != palace.StatusRejected {
		t.Errorf("after reject the store says %s, the answer %s", got, act.Fact.Status)
	}
	if !strings.HasPrefix(act.Undo, "undo-") {
		t.Fatalf("reject answered undo token %q", act.Undo)
	}
	call(t, srv, "GET", "/hub/api/review", "", &q)
	if q.Total != 0 {
		t.Errorf("queue after reject = %+v", q)
	}
	if code := call(t, srv, "POST", "/hub/api/palaces/alpha/undo", `{"token":"`+act.Undo+`"}`, nil); code != 200 {
		t.Fatalf("undo: status %d", code)
	}
	if got := status(); got != palace.StatusPending {
		t.Errorf("after undo the fact is %s", got)
	}
	if code := call(t, srv, "POST", "/hub/api/palaces/alpha/undo", `{"token":"`+act.Undo+`"}`, nil); code != 409 {
		t.Errorf("second undo: status %d, want 409", code)
	}
	// Approve promotes it: recall can return it.
	if code := call(t, srv, "POST", base+f.pending.ID+"/approve", "", &act); code != 200 {
		t.Fatalf("approve: status %d", code)
	}
	if got := status(); got != palace.StatusActive {
		t.Errorf("after approve the fact is %s", got)
	}
	call(t, srv, "GET", "/hub/api/review", "", &q)
	if q.Total != 0 || len(q.Items) != 0 {
		t.Errorf("queue after approve = %+v", q)
	}
	for path, want := range map[string]int{
		base + f.pending.ID + "/reject":  409, // promoted facts are forgotten, not rejected
		base + f.pending.ID + "/promote": 404,
		base + "mem-9999/approve":        404,
		base + f.known.ID + "/approve":   404, // not a fact
		"/hub/api/palaces/alpha/undo":    400, // no body
	} {
		if code := call(t, srv, "POST", path, "", nil); code != want {
			t.Errorf("POST %s: status %d, want %d", path, code, want)
		}
	}
	if code := call(t, srv, "POST", "/hub/api/palaces/alpha/undo", `{"token":"undo-nope"}`, nil); code != 404 {
		t.Errorf("unknown token: status %d, want 404", code)
	}
}

func TestKnowledgeGraph(t *testing.T) {
	t.Parallel()
	f := seed(t)
	srv := serve(t, f)
	var subjects struct {
		Stats    struct{ Active, Total, Subjects int }
		Subjects []struct {
			Subject       string
			Active, Total int
		}
	}
	call(t, srv, "GET", "/hub/api/palaces/alpha/kg", "", &subjects)
	if subjects.Stats.Active != 3 || subjects.Stats.Total != 4 || len(subjects.Subjects) != 2 {
		t.Fatalf("kg = %+v", subjects)
	}
	if s := subjects.Subjects[1]; s.Subject != "loci" || s.Active != 2 || s.Total != 3 {
		t.Errorf("loci summary = %+v", s)
	}
	var subj struct {
		Active, History []struct {
			Predicate, Object string
			ValidTo           *string `json:"valid_to"`
		}
	}
	call(t, srv, "GET", "/hub/api/palaces/alpha/kg/subject?s=loci", "", &subj)
	if len(subj.Active) != 2 || subj.Active[0].Object != "Apache-2.0" || len(subj.History) != 3 {
		t.Fatalf("loci = %+v", subj)
	}
	if subj.History[1].Object != "MIT" || subj.History[1].ValidTo == nil {
		t.Errorf("history = %+v; want MIT closed", subj.History)
	}
	if code := call(t, srv, "GET", "/hub/api/palaces/alpha/kg/subject?s=", "", nil); code != 400 {
		t.Errorf("empty subject: status %d", code)
	}
}

func TestPageAndAssets(t *testing.T) {
	t.Parallel()
	f := seed(t)
	srv := serve(t, f)
	res, err := srv.Client().Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, res)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(body, "Memory Hub") || !strings.Contains(body, "loci test") {
		t.Fatalf("page: %d %s\n%.300s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP = %q", csp)
	}
	for path, want := range map[string]int{
		"/hub/assets/hub.js":     200,
		"/hub/assets/js/api.js":  200,
		"/hub/assets/hub.css":    200,
		"/hub/assets/index.html": 404,
		"/hub/assets/nope.js":    404,
		"/elsewhere":             404,
	} {
		if code := call(t, srv, "GET", path, "", nil); code != want {
			t.Errorf("GET %s: status %d, want %d", path, code, want)
		}
	}
	var e struct{ Error struct{ Code string } }
	if code := call(t, srv, "GET", "/hub/api/nope", "", &e); code != 404 || e.Error.Code != "not_found" {
		t.Errorf("unknown API route: %d %+v", code, e)
	}
	// No asset refers to another origin: no CDN, no fonts from the web.
	fsys := hub.Assets()
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(fsys, p)
		for _, s := range []string{"http://", "https://", "//cdn", "@import"} {
			if strings.Contains(string(b), s) {
				t.Errorf("asset %s contains %q", p, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{"/": true, "/hub/assets/hub.js": true, "/hub/api/overview": false, "/health": false, "/hub/": false} {
		if got := hub.IsPublicPath(path); got != want {
			t.Errorf("IsPublicPath(%q) = %v", path, got)
		}
	}
}

func TestCrossSiteRefused(t *testing.T) {
	t.Parallel()
	f := seed(t)
	srv := serve(t, f)
	req, _ := http.NewRequest("POST", srv.URL+"/hub/api/palaces/alpha/review/"+f.pending.ID+"/approve", nil)
	req.Header.Set(hub.MutationHeader, "1")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site approve: status %d", res.StatusCode)
	}
	if fact, _ := facts.Of(f.alpha).Get(context.Background(), f.pending.ID); fact.Status != palace.StatusPending {
		t.Errorf("refused approve moved the fact to %s", fact.Status)
	}
}

func readAll(t testing.TB, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
