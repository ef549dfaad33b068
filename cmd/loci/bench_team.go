package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/store/postgres"
	"github.com/loci-mem/loci/palace/store/postgres/pgserver"
)

func init() {
	benchmarks["team"] = benchmark{"a team palace on PostgreSQL: two loci http nodes, cross-node visibility, recall against SQLite, load with a writer, cold starts", benchTeam}
}

// teamFigures are the team palace's figures.
type teamFigures struct {
	Drawers  int    `json:"drawers"`
	Embedder string `json:"embedder"`
	Store    string `json:"store"` // "throwaway" or the given URL without its password
	// Copying the SQLite palace into PostgreSQL (loci migrate's copy).
	CopySec float64 `json:"copy_seconds"`
	// memory_recall over MCP-over-HTTP on one node, new queries (each
	// embedded), against the same queries on a loci http over the SQLite
	// palace, measured one after the other.
	RecallP50MS       float64 `json:"recall_p50_ms"`
	RecallP99MS       float64 `json:"recall_p99_ms"`
	SQLiteRecallP50MS float64 `json:"sqlite_recall_p50_ms"`
	SQLiteRecallP99MS float64 `json:"sqlite_recall_p99_ms"`
	RecallRatioP50    float64 `json:"recall_ratio_p50"`
	RecallRatioP99    float64 `json:"recall_ratio_p99"`
	// Writes through one node found by memory_recall on the other.
	VisibilityWrites int     `json:"visibility_writes"`
	VisibilityP50MS  float64 `json:"visibility_p50_ms"`
	VisibilityP99MS  float64 `json:"visibility_p99_ms"`
	// Found by the writing node itself at once (0 misses expected).
	OwnWriteMisses int `json:"own_write_misses"`
	// Two nodes, clients per node calling memory_recall, one writer.
	LoadClientsPerNode int     `json:"load_clients_per_node"`
	LoadSeconds        float64 `json:"load_seconds"`
	LoadSearches       int64   `json:"load_searches"`
	LoadPerSec         float64 `json:"load_searches_per_sec"`
	LoadP50MS          float64 `json:"load_p50_ms"`
	LoadP99MS          float64 `json:"load_p99_ms"`
	LoadErrors         int64   `json:"load_errors"`
	LoadWrites         int     `json:"load_writes_acknowledged"`
	LoadWriteErrors    int64   `json:"load_write_errors"`
	LostWrites         int     `json:"lost_writes"`
	// Process start to the first full-quality recall (both indexes loaded,
	// the graph calibrated): a node with an empty cache rebuilds from the
	// store; one with its snapshots loads them and replays the log.
	ColdNoSnapshotS   float64 `json:"cold_start_no_snapshot_s"`
	ColdWithSnapshotS float64 `json:"cold_start_with_snapshot_s"`
}

