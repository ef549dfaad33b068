// Package loadbench holds loci's load benchmarks: `loci bench http` seeds
// a palace with synthetic episodes, serves it over the HTTP companion on a
// loopback port, and drives concurrent /search clients with one /add
// writer, then checks that no written message was lost. cmd/loci/bench.go
// is its command line.
package loadbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/session"
	"github.com/loci-mem/loci/server"
)

// HTTPConfig configures RunHTTP.
type HTTPConfig struct {
	Registry *palace.Registry // the palaces; RunHTTP uses (and seeds) "default"
	Version  string
	Logger   zerolog.Logger
	// Status, when set, is told what the run is doing (seeding, searching).
	Status func(format string, a ...any)
	// Profile, when set, writes CPU, block, mutex and allocation profiles
	// to Profile.{cpu,block,mutex,allocs}.
	Profile string

	Episodes   int           // episodes in the palace searched
	Clients    int           // concurrent /search clients
	Duration   time.Duration // how long the clients search
	Writer     bool          // run one /add writer during the load
	FlushEvery int           // writer: messages per session before /flush
	TopK       int
	Method     string // keyword, vector, hybrid or agentic
}

// HTTPResult is what RunHTTP measured.
type HTTPResult struct {
	Episodes        int     `json:"episodes"`
	Clients         int     `json:"clients"`
	Method          string  `json:"method"`
	TopK            int     `json:"top_k"`
	GOMAXPROCS      int     `json:"gomaxprocs"`
	DurationS       float64 `json:"duration_s"`
	Searches        int     `json:"searches"`
	SearchesPerS    float64 `json:"searches_per_s"`
	SearchP50       float64 `json:"search_p50_ms"`
	SearchP90       float64 `json:"search_p90_ms"`
	SearchP99       float64 `json:"search_p99_ms"`
	SearchMax       float64 `json:"search_max_ms"`
	SearchErrors    int64   `json:"search_errors"`
	Adds            int     `json:"adds"`
	MessagesWritten int     `json:"messages_written"`
	Flushes         int     `json:"flushes"`
	AddP50          float64 `json:"add_p50_ms"`
	AddP99          float64 `json:"add_p99_ms"`
	WriteErrors     int     `json:"write_errors"`
	MessagesLost    int     `json:"messages_lost"`
	FirstError      string  `json:"first_error,omitempty"`
	FirstWriteError string  `json:"first_write_error,omitempty"`
}

// RunHTTP runs the HTTP load benchmark. A ctx cancelled during the load
// ends it early with the figures so far (the caller says they are partial).
func RunHTTP(ctx context.Context, cfg HTTPConfig) (*HTTPResult, error) {
	status := cfg.Status
	if status == nil {
		status = func(string, ...any) {}
	}
	log := cfg.Logger
	reg := cfg.Registry
	p, err := reg.OpenOrCreate(ctx, "default")
	if err != nil {
		return nil, err
	}
	seedStart := time.Now()
	seeded, err := SeedEpisodes(ctx, p, cfg.Episodes)
	if err != nil {
		return nil, err
	}
	status("loci bench http: palace has %d episodes (seeding took %v)", seeded, time.Since(seedStart).Round(time.Millisecond))

	srv, err := server.New(server.Config{Registry: reg, Version: cfg.Version, Logger: log})
	if err != nil {
		return nil, err
	}
	hs, err := server.NewHTTP(server.HTTPConfig{Server: srv, Addr: "127.0.0.1:0", Logger: log})
	if err != nil {
		return nil, err
	}
	ln, err := hs.Listen()
	if err != nil {
		return nil, err
	}
	sctx, stopServer := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(sctx, ln) }()
	defer func() { stopServer(); <-served }()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		MaxIdleConns: cfg.Clients + 8, MaxIdleConnsPerHost: cfg.Clients + 8, IdleConnTimeout: time.Minute}}

	// Warm up: load the vector index before timing.
	if _, err := post(client, base+"/api/v1/memory/search", fmt.Sprintf(`{"user_id":"bench-user","query":"warm up","top_k":%d}`, cfg.TopK)); err != nil {
		return nil, fmt.Errorf("warm-up search failed: %w", err)
	}
	status("loci bench http: %d clients searching for %v on %s (GOMAXPROCS %d)", cfg.Clients, cfg.Duration, base, runtime.GOMAXPROCS(0))
	log.Info().Int("clients", cfg.Clients).Str("duration", cfg.Duration.String()).Msg("bench clients searching")

	if cfg.Profile != "" {
		stop, err := StartProfiles(cfg.Profile)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	var wg sync.WaitGroup
	lat := make([][]time.Duration, cfg.Clients)
	var searchErrs atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	for c := range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			for runCtx.Err() == nil {
				q := query(rng)
				t0 := time.Now()
				_, err := post(client, base+"/api/v1/memory/search",
					fmt.Sprintf(`{"user_id":"bench-user","query":%q,"top_k":%d,"method":%q}`, q, cfg.TopK, cfg.Method))
				if err != nil {
					if runCtx.Err() != nil {
						return
					}
					searchErrs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		}()
	}
	w := &writer{client: client, base: base, flushEvery: cfg.FlushEvery}
	if cfg.Writer {
		wg.Add(1)
		go func() { defer wg.Done(); w.run(runCtx) }()
	}
	wg.Wait()
	elapsed := time.Since(start)
	w.finish()

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	lost, checkErr := w.verify(context.Background(), p)
	r := &HTTPResult{Episodes: seeded, Clients: cfg.Clients, Method: cfg.Method, TopK: cfg.TopK, GOMAXPROCS: runtime.GOMAXPROCS(0),
		DurationS: round3(elapsed.Seconds()), Searches: len(all), SearchesPerS: round3(float64(len(all)) / elapsed.Seconds()),
		SearchP50: pct(all, 50), SearchP90: pct(all, 90), SearchP99: pct(all, 99), SearchMax: pct(all, 100),
		SearchErrors: searchErrs.Load(), Adds: w.adds, MessagesWritten: w.sent, Flushes: w.flushes,
		AddP50: pct(w.sortedLat(), 50), AddP99: pct(w.sortedLat(), 99), WriteErrors: w.errs, MessagesLost: lost,
		FirstWriteError: w.firstErr}
	if e, ok := firstErr.Load().(string); ok {
		r.FirstError = e
	}
	if checkErr != nil {
		return nil, fmt.Errorf("verify writes: %w", checkErr)
	}
	return r, nil
}

