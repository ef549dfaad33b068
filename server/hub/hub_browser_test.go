package hub_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/server/hub"
)

// The Memory Hub in a real browser: headless Chromium driven over the
// DevTools protocol (chromedp, no Node), against the seeded fixture.
// It runs in `make test`; -short skips it. Without Chromium it skips, or
// fails when $CI is set so that CI cannot pass without running it.
// Screenshots go to testdata/artifacts/hub/ at the module root.

// chromium finds the browser: $LOCI_CHROMIUM, else the usual names.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("LOCI_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "Chromium not found: install it (Debian: apt-get install -y chromium) or set LOCI_CHROMIUM"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// artifactDir is testdata/artifacts/hub under the module root (git-ignored).
func artifactDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("module root not found")
		}
		dir = parent
	}
	out := filepath.Join(dir, "testdata", "artifacts", "hub")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

// browser drives one tab and fails the test with a screenshot when a step
// does not complete in time.
type browser struct {
	t   *testing.T
	ctx context.Context
	art string
}

func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.shot("failure", false)
		b.t.Fatalf("%s: %v", what, err)
	}
}

// until waits for a JavaScript expression to become truthy.
func (b *browser) until(what, js string) {
	b.t.Helper()
	b.do(what, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(50*time.Millisecond),
		chromedp.WithPollingTimeout(10*time.Second)))
}

