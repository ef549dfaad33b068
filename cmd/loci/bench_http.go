package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
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

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/session"
	"github.com/loci-mem/loci/server"
	"github.com/rs/zerolog"
)

func init() {
	benchmarks["http"] = benchmark{"concurrent /search clients and an /add writer against the HTTP companion on loopback", benchHTTP}
}

// benchHTTP is `loci bench http`: it seeds a palace with synthetic
// episodes (straight through the palace API, to keep set-up short), starts
// the HTTP companion on a loopback port in this process, then runs
// --clients goroutines calling POST /api/v1/memory/search for --duration
// while one writer calls POST /api/v1/memory/add (and /flush every
// --flush-every messages). It reports throughput, latency percentiles and
// errors, then flushes the writer's sessions and checks that every
// message it sent is in an episode: nothing lost.
func benchHTTP(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("bench http", flag.ContinueOnError)
	var common commonFlags
	fs.StringVar(&common.format, "format", "auto", "output format: auto, text, json or yaml")
	dataDir := fs.String("data-dir", "", "data directory to use (default: a temporary one, removed afterwards)")
	episodes := fs.Int("episodes", 10000, "episodes in the palace searched")
	clients := fs.Int("clients", 50, "concurrent /search clients")
	duration := fs.Duration("duration", 30*time.Second, "how long the clients search")
	writer := fs.Bool("writer", true, "run one /add writer during the search load")
	flushEvery := fs.Int("flush-every", 20, "writer: messages per session before /flush")
	topK := fs.Int("top-k", 10, "top_k of each search")
	method := fs.String("method", "hybrid", "search method: keyword, vector, hybrid or agentic")
	if _, err := parseFlags(env, fs, args); err != nil {
		return nil, err
	}
	if *episodes < 1 || *clients < 1 || *duration <= 0 || *flushEvery < 1 {
		return nil, invalidArgs("--episodes, --clients, --duration and --flush-every must be positive", "")
	}
	dir := *dataDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "loci-bench-*")
		if err != nil {
			return nil, &cliError{Type: "io", Message: err.Error()}
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	log := newLogger(env.stderr)
	reg, err := openRegistry(dir, zerolog.Nop(), nil)
	if err != nil {
		return nil, &cliError{Type: "io", Message: err.Error()}
	}
	defer reg.Close()
	p, err := reg.OpenOrCreate(ctx, "default")
	if err != nil {
		return nil, err
	}
	seedStart := time.Now()
	seeded, err := seedEpisodes(ctx, p, *episodes)
	if err != nil {
		return nil, err
	}
	statusf(env, "loci bench http: palace has %d episodes (seeding took %v)", seeded, time.Since(seedStart).Round(time.Millisecond))

	srv, err := server.New(server.Config{Registry: reg, Version: version, Logger: log})
	if err != nil {
		return nil, err
	}
	hs, err := server.NewHTTP(server.HTTPConfig{Server: srv, Addr: "127.0.0.1:0", Logger: log})
	if err != nil {
		return nil, err
	}
	ln, err := hs.Listen()
	if err != nil {
		return nil, &cliError{Type: "io", Message: err.Error()}
	}
	sctx, stopServer := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(sctx, ln) }()
	defer func() { stopServer(); <-served }()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		MaxIdleConns: *clients + 8, MaxIdleConnsPerHost: *clients + 8, IdleConnTimeout: time.Minute}}

	// Warm up: load the vector index before timing.
	if _, err := benchPost(client, base+"/api/v1/memory/search", fmt.Sprintf(`{"user_id":"bench-user","query":"warm up","top_k":%d}`, *topK)); err != nil {
		return nil, &cliError{Type: "internal", Message: "warm-up search failed: " + err.Error()}
	}
	statusf(env, "loci bench http: %d clients searching for %v on %s (GOMAXPROCS %d)", *clients, *duration, base, runtime.GOMAXPROCS(0))
	log.Info().Int("clients", *clients).Str("duration", duration.String()).Msg("bench clients searching")

	if prof := os.Getenv("LOCI_BENCH_PROFILE"); prof != "" {
		stop, err := startProfiles(prof)
		if err != nil {
			return nil, &cliError{Type: "io", Message: err.Error()}
		}
		defer stop()
	}
	runCtx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()
	var wg sync.WaitGroup
	lat := make([][]time.Duration, *clients)
	var searchErrs atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			for runCtx.Err() == nil {
				q := benchQuery(rng)
				t0 := time.Now()
				_, err := benchPost(client, base+"/api/v1/memory/search",
					fmt.Sprintf(`{"user_id":"bench-user","query":%q,"top_k":%d,"method":%q}`, q, *topK, *method))
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
	w := &benchWriter{client: client, base: base, flushEvery: *flushEvery}
	if *writer {
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
	data := map[string]any{
		"episodes":         seeded,
		"clients":          *clients,
		"method":           *method,
		"top_k":            *topK,
		"gomaxprocs":       runtime.GOMAXPROCS(0),
		"duration_s":       round3(elapsed.Seconds()),
		"searches":         len(all),
		"searches_per_s":   round3(float64(len(all)) / elapsed.Seconds()),
		"search_p50_ms":    pct(all, 50),
		"search_p90_ms":    pct(all, 90),
		"search_p99_ms":    pct(all, 99),
		"search_max_ms":    pct(all, 100),
		"search_errors":    searchErrs.Load(),
		"adds":             w.adds,
		"messages_written": w.sent,
		"flushes":          w.flushes,
		"add_p50_ms":       pct(w.sortedLat(), 50),
		"add_p99_ms":       pct(w.sortedLat(), 99),
		"write_errors":     w.errs,
		"messages_lost":    lost,
	}
	if e := firstErr.Load(); e != nil {
		data["first_error"] = e
	}
	if w.firstErr != "" {
		data["first_write_error"] = w.firstErr
	}
	if checkErr != nil {
		return nil, &cliError{Type: "internal", Message: "verify writes: " + checkErr.Error()}
	}
	return &result{data: data, text: func(out io.Writer) {
		fmt.Fprintf(out, "loci bench http: %d episodes, %d clients, method %s, top_k %d, GOMAXPROCS %d, %.1fs\n",
			seeded, *clients, *method, *topK, runtime.GOMAXPROCS(0), elapsed.Seconds())
		fmt.Fprintf(out, "  /search: %d requests, %.1f req/s, p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms, %d errors\n",
			len(all), float64(len(all))/elapsed.Seconds(), pct(all, 50), pct(all, 90), pct(all, 99), pct(all, 100), searchErrs.Load())
		fmt.Fprintf(out, "  /add:    %d requests (%d messages, %d flushes), p50 %.2f ms, p99 %.2f ms, %d errors\n",
			w.adds, w.sent, w.flushes, pct(w.sortedLat(), 50), pct(w.sortedLat(), 99), w.errs)
		fmt.Fprintf(out, "  lost messages: %d\n", lost)
	}}, nil
}

// startProfiles writes CPU, block and mutex profiles to prefix.{cpu,block,mutex}
// (LOCI_BENCH_PROFILE=prefix), for `go tool pprof`.
func startProfiles(prefix string) (func(), error) {
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
		for _, name := range []string{"block", "mutex"} {
			if out, err := os.Create(prefix + "." + name); err == nil {
				pprof.Lookup(name).WriteTo(out, 0)
				out.Close()
			}
		}
	}, nil
}

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

