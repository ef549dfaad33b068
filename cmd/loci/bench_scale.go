package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/loci-mem/loci/cmd/loci/locomo"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/index"
)

func init() {
	benchmarks["scale"] = benchmark{"palaces of 10k to 1M drawers: ingest, disk, RSS, cold start, memory_recall latency, approximate-index recall", benchScale}
}

// scaleFigures are one palace size's figures.
type scaleFigures struct {
	Drawers  int    `json:"drawers"`
	Embedder string `json:"embedder"`
	Reused   bool   `json:"reused"`
	// Ingest: drawers written (embedding included) per second, and the
	// vector index built from the store afterwards.
	IngestPerSec float64 `json:"ingest_per_sec"`
	IngestSec    float64 `json:"ingest_seconds"`
	IndexBuildS  float64 `json:"index_build_seconds"`
	// KeywordBuildS is the BM25 index built from the store (tokenising
	// every drawer) and saved.
	KeywordBuildS float64 `json:"keyword_build_seconds"`
	DiskMB        float64 `json:"disk_mb"`
	// Serve: process start to the initialize response (median of 5), and
	// to the first recall answered with both indexes warm.
	ColdInitMS      float64 `json:"cold_start_initialize_ms"`
	FirstFullRecall float64 `json:"first_full_recall_ms"`
	RSSMB           float64 `json:"rss_mb"`
	PeakRSSMB       float64 `json:"peak_rss_mb"`
	// memory_recall over stdio: new queries (each embedded) and the same
	// queries again (embeddings cached).
	RecallP50MS        float64 `json:"recall_p50_ms"`
	RecallP99MS        float64 `json:"recall_p99_ms"`
	RecallCachedP50MS  float64 `json:"recall_no_embedding_p50_ms"`
	RecallCachedP99MS  float64 `json:"recall_no_embedding_p99_ms"`
	ApproxRecallAt10   float64 `json:"approx_recall_at_10"`
	IndexKind          string  `json:"index"`
	GraphNodes         int     `json:"graph_nodes"`
	GraphMB            float64 `json:"graph_mb"`
	EfSearch           int     `json:"ef_search,omitempty"`
	GraphOff           bool    `json:"graph_off,omitempty"`
	CodeMB             float64 `json:"code_mb"`
	Queries            int     `json:"queries"`
	RecallCheckQueries int     `json:"recall_check_queries"`
	// Corpus is where the drawer texts and questions came from:
	// "locomo" (LoCoMo found; LOCI_LOCOMO names it elsewhere) or
	// "generated" (sentences over a small vocabulary). Figures of the two
	// are not comparable.
	Corpus string `json:"corpus"`
	// Calibration is what calibrating the palace's index on its questions
	// measured and chose before anything was timed (scaleCalibrate); none
	// when the index had no graph or was calibrated already.
	Calibration *index.Calibration `json:"calibration,omitempty"`
}