func eval[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// shot saves a PNG of the whole page (full) or of what the viewport shows.
func (b *browser) shot(name string, full bool) {
	capture := chromedp.CaptureScreenshot()
	if full {
		capture = chromedp.FullScreenshot(100)
	}
	buf, err := chromedp.Run(b.ctx, capture)
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(b.art, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}

// storeMemories counts active drawers through the palace API.
func storeMemories(t *testing.T, f *fixture) int64 {
	t.Helper()
	var n int64
	for _, p := range []*palace.Palace{f.alpha, f.beta} {
		in, err := p.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n += in.DrawerCount
	}
	return n
}

func TestHubInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test; run without -short")
	}
	exe := chromium(t)
	f := seed(t)
	srv := serve(t, f)

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		// Without these Chromium keeps calling home, which a closed
		// network turns into retries and noise.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter"),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.Env("TZ=UTC", "LANG=en_US.UTF-8"),
	)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	defer cancelTab()
	start, cancelStart := context.WithTimeout(ctx, 30*time.Second)
	defer cancelStart()
	if err := chromedp.Do(start); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("start %s: %v", exe, err)
	}
	b := &browser{t: t, ctx: ctx, art: artifactDir(t)}

	// Collect what the page writes to the console; errors fail the test.
	var mu sync.Mutex
	var console []string
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				mu.Lock()
				console = append(console, m.String())
				mu.Unlock()
			}
		}
	}()

	b.do("open the hub", chromedp.Navigate(srv.URL+"/"))
	b.until("first load and live stream", `Number(document.body.dataset.refreshes) >= 1 &&
		document.querySelector('#live-status').dataset.state === 'live'`)

	t.Run("stats match the store", func(t *testing.T) {
		b := &browser{t: t, ctx: ctx, art: b.art}
		stats := eval[map[string]string](b, `Object.fromEntries([...document.querySelectorAll('.stat')]
			.map(s => [s.dataset.stat, s.querySelector('.value').textContent]))`)
		mem := storeMemories(t, f)
		want := map[string]float64{
			"memories":       float64(mem),
			"palaces":        2,
			"active_days":    float64(f.activeDays),
			"avg_per_day":    round1(float64(mem) / float64(f.activeDays)),
			"avg_per_palace": round1(float64(mem) / 2),
		}
		for k, w := range want {
			got, err := strconv.ParseFloat(strings.ReplaceAll(stats[k], ",", ""), 64)
			if err != nil || got != w {
				t.Errorf("stat %s shows %q, want %v", k, stats[k], w)
			}
		}
		cells := eval[[]int64](b, `[...document.querySelectorAll('#heatmap i[data-count]')].map(i => Number(i.dataset.count))`)
		week := eval[[]int64](b, `[...document.querySelectorAll('#week [data-count]')].map(i => Number(i.dataset.count))`)
		if len(cells) != 182 || sum(cells) != f.lastSixMonth {
			t.Errorf("heatmap: %d cells summing to %d; want 182 summing to %d", len(cells), sum(cells), f.lastSixMonth)
		}
		if len(week) != 7 || sum(week) != f.lastWeek {
			t.Errorf("week chart: %d bars summing to %d; want 7 summing to %d", len(week), sum(week), f.lastWeek)
		}
	})

	// Each head is clicked through the DOM too: the list may render again
	// between the browser finding a head and pressing it, and the node it
	// found is then gone ("Could not find node with given id").
	b.do("open both palaces",
		chromedp.WaitVisible(chromedp.CSS(`.palace[data-palace="alpha"] .palace-head`)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('.palace[data-palace="alpha"] .palace-head').click()`),
		chromedp.WaitVisible(chromedp.CSS(`.palace[data-palace="alpha"] .timeline li.mem`)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('.palace[data-palace="beta"] .palace-head').click()`),
		chromedp.WaitVisible(chromedp.CSS(`.palace[data-palace="beta"] .timeline button.more`)))
	more := eval[string](b, `document.querySelector('.palace[data-palace="beta"] button.more').textContent`)
	if more != "Load more (9 remaining)" {
		t.Errorf("load-more button says %q", more)
	}
	// Clicked through the DOM, not at coordinates: the palaces above are
	// still rendering, and a layout shift between measuring the button and
	// pressing the mouse once opened a memory of alpha instead.
	b.do("load more", chromedp.Evaluate[chromedp.Void](`document.querySelector('.palace[data-palace="beta"] button.more').click()`))
	b.until("all of beta", `document.querySelectorAll('.palace[data-palace="beta"] li.mem').length === 29 &&
		!document.querySelector('.palace[data-palace="beta"] button.more')`)
	b.do("scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	b.shot("hub-desktop", true)

	t.Run("search finds a known memory", func(t *testing.T) {
		b := &browser{t: t, ctx: ctx, art: b.art}
		b.do("search",
			chromedp.SetValue(chromedp.ID("search-q"), "aurora mirror rollout"),
			chromedp.Click(chromedp.CSS(`#search-form button[type=submit]`)))
		b.until("a hit", `!!document.querySelector('#search-results li.hit')`)
		first := eval[map[string]string](b, `(() => { const li = document.querySelector('#search-results li.hit');
			return { id: li.dataset.id, palace: li.dataset.palace, text: li.querySelector('.text').textContent,
				marks: String(li.querySelectorAll('mark').length) }; })()`)
		if first["id"] != f.known.ID || first["palace"] != "alpha" || first["text"] != KnownPhrase {
			t.Errorf("first hit = %v; want %s in alpha", first, f.known.ID)
		}
		if first["marks"] == "0" {
			t.Error("the query's words are not highlighted")
		}
	})

	t.Run("approving a pending fact moves it", func(t *testing.T) {
		b := &browser{t: t, ctx: ctx, art: b.art}
		item := fmt.Sprintf(`#review-list li.review-item[data-id="%s"]`, f.pending.ID)
		b.do("approve",
			chromedp.WaitVisible(chromedp.CSS(item)),
			chromedp.Click(chromedp.CSS(item+` button[data-action="approve"]`)),
			chromedp.WaitNotPresent(chromedp.CSS(item)))
		b.until("undo offered", `!document.querySelector('#toast').hidden &&
			document.querySelector('#toast .toast-text').textContent.startsWith('Approved')`)
		fact, err := facts.Of(f.alpha).Get(context.Background(), f.pending.ID)
		if err != nil || fact.Status != palace.StatusActive {
			t.Fatalf("store says %s (%v), want active", fact.Status, err)
		}
		b.until("queue count and stats follow", fmt.Sprintf(`document.querySelector('#review-count').textContent === '0' &&
			document.querySelector('.stat[data-stat="memories"] .value').textContent === '%d'`, storeMemories(t, f)))
	})

	var live *palace.Drawer
	t.Run("a live event appears", func(t *testing.T) {
		b := &browser{t: t, ctx: ctx, art: b.art}
		live = &palace.Drawer{Content: "Written by another process while the hub is open"}
		if err := f.alpha.Add(context.Background(), live); err != nil {
			t.Fatal(err)
		}
		b.until("feed, timeline and stats", fmt.Sprintf(`!!document.querySelector('#live-feed li[data-id="%s"]') &&
			!!document.querySelector('.palace[data-palace="alpha"] li.mem[data-id="%s"]') &&
			document.querySelector('.stat[data-stat="memories"] .value').textContent === '%d'`,
			live.ID, live.ID, storeMemories(t, f)))
	})

	// A refresh that a live change starts and "Load more" clicked while it
	// is on its way: whichever answer comes last, the timeline ends with
	// every memory and no button. (The refresh's answer is held back, so
	// it lands after "Load more"'s unless loads of a palace wait for each
	// other; it once put the first page back over the loaded ones.)
	t.Run("a refresh racing load more keeps every memory", func(t *testing.T) {
		b := &browser{t: t, ctx: ctx, art: b.art}
		beta := `.palace[data-palace="beta"]`
		head := chromedp.Evaluate[chromedp.Void](`document.querySelector('` + beta + ` .palace-head').click()`)
		b.do("reopen beta", head)
		b.until("beta closed", `!document.querySelector('`+beta+`[data-open]')`)
		b.do("open beta", head, chromedp.WaitVisible(chromedp.CSS(beta+` .timeline button.more`)))
		b.do("hold back beta's refreshes", chromedp.Evaluate[chromedp.Void](`
			window.realFetch = window.realFetch || window.fetch;
			window.heldRefresh = false;
			window.fetch = (url, opts) => {
				const p = window.realFetch(url, opts);
				if (!String(url).includes('palaces/beta/drawers?offset=0')) return p;
				window.heldRefresh = true;
				return p.then((r) => new Promise((done) => setTimeout(() => done(r), 1000)));
			};`))
		defer eval[bool](b, `window.fetch = window.realFetch; true`)
		if err := f.beta.Add(context.Background(), &palace.Drawer{Content: "Written while beta's timeline is open"}); err != nil {
			t.Fatal(err)
		}
		b.until("the refresh is on its way", `window.heldRefresh === true`)
		b.do("load more", chromedp.Evaluate[chromedp.Void](`document.querySelector('`+beta+` button.more').click()`))
		b.until("all of beta", `document.querySelectorAll('`+beta+` li.mem').length === 30 &&
			!document.querySelector('`+beta+` button.more')`)
		// Both answers are in: nothing lands later to undo it.
		time.Sleep(1200 * time.Millisecond)
		if n := eval[int](b, `document.querySelectorAll('`+beta+` li.mem').length`); n != 30 {
			t.Fatalf("beta shows %d memories after both answers, want 30", n)
		}
	})

	t.Run("knowledge graph browser", func(t *testing.T) {
		b := &browser{t: t, ctx: ctx, art: b.art}
		b.do("open subject", chromedp.Click(chromedp.CSS(`#kg-subjects button[data-subject="loci"]`)))
		b.until("triples and history", `!!document.querySelector('#kg-subject table.triples') &&
			document.querySelectorAll('#kg-subject .history li').length === 3`)
		got := eval[string](b, `document.querySelector('#kg-subject').textContent`)
		closed := eval[string](b, `document.querySelector('#kg-subject .history li.closed .obj').textContent`)
		if !strings.Contains(got, "Apache-2.0") || closed != "MIT" {
			t.Errorf("subject view %q, closed %q", got, closed)
		}
	})

	t.Run("drawer detail and forget", func(t *testing.T) {
		if live == nil {
			t.Skip("no live drawer")
		}
		b := &browser{t: t, ctx: ctx, art: b.art}
		b.do("open detail",
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`.palace[data-palace="alpha"] li.mem[data-id="%s"]`, live.ID))),
			chromedp.WaitVisible(chromedp.CSS(`#detail-body .content`)))
		if got := eval[string](b, `document.querySelector('#detail-body .content').textContent`); got != live.Content {
			t.Errorf("detail shows %q", got)
		}
		b.shot("hub-detail", false)
		b.do("forget", chromedp.Click(chromedp.ID("detail-forget")))
		b.until("confirmation asked", `document.querySelector('#detail-forget').textContent === 'Confirm forget'`)
		b.do("confirm", chromedp.Click(chromedp.ID("detail-forget")))
		b.until("dialog closed", `!document.querySelector('#detail').open`)
		d, err := f.alpha.Get(context.Background(), live.ID)
		if err != nil || d.Status != palace.StatusDeleted {
			t.Fatalf("store says %v (%v), want deleted", d, err)
		}
		item := fmt.Sprintf(`.palace[data-palace="alpha"] li.mem[data-id="%s"]`, live.ID)
		b.until("gone from the timeline", `!document.querySelector('`+item+`')`)

		// The toast offers Undo; it brings the memory back.
		b.do("undo", chromedp.Click(chromedp.CSS(`#toast .toast-action`)))
		b.until("back in the timeline", `!!document.querySelector('`+item+`')`)
		if d, err := f.alpha.Get(context.Background(), live.ID); err != nil || d.Status != palace.StatusActive {
			t.Fatalf("after undo the store says %v (%v), want active", d, err)
		}
	})

	t.Run("bearer token", func(t *testing.T) {
		// The companion's guard, reduced to its token check: the page shell
		// is public, everything else needs the header.
		const token = "browser-test-token-42"
		var leaked atomic.Bool
		h := hub.Handler(f.reg, hub.Options{Version: "test"})
		guarded := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.String(), token) {
				leaked.Store(true)
			}
			if !hub.IsPublicPath(r.URL.Path) && r.Header.Get("Authorization") != "Bearer "+token {
				http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		}))
		defer guarded.Close()
		tab, closeTab := chromedp.NewContext(ctx)
		defer closeTab()
		// The first action on a context opens its tab for that context's
		// lifetime: run it without a timeout.
		if err := chromedp.Do(tab); err != nil {
			t.Fatalf("open a tab: %v", err)
		}
		b := &browser{t: t, ctx: tab, art: b.art}
		b.do("open the guarded hub", chromedp.Navigate(guarded.URL+"/"))
		b.until("token asked", `document.querySelector('#token-dialog').open`)
		b.shot("hub-token", false)
		b.do("give the token",
			chromedp.SendKeys(chromedp.ID("token-input"), token),
			chromedp.Click(chromedp.CSS(`#token-form button[type=submit]`)))
		b.until("loaded and live", `Number(document.body.dataset.refreshes) >= 1 &&
			document.querySelector('#live-status').dataset.state === 'live'`)
		if got := eval[string](b, `sessionStorage.getItem('loci.hub.token') + ' ' + location.href`); got != token+" "+guarded.URL+"/" {
			t.Errorf("session token and URL: %q", got)
		}
		if leaked.Load() {
			t.Error("a request URL carried the token")
		}
	})

	t.Run("phone width", func(t *testing.T) {
		b := &browser{t: t, ctx: ctx, art: b.art}
		b.do("phone viewport",
			chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
			chromedp.Click(chromedp.CSS(`.palace[data-palace="beta"] .palace-head`)),
			chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		b.until("laid out", `window.innerWidth === 390 && !document.querySelector('.palace[data-palace="beta"][data-open]')`)
		if over := eval[int](b, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
			t.Errorf("page is %dpx wider than a phone screen", over)
		}
		b.shot("hub-phone-top", false)
		for _, id := range []string{"search", "palaces", "review", "graph"} {
			b.do("scroll to "+id, chromedp.Evaluate[chromedp.Void](`document.getElementById('`+id+`').scrollIntoView()`))
			b.shot("hub-phone-"+id, false)
		}
	})

	t.Run("graph opens where the data is; nav at 400 and 1400 px", func(t *testing.T) {
		// beta gets more triples than alpha, and an empty palace appears:
		// a fresh page opens the graph on beta (not on the first name), and
		// the empty palace says where the data is.
		bctx := context.Background()
		for _, obj := range []string{"Lisbon", "Porto", "Faro", "Braga", "Coimbra"} {
			if _, err := f.beta.KG().Assert(bctx, kg.Assertion{Subject: "office-" + obj, Predicate: "located_in", Object: obj}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.reg.OpenOrCreate(bctx, "aaa-empty"); err != nil {
			t.Fatal(err)
		}
		for _, width := range []int64{400, 1400} {
			tab, closeTab := chromedp.NewContext(ctx)
			if err := chromedp.Do(tab); err != nil {
				t.Fatalf("open a tab: %v", err)
			}
			b := &browser{t: t, ctx: tab, art: b.art}
			b.do(fmt.Sprintf("%d px viewport", width), chromedp.EmulateViewport(width, 800), chromedp.Navigate(srv.URL+"/"))
			b.until("loaded", `Number(document.body.dataset.refreshes) >= 1 && document.querySelector('#kg-stats').textContent !== ''`)
			if got := eval[string](b, `document.querySelector('#kg-palace').value`); got != "beta" {
				t.Errorf("%d px: the graph opened on %q, want beta (the palace with the most triples)", width, got)
			}
			// Every section link is on screen, none clipped by the bar.
			hidden := eval[[]string](b, `(() => {
				const nav = document.querySelector('.nav').getBoundingClientRect();
				return [...document.querySelectorAll('.nav a')].filter((a) => {
					const r = a.getBoundingClientRect();
					return r.width === 0 || r.left < Math.max(0, nav.left) - 0.5 || r.right > Math.min(window.innerWidth, nav.right) + 0.5 ||
						r.top < nav.top - 0.5 || r.bottom > nav.bottom + 0.5;
				}).map((a) => a.textContent.trim());
			})()`)
			if len(hidden) > 0 {
				t.Errorf("%d px: nav links out of sight: %v", width, hidden)
			}
			if over := eval[int](b, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
				t.Errorf("%d px: the page is %d px wider than the window", width, over)
			}
			b.shot(fmt.Sprintf("hub-nav-%d", width), false)
			b.do("pick the empty palace", chromedp.Evaluate[chromedp.Void](`(() => {
				const s = document.querySelector('#kg-palace'); s.value = 'aaa-empty'; s.dispatchEvent(new Event('change'));
			})()`))
			b.until("empty message", `!!document.querySelector('#kg-subjects .kg-empty')`)
			msg := eval[string](b, `document.querySelector('#kg-subjects .kg-empty').textContent`)
			if !strings.Contains(msg, "No triples in aaa-empty") || !strings.Contains(msg, "beta (") || !strings.Contains(msg, "alpha (") {
				t.Errorf("%d px: empty graph says %q; want it to name beta and alpha", width, msg)
			}
			closeTab()
		}
	})

	mu.Lock()
	defer mu.Unlock()
	for _, m := range console {
		t.Errorf("browser console: %s", m)
	}
}

func sum(xs []int64) (n int64) {
	for _, x := range xs {
		n += x
	}
	return n
}

func round1(x float64) float64 {
	return float64(int64(x*10+0.5)) / 10
}
