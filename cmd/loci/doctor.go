package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/embed/use"
	"github.com/loci-mem/loci/palace/index"
	"github.com/loci-mem/loci/palace/redact"
)

func init() {
	commands["doctor"] = command{"check the data dir, palaces, indexes and configuration", cli(doctorCmd)}
}

// check is one doctor finding.
type check struct {
	Name    string `json:"name"`
	Status  string `json:"status"` // ok, warn or fail
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// doctorCmd is `loci doctor [--palace NAME]`: every palace, or only the
// named one. Warnings keep exit code 0; any failed check makes the command
// fail with an io error (exit 5) whose detail lists the checks — in text
// mode they are printed on stderr, as errors are.
func doctorCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	flags := flag.NewFlagSet("doctor", flag.ContinueOnError)
	var c commonFlags
	c.register(flags)
	pos, err := parseFlags(env, flags, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, invalidArgs("doctor takes no arguments", "Use `loci doctor [--palace NAME]`")
	}
	var checks []check
	add := func(name, status, msg, hint string) {
		checks = append(checks, check{Name: name, Status: status, Message: msg, Hint: hint})
	}

	dataDir := c.dataDir
	if dataDir == "" {
		if dataDir, err = palace.DefaultDataDir(); err != nil {
			return nil, &cliError{Type: "io", Message: err.Error()}
		}
	}
	dataDir, _ = filepath.Abs(dataDir)
	st, err := palace.LoadSettings(dataDir)
	switch {
	case err != nil:
		add("config", "fail", err.Error(), "Fix "+filepath.Join(dataDir, palace.ConfigFile)+" or the LOCI_* variable it names")
	case st.Loaded:
		add("config", "ok", fmt.Sprintf("%s: autopromote=%t fact_horizon=%s top_k=%d", st.File, st.AutoPromote, st.HorizonString(), st.TopK), "")
	default:
		add("config", "ok", fmt.Sprintf("no config file (defaults): autopromote=%t fact_horizon=%s top_k=%d", st.AutoPromote, st.HorizonString(), st.TopK), "")
	}
	// The kernels, chosen at run time: recall and writes are several times
	// slower on the portable ones.
	if k, s := use.Kernel(), index.ScanKernel(); k == "generic" || s == "generic" {
		add("cpu", "warn", fmt.Sprintf("sentence encoder %s, vector scan %s: no AVX2 kernels on this CPU", k, s), "Expect writes and recall several times slower than the README's figures")
	} else {
		add("cpu", "ok", fmt.Sprintf("sentence encoder %s, vector scan %s", k, s), "")
	}
	if emb, err := configuredEmbedder(); err != nil {
		add("embedder", "fail", err.Error(), "Check LOCI_EMBEDDER")
	} else if err := probeEmbedder(ctx, emb); err != nil {
		add("embedder", "fail", err.Error(), "Check that the engine at "+embed.EnvEmbedBaseURL+" answers and serves "+embed.EnvEmbedModel+" (and "+embed.EnvEmbedDim+", if set)")
	} else {
		add("embedder", "ok", fmt.Sprintf("%s (%d dimensions%s)", emb.ID(), emb.Dim(), promptsNote(emb)), "")
		if msg, err := embedderScales(ctx, emb); err != nil {
			add("embedder scales", "warn", err.Error(), "Recall still works; the faces' cosine floors compare raw cosines, and the dreamer links near-duplicates only with LOCI_DEDUP_THRESHOLD set")
		} else {
			add("embedder scales", "ok", msg, "")
		}
	}

	// With a store server, the data dir only caches indexes: what matters
	// is that the server answers.
	storeURL := c.store
	if storeURL == "" {
		storeURL = os.Getenv("LOCI_STORE")
	}
	info, err := os.Stat(dataDir)
	switch {
	case storeURL != "":
	case errors.Is(err, fs.ErrNotExist):
		add("data_dir", "warn", dataDir+" does not exist yet; it is created on first write", "")
		return doctorResult(env, dataDir, checks)
	case err != nil:
		add("data_dir", "fail", err.Error(), "Check the permissions of "+dataDir)
		return doctorResult(env, dataDir, checks)
	case !info.IsDir():
		add("data_dir", "fail", dataDir+" is not a directory", "Point LOCI_HOME or --data-dir at a directory")
		return doctorResult(env, dataDir, checks)
	}
	reg, err := openRegistry(homeFlags{dataDir: dataDir, store: storeURL}, newLogger(env.stderr), nil)
	switch {
	case err != nil && storeURL != "":
		add("store", "fail", err.Error(), "Check that the PostgreSQL server is running and --store or LOCI_STORE names it")
		return doctorResult(env, dataDir, checks)
	case err != nil:
		add("data_dir", "fail", err.Error(), "Check the permissions of "+dataDir)
		return doctorResult(env, dataDir, checks)
	case storeURL != "":
		add("store", "ok", reg.Backend().Kind()+" at "+reg.Backend().Location()+" answers; index caches in "+dataDir, "")
	default:
		add("data_dir", "ok", dataDir+" is writable", "")
	}
	defer reg.Close()

	names, err := reg.List()
	if err != nil {
		add("palaces", "fail", err.Error(), "")
		return doctorResult(env, dataDir, checks)
	}
	if c.palace != "" {
		if err := palace.ValidateName(c.palace); err != nil {
			return nil, err
		}
		if !reg.Exists(c.palace) {
			return nil, &cliError{Type: "not_found", Message: fmt.Sprintf("palace %q does not exist", c.palace), Hint: "Run `loci palace list`"}
		}
		names = []string{c.palace}
	} else if def, err := resolvePalace(""); err != nil {
		add("default_palace", "warn", "cannot tell which palace this directory maps to: "+err.Error(), "Pass --palace NAME")
	} else {
		if reg.Exists(def) {
			add("default_palace", "ok", "this directory maps to palace "+def, "")
		} else {
			add("default_palace", "warn", "this directory maps to palace "+def+", which does not exist yet", "It is created by the first `loci remember` or `loci serve --palace "+def+"`")
		}
	}
	if len(names) == 0 {
		add("palaces", "warn", "no palaces yet", "Create one with `loci palace create NAME`")
	}
	for _, name := range names {
		checks = append(checks, checkPalace(ctx, reg, name)...)
	}
	return doctorResult(env, dataDir, checks)
}