// benchScale is `loci bench scale`: for each size it builds a palace (or
// reuses the one a previous run left in --dir), then measures a real
// `loci serve` process over stdio and the palace in process.
func benchScale(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fset := flag.NewFlagSet("bench scale", flag.ContinueOnError)
	var common commonFlags
	fset.StringVar(&common.format, "format", "auto", "output format: auto, text, json or yaml")
	sizes := fset.String("drawers", "10k,100k", "palace sizes, comma separated (10k, 1M or plain numbers)")
	embName := fset.String("embedder", "hash", "embedder: hash (isolates the engine) or default (the built-in encoder)")
	dir := fset.String("dir", "", "directory that keeps the palaces for the next run (default: a temporary one, removed afterwards)")
	queries := fset.Int("queries", 300, "memory_recall calls per size")
	check := fset.Int("recall-queries", 200, "questions comparing the approximate index with the exact scan (from the half of LoCoMo's questions calibration does not ask)")
	if _, err := parseFlags(env, fset, args); err != nil {
		return nil, err
	}
	ns, err := parseSizes(*sizes)
	if err != nil {
		return nil, invalidArgs(err.Error(), "Example: --drawers 10k,100k,1M")
	}
	if *queries < 10 || *check < 1 {
		return nil, invalidArgs("--queries must be at least 10 and --recall-queries at least 1", "")
	}
	if _, err := embedderNamed(embedderEnv(*embName)); err != nil {
		return nil, invalidArgs(err.Error(), "Use --embedder hash or --embedder default")
	}
	home, self, cleanup, err := benchHome(*dir, "loci-scale-*")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	c := scaleCorpus(env)
	var out []scaleFigures
	for _, n := range ns {
		if ctx.Err() != nil {
			break
		}
		f, err := scaleOne(ctx, env, self, home, *embName, n, *queries, *check, c)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return &result{data: map[string]any{"sizes": out}, count: countOf(len(out)), text: func(w io.Writer) { writeScaleTable(w, out) }}, nil
}

// fullQuality reads a palace_info result: whether the palace answers at
// full quality — both indexes loaded, and a graph either calibrated or
// held off until it can be (the exact scan answers meanwhile) — and
// whether its keyword index came from a snapshot.
func fullQuality(info json.RawMessage) (full, fromSnapshot bool) {
	var in struct {
		Index struct {
			Loaded     bool
			GraphNodes int  `json:"graph_nodes"`
			Calibrated bool `json:"calibrated"`
			GraphOff   bool `json:"graph_off"`
		} `json:"index"`
		Keyword struct {
			Loaded       bool
			FromSnapshot bool `json:"from_snapshot"`
		} `json:"keyword_index"`
	}
	json.Unmarshal(info, &in)
	full = in.Index.Loaded && in.Keyword.Loaded && (in.Index.GraphNodes == 0 || in.Index.Calibrated || in.Index.GraphOff)
	return full, in.Keyword.FromSnapshot
}

// benchHome is the data dir a benchmark builds its palaces in: dir (kept
// for the next run), or a temporary one that cleanup removes; and the
// running binary, which the benchmark starts as servers.
func benchHome(dir, pattern string) (home, self string, cleanup func(), err error) {
	cleanup = func() {}
	if home = dir; home == "" {
		if home, err = os.MkdirTemp("", pattern); err != nil {
			return "", "", cleanup, &cliError{Type: "io", Message: err.Error()}
		}
		cleanup = func() { os.RemoveAll(home) }
	} else if err := os.MkdirAll(home, 0o700); err != nil {
		return "", "", cleanup, &cliError{Type: "io", Message: err.Error()}
	}
	if self, err = os.Executable(); err != nil {
		cleanup()
		return "", "", func() {}, &cliError{Type: "internal", Message: err.Error()}
	}
	return home, self, cleanup, nil
}

// embedderEnv is LOCI_EMBEDDER for an --embedder name: "default" is the
// built-in default, which the variable names by being empty.
func embedderEnv(name string) string {
	if name == "default" {
		return ""
	}
	return name
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		mul := 1
		switch {
		case strings.HasSuffix(f, "k"):
			mul, f = 1000, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "m"):
			mul, f = 1_000_000, strings.TrimSuffix(f, "m")
		}
		v, err := strconv.Atoi(f)
		if err != nil || v <= 0 || v*mul > 50_000_000 {
			return nil, fmt.Errorf("bad size %q: want a positive count such as 10k or 1M", f)
		}
		out = append(out, v*mul)
	}
	return out, nil
}

// scaleText supplies drawer texts and queries. With LoCoMo on the machine
// the texts are walks on a bigram model of its turns (every word followed
// by a word that followed it somewhere in LoCoMo) and the queries are its
// questions: text with LoCoMo's vocabulary and word statistics, but a
// million distinct drawers rather than a few thousand turns repeated,
// whose near-copies would make "the exact top 10" a tie among hundreds.
// Without LoCoMo, sentences over a small working vocabulary. The questions
// are split in two at random: calibration and the timed recalls draw from
// one half, the approximate index's recall is checked on the other, so
// that the check measures the calibrated widths on questions they were
// not chosen on.
type scaleText struct {
	source    string // "locomo" or "generated"
	next      map[string][]string
	starts    []string
	questions []string
	held      []string
}