// benchTeam is `loci bench team`.
func benchTeam(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fset := flag.NewFlagSet("bench team", flag.ContinueOnError)
	fset.String("format", "auto", "output format: auto, text, json or yaml")
	size := fset.String("drawers", "100k", "palace size (10k, 100k or a plain number)")
	embName := fset.String("embedder", "default", "embedder: default (the built-in encoder) or hash")
	dir := fset.String("dir", "", "directory that keeps the SQLite palace for the next run (shared with `loci bench scale --dir`; default: a temporary one)")
	storeURL := fset.String("store", "", "PostgreSQL to use (default: a throwaway server this command starts and removes)")
	queries := fset.Int("queries", 300, "memory_recall calls timed on each store")
	writes := fset.Int("writes", 100, "writes whose cross-node visibility is timed")
	clients := fset.Int("clients", 50, "concurrent memory_recall clients per node in the load phase")
	duration := fset.Duration("duration", 20*time.Second, "length of the load phase")
	if _, err := parseFlags(env, fset, args); err != nil {
		return nil, err
	}
	ns, err := parseSizes(*size)
	if err != nil || len(ns) != 1 {
		return nil, invalidArgs("--drawers takes one size", "Example: --drawers 100k")
	}
	if *queries < 10 || *writes < 1 || *clients < 1 || *duration <= 0 {
		return nil, invalidArgs("--queries must be at least 10, --writes and --clients at least 1, --duration positive", "")
	}
	if _, err := embedderNamed(embedderEnv(*embName)); err != nil {
		return nil, invalidArgs(err.Error(), "Use --embedder default or --embedder hash")
	}
	n := ns[0]
	home, self, cleanup, err := benchHome(*dir, "loci-team-*")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	f := teamFigures{Drawers: n, Embedder: *embName, Store: "throwaway", LoadClientsPerNode: *clients}
	c := scaleCorpus(env)
	name := fmt.Sprintf("scale-%d-%s", n, *embName)
	os.Setenv("LOCI_EMBEDDER", embedderEnv(*embName))
	if _, _, err := scalePalace(ctx, env, home, name, n, c); err != nil {
		return nil, err
	}

	url := *storeURL
	if url == "" {
		statusf(env, "loci bench team: starting a throwaway PostgreSQL")
		srv, err := pgserver.Start()
		if err != nil {
			return nil, &cliError{Type: "internal", Message: "PostgreSQL: " + err.Error(), Hint: "Install postgresql, or pass --store URL"}
		}
		defer srv.Stop()
		if url, err = srv.CreateDB("loci_bench"); err != nil {
			return nil, &cliError{Type: "internal", Message: err.Error()}
		}
	} else {
		f.Store = postgres.RedactURL(url)
	}
	statusf(env, "loci bench team: copying %s into PostgreSQL", name)
	start := time.Now()
	if err := teamCopy(ctx, env, home, url, name); err != nil {
		return nil, err
	}
	f.CopySec = round3(time.Since(start).Seconds())

	r := rand.New(rand.NewSource(5))
	qs := make([]string, *queries)
	for i := range qs {
		qs[i] = fmt.Sprintf("%s (%d)", c.query(r), i)
	}
	// The SQLite baseline: loci http on the data dir.
	lite, err := startNodeProc(ctx, self, home, "", *embName, name)
	if err != nil {
		return nil, err
	}
	if _, err := lite.waitFull(ctx, c); err != nil {
		lite.stop()
		return nil, err
	}
	lat, err := lite.timeRecalls(ctx, env, "SQLite", qs)
	lite.stop()
	if err != nil {
		return nil, err
	}
	f.SQLiteRecallP50MS, f.SQLiteRecallP99MS = ms(pct(lat, 0.5)), ms(pct(lat, 0.99))

	// Node A starts with an empty cache: it builds its indexes from the
	// store.
	cacheA, cacheB := mkTemp(home, "node-a-*"), mkTemp(home, "node-b-*")
	defer os.RemoveAll(cacheA)
	defer os.RemoveAll(cacheB)
	start = time.Now()
	a, err := startNodeProc(ctx, self, cacheA, url, *embName, name)
	if err != nil {
		return nil, err
	}
	if _, err := a.waitFull(ctx, c); err != nil {
		a.stop()
		return nil, err
	}
	f.ColdNoSnapshotS = round3(time.Since(start).Seconds())
	// Restarted, it loads its snapshots.
	a.stop()
	start = time.Now()
	if a, err = startNodeProc(ctx, self, cacheA, url, *embName, name); err != nil {
		return nil, err
	}
	defer a.stop()
	if snap, err := a.waitFull(ctx, c); err != nil {
		return nil, err
	} else if !snap {
		return nil, &cliError{Type: "internal", Message: "the restarted node rebuilt its indexes instead of loading its snapshots"}
	}
	f.ColdWithSnapshotS = round3(time.Since(start).Seconds())
	// The same queries as on SQLite, embedded anew (the node's query cache
	// has not seen them), on a node in the same state as the SQLite one:
	// indexes loaded from its snapshots, nothing else running. (A second
	// node building its indexes and writing its snapshots meanwhile slowed
	// these recalls by a quarter.)
	if lat, err = a.timeRecalls(ctx, env, "PostgreSQL", qs); err != nil {
		return nil, err
	}
	f.RecallP50MS, f.RecallP99MS = ms(pct(lat, 0.5)), ms(pct(lat, 0.99))
	f.RecallRatioP50 = round3(f.RecallP50MS / f.SQLiteRecallP50MS)
	f.RecallRatioP99 = round3(f.RecallP99MS / f.SQLiteRecallP99MS)
	b, err := startNodeProc(ctx, self, cacheB, url, *embName, name)
	if err != nil {
		return nil, err
	}
	defer b.stop()
	if _, err := b.waitFull(ctx, c); err != nil {
		return nil, err
	}

	// Cross-node visibility.
	var lags []time.Duration
	for i := range *writes {
		from, to := a, b
		if i%2 == 1 {
			from, to = b, a
		}
		tok := fmt.Sprintf("vq%dzx%c", i, 'a'+i%26)
		id, err := from.remember(ctx, "The "+tok+" escalation path goes through the platform on-call")
		if err != nil {
			return nil, err
		}
		if ok, err := from.finds(ctx, tok+" escalation path", id); err != nil {
			return nil, err
		} else if !ok {
			f.OwnWriteMisses++
		}
		t0 := time.Now()
		for {
			ok, err := to.finds(ctx, tok+" escalation path", id)
			if err != nil {
				return nil, err
			}
			if ok {
				break
			}
			if time.Since(t0) > 30*time.Second {
				return nil, &cliError{Type: "internal", Message: fmt.Sprintf("write %s not visible on the other node after 30 s", id)}
			}
		}
		lags = append(lags, time.Since(t0))
		if i%20 == 0 {
			statusf(env, "loci bench team: visibility %d/%d", i, *writes)
		}
	}
	f.VisibilityWrites = len(lags)
	f.VisibilityP50MS, f.VisibilityP99MS = ms(pct(lags, 0.5)), ms(pct(lags, 0.99))

	// Load: clients on both nodes, one writer alternating between them.
	statusf(env, "loci bench team: load, %d clients per node for %v", *clients, *duration)
	lctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()
	var (
		mu       sync.Mutex
		loadLat  []time.Duration
		searches atomic.Int64
		errs     atomic.Int64
		werrs    atomic.Int64
		acked    []string
		wg       sync.WaitGroup
	)
	start = time.Now()
	for ni, nd := range []*nodeProc{a, b} {
		for ci := range *clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rr := rand.New(rand.NewSource(int64(100*ni + ci)))
				for lctx.Err() == nil {
					t0 := time.Now()
					_, err := nd.tool(lctx, "memory_recall", map[string]any{"query": c.query(rr), "top_k": 10})
					if lctx.Err() != nil {
						return // cut off by the end of the phase: not counted
					}
					d := time.Since(t0)
					searches.Add(1)
					if err != nil {
						errs.Add(1)
						continue
					}
					mu.Lock()
					loadLat = append(loadLat, d)
					mu.Unlock()
				}
			}()
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; lctx.Err() == nil; i++ {
			nd := []*nodeProc{a, b}[i%2]
			id, err := nd.remember(lctx, fmt.Sprintf("Load-phase note %d: the %s service was redeployed", i, c.query(r)))
			if lctx.Err() != nil {
				return // not acknowledged before the end: not counted
			}
			if err != nil {
				werrs.Add(1)
				continue
			}
			mu.Lock()
			acked = append(acked, id)
			mu.Unlock()
		}
	}()
	wg.Wait()
	f.LoadSeconds = round3(time.Since(start).Seconds())
	f.LoadSearches, f.LoadErrors, f.LoadWriteErrors = searches.Load(), errs.Load(), werrs.Load()
	f.LoadPerSec = round3(float64(f.LoadSearches) / f.LoadSeconds)
	f.LoadP50MS, f.LoadP99MS = ms(pct(loadLat, 0.5)), ms(pct(loadLat, 0.99))
	f.LoadWrites = len(acked)

	// Every acknowledged write is in the store.
	reg, err := palace.OpenRegistry(palace.Config{DataDir: mkTemp(home, "check-*"), Store: url, Logger: zerolog.Nop()})
	if err != nil {
		return nil, err
	}
	defer reg.Close()
	pal, err := reg.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	for _, id := range acked {
		if _, err := pal.Get(ctx, id); err != nil {
			f.LostWrites++
		}
	}
	return &result{data: f, text: func(w io.Writer) { writeTeamTable(w, f) }}, nil
}