// checkPalace opens a palace (applying pending migrations) and checks its
// file, full-text index, vector index and review queue.
func checkPalace(ctx context.Context, reg *palace.Registry, name string) []check {
	label := "palace " + name
	p, err := reg.Open(ctx, name)
	if err != nil {
		return []check{{label, "fail", "cannot open: " + err.Error(), "Restore it from an export (`loci import`) or remove its directory"}}
	}
	r, err := p.CheckIntegrity(ctx)
	if err != nil {
		return []check{{label, "fail", err.Error(), ""}}
	}
	var out []check
	if r.Engine != "ok" {
		out = append(out, check{label, "fail", r.Backend + " database: " + r.Engine, "Export what is readable and import it into a new palace"})
	}
	idx := r.Index
	switch {
	case idx.NeedsRebuild:
		out = append(out, check{label + " index", "warn", fmt.Sprintf("vector index needs a rebuild (%d live, %d tombstones)", idx.Live, idx.Tombstones), "The dreamer rebuilds it in the background while `loci serve` runs"})
	case idx.StaleVectors > 0:
		out = append(out, check{label + " index", "warn", fmt.Sprintf("%d drawers lack a vector from %s", idx.StaleVectors, idx.Model), "The dreamer re-embeds them while `loci serve` runs; keyword search still finds them"})
	}
	// Secrets an older release stored as written, which today's rules
	// catch (counted, never shown). A read-only palace cannot be asked.
	if sc, err := p.Rescrub(ctx, true, nil); err == nil {
		if other := sc.RowsChanged(); sc.Changed+other > 0 {
			out = append(out, check{label + " secrets", "warn",
				fmt.Sprintf("%d drawers and %d other rows hold secrets that this release's redactor catches (stored by an older one)", sc.Changed, other),
				"Run `loci scrub --palace " + name + "` (SECURITY.md, \"Erasing for good\")"})
		}
	}
	if c, ok := checkExtraction(ctx, p); ok {
		out = append(out, c)
	}
	pending, _ := p.Count(ctx, palace.Filter{Kinds: []string{palace.KindFact}, Statuses: []string{palace.StatusPending}})
	info, _ := p.Info(ctx)
	if len(out) == 0 {
		out = append(out, check{label, "ok", fmt.Sprintf("%d active drawers, %d vectors (%s), %d migrations", info.DrawerCount, idx.Live, idx.Model, r.Migrations), ""})
	}
	if pending > 0 {
		out = append(out, check{label + " review", "warn", fmt.Sprintf("%d facts wait for review", pending), "Run `loci review list --palace " + name + "`"})
	}
	return out
}