func scaleCorpus(env *cliEnv) scaleText {
	c := scaleText{source: "generated", next: map[string][]string{}}
	samples, err := locomo.Load(locomo.DefaultDataPath())
	if err != nil {
		// Always said, not only on a terminal: the figures change meaning.
		fmt.Fprintf(env.stderr, "loci bench: LoCoMo not found (%v); drawers and questions are generated sentences, whose figures are not comparable with LoCoMo's (set LOCI_LOCOMO to its file)\n", termSafe(err.Error()))
		return c
	}
	c.source = "locomo"
	for _, s := range samples {
		if ds, err := locomo.Drawers(s.Conversation); err == nil {
			for _, d := range ds {
				w := strings.Fields(d.Content)
				if len(w) < 2 {
					continue
				}
				c.starts = append(c.starts, w[0])
				for i := 0; i+1 < len(w); i++ {
					c.next[w[i]] = append(c.next[w[i]], w[i+1])
				}
			}
		}
		for _, qa := range s.QA {
			c.questions = append(c.questions, qa.Question)
		}
	}
	r := rand.New(rand.NewSource(11))
	r.Shuffle(len(c.questions), func(i, j int) { c.questions[i], c.questions[j] = c.questions[j], c.questions[i] })
	c.questions, c.held = c.questions[:len(c.questions)/2], c.questions[len(c.questions)/2:]
	return c
}

func (c scaleText) doc(r *rand.Rand, i int) string {
	if len(c.starts) == 0 {
		return fmt.Sprintf("note %d: %s", i, scaleSentence(r, 8+r.Intn(16)))
	}
	n := 12 + r.Intn(29)
	w := make([]string, 0, n)
	for len(w) < n {
		cur := c.starts[r.Intn(len(c.starts))]
		w = append(w, cur)
		for len(w) < n {
			nx := c.next[cur]
			if len(nx) == 0 {
				break
			}
			cur = nx[r.Intn(len(nx))]
			w = append(w, cur)
		}
	}
	return fmt.Sprintf("note %d: %s", i, strings.Join(w, " "))
}

func (c scaleText) query(r *rand.Rand) string {
	if len(c.questions) == 0 {
		return scaleSentence(r, 5)
	}
	return c.questions[r.Intn(len(c.questions))]
}

// checkQuery is the i-th question of the held-out half (each once, until
// there are more checks than questions).
func (c scaleText) checkQuery(r *rand.Rand, i int) string {
	if len(c.held) == 0 {
		return scaleSentence(r, 5)
	}
	return c.held[i%len(c.held)]
}

var scaleWords = strings.Fields(`deploy gateway token cluster billing invoice refund retry budget
latency cache postgres schema migration rollback release sprint frontend test flaky pipeline
image registry rotation oncall incident dashboard metric alert quota tenant region backup
restore snapshot index shard replica timeout feature flag cohort onboarding template
calendar meeting agenda decision owner deadline roadmap design review version garden
sister holiday painting concert recipe hiking camera puppy birthday marathon novel`)

func scaleSentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = scaleWords[r.Intn(len(scaleWords))]
	}
	return strings.Join(w, " ")
}

// scaleSeed is what a reused palace remembers of its building.
type scaleSeed struct {
	IngestSec, IndexBuildS, KeywordBuildS float64
	Calibration                           *index.Calibration `json:"-"` // this run's, not kept in the marker
}