func benchPost(c *http.Client, url, body string) ([]byte, error) {
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

// benchWriter calls /add with one uniquely tagged message per request.
type benchWriter struct {
	client     *http.Client
	base       string
	flushEvery int

	adds, sent, flushes, errs int
	lat                       []time.Duration
	firstErr                  string
	sessions                  []string
	inSession                 int
}

func (w *benchWriter) session() string {
	if len(w.sessions) == 0 || w.inSession >= w.flushEvery {
		if len(w.sessions) > 0 {
			w.flush(w.sessions[len(w.sessions)-1])
		}
		w.sessions = append(w.sessions, fmt.Sprintf("bench-writer-%d", len(w.sessions)))
		w.inSession = 0
	}
	return w.sessions[len(w.sessions)-1]
}

func (w *benchWriter) flush(session string) {
	if _, err := benchPost(w.client, w.base+"/api/v1/memory/flush", fmt.Sprintf(`{"session_id":%q}`, session)); err != nil {
		w.fail(err)
		return
	}
	w.flushes++
}

func (w *benchWriter) fail(err error) {
	w.errs++
	if w.firstErr == "" {
		w.firstErr = err.Error()
	}
}

func (w *benchWriter) run(ctx context.Context) {
	for ctx.Err() == nil {
		s := w.session()
		n := w.sent
		body := fmt.Sprintf(`{"session_id":%q,"messages":[{"sender_id":"bench-writer","role":"user","timestamp":%d,"content":"Benchmark note benchmsg%06d: I tested the queue worker today."}]}`,
			s, time.Now().UnixMilli(), n)
		t0 := time.Now()
		if _, err := benchPost(w.client, w.base+"/api/v1/memory/add", body); err != nil {
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
func (w *benchWriter) finish() {
	if len(w.sessions) > 0 {
		w.flush(w.sessions[len(w.sessions)-1])
	}
}

func (w *benchWriter) sortedLat() []time.Duration {
	out := append([]time.Duration(nil), w.lat...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// verify counts the messages the writer sent that are in no episode and
// no buffer.
func (w *benchWriter) verify(ctx context.Context, p *palace.Palace) (int, error) {
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

func benchQuery(rng *rand.Rand) string {
	if rng.IntN(2) == 0 {
		return benchQueries[rng.IntN(len(benchQueries))]
	}
	return benchSubjects[rng.IntN(len(benchSubjects))] + " " + benchSubjects[rng.IntN(len(benchSubjects))]
}

// seedEpisodes tops the palace up to n episodes of "bench-user".
func seedEpisodes(ctx context.Context, p *palace.Palace, n int) (int, error) {
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