// WriteText writes the figures for a person.
func (r *HTTPResult) WriteText(out io.Writer) {
	fmt.Fprintf(out, "loci bench http: %d episodes, %d clients, method %s, top_k %d, GOMAXPROCS %d, %.1fs\n",
		r.Episodes, r.Clients, r.Method, r.TopK, r.GOMAXPROCS, r.DurationS)
	fmt.Fprintf(out, "  /search: %d requests, %.1f req/s, p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms, %d errors\n",
		r.Searches, r.SearchesPerS, r.SearchP50, r.SearchP90, r.SearchP99, r.SearchMax, r.SearchErrors)
	fmt.Fprintf(out, "  /add:    %d requests (%d messages, %d flushes), p50 %.2f ms, p99 %.2f ms, %d errors\n",
		r.Adds, r.MessagesWritten, r.Flushes, r.AddP50, r.AddP99, r.WriteErrors)
	fmt.Fprintf(out, "  lost messages: %d\n", r.MessagesLost)
}

// StartProfiles writes CPU, block, mutex and allocation profiles to
// prefix.{cpu,block,mutex,allocs} until the returned func is called, for
// `go tool pprof` (LOCI_BENCH_PROFILE and LOCI_PROFILE; allocs counts
// every allocation since the process started).
func StartProfiles(prefix string) (func(), error) {
	f, err := os.Create(prefix + ".cpu")
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	runtime.SetBlockProfileRate(int(time.Millisecond))
	runtime.SetMutexProfileFraction(5)
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		for _, name := range []string{"block", "mutex", "allocs"} {
			if out, err := os.Create(prefix + "." + name); err == nil {
				pprof.Lookup(name).WriteTo(out, 0)
				out.Close()
			}
		}
	}, nil
}

// round3 rounds to three decimals.
func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// pct is the p-th percentile in milliseconds (nearest rank).
func pct(sorted []time.Duration, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	i = max(1, min(i, len(sorted)))
	return round3(float64(sorted[i-1].Microseconds()) / 1000)
}

func post(c *http.Client, url, body string) ([]byte, error) {
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(raw))
	}
	return raw, nil
}

// writer calls /add with one uniquely tagged message per request.
type writer struct {
	client     *http.Client
	base       string
	flushEvery int

	adds, sent, flushes, errs int
	lat                       []time.Duration
	firstErr                  string
	sessions                  []string
	inSession                 int
}

func (w *writer) session() string {
	if len(w.sessions) == 0 || w.inSession >= w.flushEvery {
		if len(w.sessions) > 0 {
			w.flush(w.sessions[len(w.sessions)-1])
		}
		w.sessions = append(w.sessions, fmt.Sprintf("bench-writer-%d", len(w.sessions)))
		w.inSession = 0
	}
	return w.sessions[len(w.sessions)-1]
}

func (w *writer) flush(session string) {
	if _, err := post(w.client, w.base+"/api/v1/memory/flush", fmt.Sprintf(`{"session_id":%q}`, session)); err != nil {
		w.fail(err)
		return
	}
	w.flushes++
}

func (w *writer) fail(err error) {
	w.errs++
	if w.firstErr == "" {
		w.firstErr = err.Error()
	}
}

func (w *writer) run(ctx context.Context) {
	for ctx.Err() == nil {
		s := w.session()
		n := w.sent
		body := fmt.Sprintf(`{"session_id":%q,"messages":[{"sender_id":"bench-writer","role":"user","timestamp":%d,"content":"Benchmark note benchmsg%06d: I tested the queue worker today."}]}`,
			s, time.Now().UnixMilli(), n)
		t0 := time.Now()
		if _, err := post(w.client, w.base+"/api/v1/memory/add", body); err != nil {
			w.fail(err)
			continue
		}
		w.lat = append(w.lat, time.Since(t0))
		w.adds++
		w.sent++
		w.inSession++
	}
}