func scaleOne(ctx context.Context, env *cliEnv, self, home, embName string, n, nq, ncheck int, c scaleText) (scaleFigures, error) {
	name := fmt.Sprintf("scale-%d-%s", n, embName)
	f := scaleFigures{Drawers: n, Embedder: embName, Queries: nq, RecallCheckQueries: ncheck}
	os.Setenv("LOCI_EMBEDDER", embedderEnv(embName)) // for the registry below; the server gets it too
	seed, reused, err := scalePalace(ctx, env, home, name, n, c)
	if err != nil {
		return f, err
	}
	f.Reused, f.Calibration, f.Corpus = reused, seed.Calibration, c.source
	f.IngestSec, f.IndexBuildS, f.KeywordBuildS = round3(seed.IngestSec), round3(seed.IndexBuildS), round3(seed.KeywordBuildS)
	f.IngestPerSec = float64(int(float64(n) / seed.IngestSec))
	f.DiskMB = round3(float64(palaceBytes(home, name)) / (1 << 20))

	// Cold start to initialize, median of 5.
	var cold []time.Duration
	for range 5 {
		start := time.Now()
		p, err := startServe(self, home, embName, name)
		if err != nil {
			return f, err
		}
		if _, err := p.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "loci-bench-scale", "version": "1"}}); err != nil {
			p.stop()
			return f, err
		}
		cold = append(cold, time.Since(start))
		p.stop()
	}
	f.ColdInitMS = ms(median(cold))

	// First full-quality recall, then the steady state.
	start := time.Now()
	p, err := startServe(self, home, embName, name)
	if err != nil {
		return f, err
	}
	defer p.stop()
	if _, err := p.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "loci-bench-scale", "version": "1"}}); err != nil {
		return f, err
	}
	p.notify("notifications/initialized")
	r := rand.New(rand.NewSource(3))
	for {
		if _, err := p.tool("memory_recall", map[string]any{"query": c.query(r), "top_k": 10}); err != nil {
			return f, err
		}
		res, err := p.tool("palace_info", map[string]any{})
		if err != nil {
			return f, err
		}
		if full, _ := fullQuality(res); full {
			break
		}
		if time.Since(start) > 10*time.Minute {
			return f, &cliError{Type: "internal", Message: "indexes not warm after 10 minutes"}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := p.tool("memory_recall", map[string]any{"query": c.query(r), "top_k": 10}); err != nil {
		return f, err
	}
	f.FirstFullRecall = ms(time.Since(start))
	// The timed questions are drawn from a source of their own, so that
	// they do not depend on how many the warm-up asked.
	qr := rand.New(rand.NewSource(5))
	qs := make([]string, nq)
	for i := range qs {
		qs[i] = fmt.Sprintf("%s (%d)", c.query(qr), i) // distinct, so each is embedded once
	}
	timeAll := func() ([]time.Duration, error) {
		var lat []time.Duration
		for i, q := range qs {
			if ctx.Err() != nil {
				return lat, nil
			}
			t0 := time.Now()
			if _, err := p.tool("memory_recall", map[string]any{"query": q, "top_k": 10}); err != nil {
				return nil, err
			}
			lat = append(lat, time.Since(t0))
			if i%50 == 0 {
				statusf(env, "loci bench scale: %s recall %d/%d", name, i, len(qs))
			}
		}
		return lat, nil
	}
	lat, err := timeAll()
	if err != nil {
		return f, err
	}
	cached, err := timeAll()
	if err != nil {
		return f, err
	}
	f.RecallP50MS, f.RecallP99MS = ms(pct(lat, 0.5)), ms(pct(lat, 0.99))
	f.RecallCachedP50MS, f.RecallCachedP99MS = ms(pct(cached, 0.5)), ms(pct(cached, 0.99))
	rss, peak := procRSS(p.cmd.Process.Pid)
	f.RSSMB, f.PeakRSSMB = round3(float64(rss)/1024), round3(float64(peak)/1024)
	p.stop()

	// The approximate index against the exact scan, in process.
	reg, err := openRegistry(homeFlags{dataDir: home}, zerolog.Nop(), nil)
	if err != nil {
		return f, &cliError{Type: "io", Message: err.Error()}
	}
	defer reg.Close()
	pal, err := reg.Open(ctx, name)
	if err != nil {
		return f, err
	}
	if err := pal.WarmIndex(ctx); err != nil {
		return f, err
	}
	cr := rand.New(rand.NewSource(7)) // generated checks, like qs, do not depend on the warm-up
	check := make([]string, ncheck)
	for i := range check {
		check[i] = c.checkQuery(cr, i)
	}
	rec, err := pal.IndexRecall(ctx, check, 10)
	if err != nil {
		return f, err
	}
	f.ApproxRecallAt10 = round3(rec)
	st := pal.VectorIndexStats()
	f.IndexKind = pal.IndexInfo().Kind
	f.GraphNodes, f.GraphMB, f.CodeMB = st.Graph, round3(float64(st.GraphBytes)/(1<<20)), round3(float64(st.CodeBytes)/(1<<20))
	f.EfSearch, f.GraphOff = st.EfSearch, st.GraphOff
	return f, nil
}

// scalePalace builds palace name of n drawers in home, or reuses the one
// an earlier run finished there (its marker file records the build).
func scalePalace(ctx context.Context, env *cliEnv, home, name string, n int, c scaleText) (scaleSeed, bool, error) {
	marker := filepath.Join(home, name+".seeded.json")
	var seed scaleSeed
	if b, err := os.ReadFile(marker); err == nil && json.Unmarshal(b, &seed) == nil {
		statusf(env, "loci bench: reusing %s (%d drawers)", name, n)
		// A palace an older loci built is brought to this version's
		// steady state (index snapshots, the graph's calibration) before
		// anything is timed.
		seed.Calibration, err = scaleWarm(ctx, env, home, name, c)
		return seed, true, err
	}
	seed, err := scaleBuild(ctx, env, home, name, n, c)
	if err != nil {
		return seed, false, err
	}
	b, _ := json.Marshal(seed)
	if err := os.WriteFile(marker, b, 0o600); err != nil {
		return seed, false, &cliError{Type: "io", Message: err.Error()}
	}
	return seed, false, nil
}

func scaleWarm(ctx context.Context, env *cliEnv, home, name string, c scaleText) (*index.Calibration, error) {
	reg, err := openRegistry(homeFlags{dataDir: home}, zerolog.Nop(), nil)
	if err != nil {
		return nil, &cliError{Type: "io", Message: err.Error()}
	}
	defer reg.Close()
	p, err := reg.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := p.WarmIndex(ctx); err != nil {
		return nil, err
	}
	return scaleCalibrate(ctx, env, p, c)
}

// scaleCalibrationQuestions is how many questions scaleCalibrate asks: as
// many as a palace's calibration uses (palace.CalibrateIndex takes the
// latest 200).
const scaleCalibrationQuestions = 200

// scaleCalibrate brings a palace's vector index to the state of one in
// use. A palace that has been asked questions has had its graph and
// projection measured on them and one of them (or the scan) chosen, by
// maintenance or the dreamer's index pass in the process that was asked
// (dreamer.Maintain); one just built, or reused from a run whose
// processes never calibrated, has not, and every search would scan. So a
// palace whose index asks for calibration is asked questions drawn from
// the same pool as the timed ones, in process, and calibrated on them;
// the snapshot keeps the choice for the servers the benchmark starts.
func scaleCalibrate(ctx context.Context, env *cliEnv, p *palace.Palace, c scaleText) (*index.Calibration, error) {
	if in := p.IndexInfo(); in.GraphNodes == 0 || in.Calibrated {
		return nil, nil
	}
	r := rand.New(rand.NewSource(7))
	for range scaleCalibrationQuestions {
		if _, err := p.Search(ctx, palace.SearchRequest{Query: c.query(r), Mode: palace.ModeVector, NoAccess: true}); err != nil {
			return nil, err
		}
	}
	statusf(env, "loci bench scale: calibrating the vector index of %s", p.Name())
	cal, err := p.CalibrateIndex(ctx)
	if err != nil {
		return nil, err
	}
	if cal != nil {
		statusf(env, "loci bench scale: %s answers through %s (recall@10 %.3f graph, %.3f projection; lower bounds %.3f, %.3f)",
			p.Name(), cal.Use, cal.Recall, cal.ProjRecall, cal.RecallLow, cal.ProjRecallLow)
	}
	return cal, nil
}

// scaleBuild writes n drawers through the palace API in batches (the
// embedding included) and builds the vector index from the store.
func scaleBuild(ctx context.Context, env *cliEnv, home, name string, n int, c scaleText) (scaleSeed, error) {
	var s scaleSeed
	reg, err := openRegistry(homeFlags{dataDir: home}, zerolog.Nop(), nil)
	if err != nil {
		return s, &cliError{Type: "io", Message: err.Error()}
	}
	defer reg.Close()
	if reg.Exists(name) {
		return s, &cliError{Type: "conflict", Message: fmt.Sprintf("palace %s in %s was left unfinished by an interrupted run", name, home),
			Hint: "Remove it (`rm -r " + filepath.Join(home, "palaces", name) + "`) and run again"}
	}
	p, err := reg.Create(ctx, name, "loci bench scale")
	if err != nil {
		return s, err
	}
	r := rand.New(rand.NewSource(1))
	start := time.Now()
	prog := newProgress(env, "loci bench scale: writing "+name, "drawers")
	for done := 0; done < n; {
		if ctx.Err() != nil {
			return s, ctx.Err()
		}
		batch := make([]*palace.Drawer, 0, 1000)
		for i := 0; i < 1000 && done < n; i++ {
			batch = append(batch, &palace.Drawer{Content: c.doc(r, done),
				Room: palace.Rooms[r.Intn(len(palace.Rooms))], Importance: 0.1 + 0.8*r.Float64()})
			done++
		}
		if err := p.AddMany(ctx, batch); err != nil {
			return s, err
		}
		prog.Set(done, n, "")
	}
	prog.Done()
	s.IngestSec = time.Since(start).Seconds()
	statusf(env, "loci bench scale: building the vector index of %s", name)
	start = time.Now()
	if _, err := p.RebuildIndex(ctx); err != nil {
		return s, err
	}
	s.IndexBuildS = time.Since(start).Seconds()
	statusf(env, "loci bench scale: building the keyword index of %s", name)
	start = time.Now()
	if err := p.WarmIndex(ctx); err != nil { // and saves both snapshots
		return s, err
	}
	s.KeywordBuildS = time.Since(start).Seconds()
	s.Calibration, err = scaleCalibrate(ctx, env, p, c)
	return s, err
}

// palaceBytes is the size of a palace's files in home (the database, its
// WAL and the cache directory of index snapshots).
func palaceBytes(home, name string) int64 {
	var total int64
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if strings.Contains(path, name) && !strings.HasSuffix(path, ".seeded.json") {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

func procRSS(pid int) (rssKB, peakKB int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "VmRSS:" {
			rssKB, _ = strconv.Atoi(f[1])
		}
		if len(f) >= 2 && f[0] == "VmHWM:" {
			peakKB, _ = strconv.Atoi(f[1])
		}
	}
	return
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func median(ds []time.Duration) time.Duration { return pct(ds, 0.5) }

func pct(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1)+0.5)]
}