func mkTemp(dir, pattern string) string {
	d, err := os.MkdirTemp(dir, pattern)
	if err != nil {
		return dir
	}
	return d
}

// teamCopy copies the SQLite palace into the PostgreSQL store, unless a
// previous run left it there.
func teamCopy(ctx context.Context, env *cliEnv, home, url, name string) error {
	src, err := palace.OpenBackend(home, home)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := palace.OpenBackend(url, home)
	if err != nil {
		return err
	}
	defer dst.Close()
	if ok, err := dst.Exists(ctx, name); err != nil {
		return palace.StoreError("look up palace", err)
	} else if ok {
		statusf(env, "loci bench team: %s is in the store already; reusing it", name)
		return nil
	}
	_, err = migrateOne(ctx, env, src, dst, name)
	return err
}

func writeTeamTable(w io.Writer, f teamFigures) {
	fmt.Fprintf(w, "team palace: %d drawers (%s encoder), PostgreSQL %s, copied in %.1f s\n", f.Drawers, f.Embedder, f.Store, f.CopySec)
	fmt.Fprintf(w, "  memory_recall p50/p99: node %.1f / %.1f ms, SQLite %.1f / %.1f ms (ratio %.2f / %.2f)\n",
		f.RecallP50MS, f.RecallP99MS, f.SQLiteRecallP50MS, f.SQLiteRecallP99MS, f.RecallRatioP50, f.RecallRatioP99)
	fmt.Fprintf(w, "  cross-node visibility p50/p99 over %d writes: %.1f / %.1f ms; own writes missed at once: %d\n",
		f.VisibilityWrites, f.VisibilityP50MS, f.VisibilityP99MS, f.OwnWriteMisses)
	fmt.Fprintf(w, "  load, 2 nodes x %d clients + 1 writer for %.0f s: %.1f searches/s, p50/p99 %.1f / %.1f ms, %d errors; %d writes acknowledged, %d write errors, %d lost\n",
		f.LoadClientsPerNode, f.LoadSeconds, f.LoadPerSec, f.LoadP50MS, f.LoadP99MS, f.LoadErrors, f.LoadWrites, f.LoadWriteErrors, f.LostWrites)
	fmt.Fprintf(w, "  cold start to the first full recall: %.2f s without a snapshot, %.2f s with one\n", f.ColdNoSnapshotS, f.ColdWithSnapshotS)
}