// finish flushes the last session.
func (w *writer) finish() {
	if len(w.sessions) > 0 {
		w.flush(w.sessions[len(w.sessions)-1])
	}
}

func (w *writer) sortedLat() []time.Duration {
	out := append([]time.Duration(nil), w.lat...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// verify counts the messages the writer sent that are in no episode and
// no buffer.
func (w *writer) verify(ctx context.Context, p *palace.Palace) (int, error) {
	found := make(map[string]bool, w.sent)
	for offset := 0; ; offset += 1000 {
		ds, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{Kinds: []string{palace.KindEpisode}, UserID: "bench-writer"},
			Order: "seq", Limit: 1000, Offset: offset})
		if err != nil {
			return 0, err
		}
		for _, d := range ds {
			for _, f := range strings.Fields(d.Content) {
				if i := strings.Index(f, "benchmsg"); i >= 0 && len(f) >= i+14 {
					found[f[i:i+14]] = true
				}
			}
		}
		if len(ds) < 1000 {
			break
		}
	}
	for _, s := range w.sessions {
		msgs, err := session.Of(p).Messages(ctx, s)
		if err != nil && !errors.Is(err, palace.ErrInvalid) {
			return 0, err
		}
		for _, m := range msgs {
			if i := strings.Index(m.Text, "benchmsg"); i >= 0 && len(m.Text) >= i+14 {
				found[m.Text[i:i+14]] = true
			}
		}
	}
	lost := 0
	for n := range w.sent {
		if !found[fmt.Sprintf("benchmsg%06d", n)] {
			lost++
		}
	}
	return lost, nil
}

// Synthetic corpus: sentences built from a fixed vocabulary, so searches
// hit a realistic mix of matching and non-matching episodes.
var (
	benchSubjects = strings.Fields("deploy release database backup migration cache queue worker invoice budget meeting " +
		"roadmap incident outage latency dashboard alert ticket customer onboarding training hiring laptop printer vpn " +
		"kubernetes postgres redis kafka terraform docker nginx grafana sentry stripe billing refund contract design review")
	benchVerbs   = strings.Fields("fixed planned discussed reviewed broke upgraded tested documented scheduled postponed measured debugged")
	benchPlaces  = strings.Fields("Lisbon Berlin Tokyo Austin Nairobi Oslo Toronto Madrid Seoul Lima")
	benchPeople  = strings.Fields("alice bob carol dave erin frank grace heidi ivan judy")
	benchQueries = []string{"when did we fix the database migration", "postgres backup schedule", "kubernetes outage latency",
		"who reviewed the design", "stripe refund invoice", "vpn laptop problem", "release planning roadmap", "kafka queue worker",
		"grafana alert dashboard", "hiring onboarding training", "terraform docker nginx", "customer ticket incident"}
)

func query(rng *rand.Rand) string {
	if rng.IntN(2) == 0 {
		return benchQueries[rng.IntN(len(benchQueries))]
	}
	return benchSubjects[rng.IntN(len(benchSubjects))] + " " + benchSubjects[rng.IntN(len(benchSubjects))]
}

// SeedEpisodes tops the palace up to n episodes of "bench-user".
func SeedEpisodes(ctx context.Context, p *palace.Palace, n int) (int, error) {
	have, err := p.Count(ctx, palace.Filter{Kinds: []string{palace.KindEpisode}, UserID: "bench-user"})
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(42, 42))
	day := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	const batch = 500
	for i := int(have); i < n; i += batch {
		k := min(batch, n-i)
		ids, err := session.Of(p).AllocIDs(ctx, "bench-user", "ep", day, k)
		if err != nil {
			return 0, err
		}
		ds := make([]*palace.Drawer, k)
		for j := range k {
			who := benchPeople[rng.IntN(len(benchPeople))]
			subj := benchSubjects[rng.IntN(len(benchSubjects))]
			text := fmt.Sprintf("On %s, %s %s the %s %s in %s with %s. They noted the %s and the %s.",
				day.AddDate(0, 0, (i+j)%700).Format("January 2, 2006"), who, benchVerbs[rng.IntN(len(benchVerbs))], subj,
				benchSubjects[rng.IntN(len(benchSubjects))], benchPlaces[rng.IntN(len(benchPlaces))],
				benchPeople[rng.IntN(len(benchPeople))], benchSubjects[rng.IntN(len(benchSubjects))], benchSubjects[rng.IntN(len(benchSubjects))])
			ds[j] = &palace.Drawer{ID: ids[j], Kind: palace.KindEpisode, Content: text, UserID: "bench-user",
				SessionID: fmt.Sprintf("seed-%d", (i+j)/10), SenderIDs: []string{who}, Timestamp: day.AddDate(0, 0, (i+j)%700),
				Meta: map[string]any{"subject": subj, "summary": text, "type": session.EpisodeType, "parent_type": "memcell"}}
		}
		if err := p.AddMany(ctx, ds); err != nil {
			return 0, err
		}
	}
	return max(int(have), n), nil
}