func writeScaleTable(w io.Writer, fs []scaleFigures) {
	fmt.Fprintf(w, "%-9s %-8s %9s %9s %9s %9s %9s %11s %8s %8s %8s %8s %9s  %s\n", "drawers", "embedder", "ingest/s", "index s", "disk MB",
		"RSS MB", "init ms", "1st full ms", "p50 ms", "p99 ms", "p50 -emb", "p99 -emb", "recall@10", "index")
	for _, f := range fs {
		fmt.Fprintf(w, "%-9d %-8s %9.0f %9.1f %9.0f %9.0f %9.1f %11.0f %8.2f %8.2f %8.2f %8.2f %9.3f  %s\n", f.Drawers, f.Embedder, f.IngestPerSec,
			f.IndexBuildS, f.DiskMB, f.RSSMB, f.ColdInitMS, f.FirstFullRecall, f.RecallP50MS, f.RecallP99MS,
			f.RecallCachedP50MS, f.RecallCachedP99MS, f.ApproxRecallAt10, f.IndexKind)
	}
}

// serveProc is a `loci serve` child spoken to over stdio.
type serveProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startServe(self, home, embName, name string) (*serveProc, error) {
	cmd := exec.Command(self, "serve", "--palace", name)
	// The dreamer is off: a palace idle since it was built would start
	// its consolidation passes at once, and over a million drawers they
	// compete with the measured recalls for the cores.
	cmd.Env = append(os.Environ(), "LOCI_HOME="+home, "LOCI_EMBEDDER="+embedderEnv(embName), "LOCI_LOG=warn", "LOCI_DREAM=off")
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, &cliError{Type: "internal", Message: err.Error()}
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, &cliError{Type: "internal", Message: err.Error()}
	}
	if err := cmd.Start(); err != nil {
		return nil, &cliError{Type: "internal", Message: "start loci serve: " + err.Error()}
	}
	return &serveProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