// nodeProc is a `loci http` child spoken to over MCP-over-HTTP.
type nodeProc struct {
	cmd    *exec.Cmd
	base   string
	client *http.Client
	sid    string
	id     atomic.Int64
}

var nodeListenRe = regexp.MustCompile(`listening on (https?://[0-9.:]+)`)

// startNodeProc runs loci http with LOCI_HOME=home on store ("": SQLite
// in home) and opens an MCP session.
func startNodeProc(ctx context.Context, self, home, store, embName, name string) (*nodeProc, error) {
	cmd := exec.Command(self, "http", "--addr", "127.0.0.1:0", "--palace", name)
	cmd.Env = append(os.Environ(), "LOCI_HOME="+home, "LOCI_STORE="+store, "LOCI_EMBEDDER="+embedderEnv(embName),
		"LOCI_LOG=warn", "LOCI_DREAM=off", "LOCI_HTTP_TOKEN=")
	p := &nodeProc{cmd: cmd,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 5 * time.Minute}}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		return nil, &cliError{Type: "internal", Message: "start loci http: " + err.Error()}
	}
	found := make(chan string, 1)
	go func() {
		buf := make([]byte, 4096)
		var acc []byte
		for {
			k, err := pr.Read(buf)
			acc = append(acc, buf[:k]...)
			if m := nodeListenRe.FindSubmatch(acc); m != nil {
				select {
				case found <- string(m[1]):
				default:
				}
			}
			if err != nil {
				return
			}
			if len(acc) > 1<<16 {
				acc = acc[len(acc)-4096:]
			}
		}
	}()
	select {
	case p.base = <-found:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return nil, &cliError{Type: "internal", Message: "loci http did not report its address within 60 s"}
	}
	res, hdr, err := p.post(ctx, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "loci-bench-team", "version": "1"}})
	if err != nil {
		p.stop()
		return nil, err
	}
	_ = res
	p.sid = hdr.Get("Mcp-Session-Id")
	return p, nil
}