// checkExtraction warns of sessions whose extraction keeps failing: their
// messages wait in the buffer, unsearchable as memories, until a retry
// succeeds. It names the session tried most often and its last error.
func checkExtraction(ctx context.Context, p *palace.Palace) (check, bool) {
	fails, err := p.ExtractionFailures(ctx)
	if err != nil || len(fails) == 0 {
		return check{}, false
	}
	bufs, _ := p.BufferedCounts(ctx)
	worst, waiting := fails[0], 0
	for _, f := range fails {
		waiting += bufs[f.SessionID]
		if f.Attempts > worst.Attempts {
			worst = f
		}
	}
	return check{"palace " + p.Name() + " extraction", "warn",
		fmt.Sprintf("extraction failed for %d session(s), whose %d message(s) wait in the buffer; session %s: %d attempt(s), the last: %s",
			len(fails), waiting, termSafe(worst.SessionID), worst.Attempts, termSafe(palace.Truncate(worst.LastError, 200))),
		"Check the extractor's model (LOCI_LLM_BASE_URL, LOCI_LLM_MODEL); the session's next message or flush (/add, /flush, mem_save_turn, the hooks) retries. `loci forget --purge --session ID` erases messages that should not be kept"}, true
}

func doctorResult(env *cliEnv, dataDir string, checks []check) (*result, error) {
	failed := 0
	for _, c := range checks {
		if c.Status == "fail" {
			failed++
		}
	}
	show := func(w io.Writer) {
		for _, c := range checks {
			fmt.Fprintf(w, "%-4s  %-24s %s\n", c.Status, c.Name, c.Message)
			if c.Hint != "" && c.Status != "ok" {
				fmt.Fprintf(w, "      %-24s hint: %s\n", "", c.Hint)
			}
		}
	}
	if failed > 0 {
		if env.format == "text" {
			show(redact.Writer(env.stderr))
		}
		return nil, &cliError{Type: "io", Message: fmt.Sprintf("%d of %d checks failed", failed, len(checks)),
			Hint: "See the hints of the failed checks", Detail: map[string]any{"checks": checks, "data_dir": dataDir}}
	}
	return &result{data: map[string]any{"healthy": true, "data_dir": dataDir, "checks": checks}, count: countOf(len(checks)), text: show}, nil
}

// probeEmbedder embeds one text, as a write would: an engine that does not
// answer, or answers with vectors of another length than the one declared,
// fails here rather than at the first memory stored.
func probeEmbedder(ctx context.Context, e embed.Embedder) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	vs, err := e.Embed(ctx, []string{"loci doctor"})
	if err != nil {
		return err
	}
	if len(vs) != 1 || len(vs[0]) != e.Dim() || e.Dim() == 0 {
		n := 0
		if len(vs) == 1 {
			n = len(vs[0])
		}
		return fmt.Errorf("embedder %s made a %d-dimension vector, but declares %d dimensions", e.ID(), n, e.Dim())
	}
	return nil
}

// promptsNote says which prompts an embedder sends before searches and
// stored texts ("; searches after \"search_query: \", …"), or nothing when
// it sends none.
// embedderScales says where the embedder places its cosines: between
// unrelated texts, which the faces' cosine floors are carried on, and
// between a text and its restatement, which the dreamer's near-duplicate
// threshold is carried on (palace/embed/README.md, "Cosine scales").
// A built-in encoder's are known; another's are measured (256 short texts sent to
// the engine). An embedder whose restatements do not score at least two
// standard deviations above unrelated texts cannot tell them apart: a
// wrong model, or one that returns noise.
func embedderScales(ctx context.Context, e embed.Embedder) (string, error) {
	how := "known"
	strangers, ok := embed.KnownScale(e.ID())
	restated, ok2 := embed.KnownRestatements(e.ID())
	if !ok || !ok2 {
		how = "measured now"
		var err error
		if strangers, err = embed.MeasureScale(ctx, e); err != nil {
			return "", err
		}
		if restated, err = embed.MeasureRestatements(ctx, e); err != nil {
			return "", err
		}
	}
	msg := fmt.Sprintf("cosines of unrelated texts %.3f ± %.3f, of restatements %.3f ± %.3f (%s)",
		strangers.Mean, strangers.SD, restated.Mean, restated.SD, how)
	if restated.Mean < strangers.Mean+2*strangers.SD {
		return "", fmt.Errorf("%s: restatements score within two standard deviations of unrelated texts: this model does not tell a text restated from an unrelated one", msg)
	}
	return msg, nil
}

func promptsNote(e embed.Embedder) string {
	pe, ok := e.(interface{ Prompts() embed.Prompts })
	if !ok {
		return ""
	}
	p := pe.Prompts()
	var parts []string
	for _, side := range []struct{ what, prompt string }{{"searches", p.Query}, {"stored texts", p.Document}} {
		if side.prompt != "" {
			parts = append(parts, fmt.Sprintf("%s after %q", side.what, side.prompt))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
}