func (p *serveProc) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

func (p *serveProc) notify(method string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	p.in.Write(append(b, '\n'))
}

// call sends one request and returns its result, skipping notifications.
func (p *serveProc) call(method string, params any) (json.RawMessage, error) {
	p.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": p.id, "method": method, "params": params})
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return nil, &cliError{Type: "internal", Message: "loci serve: " + err.Error()}
	}
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return nil, &cliError{Type: "internal", Message: "loci serve ended: " + err.Error()}
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != p.id {
			continue
		}
		if msg.Error != nil {
			return nil, &cliError{Type: "internal", Message: method + ": " + msg.Error.Message}
		}
		return msg.Result, nil
	}
}

// tool calls a tool and returns its structured content (or its first
// text block).
func (p *serveProc) tool(name string, args map[string]any) (json.RawMessage, error) {
	res, err := p.call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var r struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, &cliError{Type: "internal", Message: name + ": " + err.Error()}
	}
	if r.IsError {
		msg := ""
		if len(r.Content) > 0 {
			msg = r.Content[0].Text
		}
		return nil, &cliError{Type: "internal", Message: name + " failed: " + msg}
	}
	if len(r.StructuredContent) > 0 {
		return r.StructuredContent, nil
	}
	if len(r.Content) > 0 {
		return json.RawMessage(r.Content[0].Text), nil
	}
	return nil, nil
}