func (p *nodeProc) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// post sends one JSON-RPC request to /mcp and returns its result.
func (p *nodeProc) post(ctx context.Context, method string, params any) (json.RawMessage, http.Header, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": p.id.Add(1), "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/mcp", bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if p.sid != "" {
		req.Header.Set("Mcp-Session-Id", p.sid)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if i := bytes.Index(raw, []byte("data: ")); i >= 0 && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("event")) {
		raw = raw[i+6:]
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return nil, nil, fmt.Errorf("%s: HTTP %d: %.200s", method, resp.StatusCode, raw)
	}
	if msg.Error != nil {
		return nil, nil, fmt.Errorf("%s: %s", method, msg.Error.Message)
	}
	return msg.Result, resp.Header, nil
}

// tool calls a tool and returns its JSON text.
func (p *nodeProc) tool(ctx context.Context, name string, args map[string]any) (json.RawMessage, error) {
	res, _, err := p.post(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 {
		return nil, fmt.Errorf("%s: unreadable result", name)
	}
	if r.IsError {
		return nil, fmt.Errorf("%s: %s", name, r.Content[0].Text)
	}
	return json.RawMessage(r.Content[0].Text), nil
}

func (p *nodeProc) remember(ctx context.Context, text string) (string, error) {
	res, err := p.tool(ctx, "memory_remember", map[string]any{"text": text})
	if err != nil {
		return "", err
	}
	var r struct {
		DrawerID string `json:"drawer_id"`
	}
	json.Unmarshal(res, &r)
	return r.DrawerID, nil
}

func (p *nodeProc) finds(ctx context.Context, query, id string) (bool, error) {
	res, err := p.tool(ctx, "memory_recall", map[string]any{"query": query, "top_k": 5})
	if err != nil {
		return false, err
	}
	var r struct {
		Results []struct {
			DrawerID string `json:"drawer_id"`
		} `json:"results"`
	}
	json.Unmarshal(res, &r)
	for _, x := range r.Results {
		if x.DrawerID == id {
			return true, nil
		}
	}
	return false, nil
}

// waitFull recalls until both indexes are loaded and the graph (if any)
// calibrated: the node answers at full quality. It reports whether the
// keyword index came from the node's snapshot.
func (p *nodeProc) waitFull(ctx context.Context, c scaleText) (fromSnapshot bool, err error) {
	r := rand.New(rand.NewSource(9))
	deadline := time.Now().Add(15 * time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if _, err := p.tool(ctx, "memory_recall", map[string]any{"query": c.query(r), "top_k": 10}); err != nil {
			return false, err
		}
		res, err := p.tool(ctx, "palace_info", map[string]any{})
		if err != nil {
			return false, err
		}
		if full, snap := fullQuality(res); full {
			return snap, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false, &cliError{Type: "internal", Message: "the node's indexes were not warm after 15 minutes"}
}

func (p *nodeProc) timeRecalls(ctx context.Context, env *cliEnv, label string, qs []string) ([]time.Duration, error) {
	var lat []time.Duration
	for i, q := range qs {
		t0 := time.Now()
		if _, err := p.tool(ctx, "memory_recall", map[string]any{"query": q, "top_k": 10}); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t0))
		if i%50 == 0 {
			statusf(env, "loci bench team: %s recall %d/%d", label, i, len(qs))
		}
	}
	return lat, nil
}
