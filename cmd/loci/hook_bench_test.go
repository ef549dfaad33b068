//go:build hookbench

package main

// The prompt-submit figure: wall-clock time of `loci hook prompt-submit`
// (a real process per call, as Claude Code runs it) on a 10,000-drawer
// project palace. Not part of `make test`. Run:
//
//	go test -tags hookbench -run '^$' -bench BenchmarkPromptSubmitFigure -benchtime 1x -v -timeout 30m ./cmd/loci
//
// LOCI_BENCH_DRAWERS (default 10000) and LOCI_BENCH_CALLS (default 300)
// change the size and the number of calls; LOCI_EMBEDDER picks the embedder
// as for loci itself; LOCI_BENCH_HOME keeps the seeded data dir there (an
// empty directory) instead of a temporary one. Wall-clock times depend on
// the machine's load, so the CPU time of each process is reported too.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

var hookBenchWords = strings.Fields(`auth token gateway jwt session cookie redis cache ttl postgres migration
schema index query deploy release rollback docker image registry kubernetes pod helm chart ingress
latency p99 metric alert dashboard prometheus grafana trace span logging retry backoff timeout queue
kafka consumer producer partition offset billing invoice stripe webhook refund tenant quota rate limit
frontend react vite component hook state router test flaky ci pipeline lint format build cache module
parser lexer config yaml json toml flag env secret vault rotation certificate tls proxy nginx`)

func benchSentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = hookBenchWords[r.Intn(len(hookBenchWords))]
	}
	return strings.Join(w, " ")
}

func hookPercentile(ds []time.Duration, q float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1))]
}

func envInt(key string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(key)); err == nil && n > 0 {
		return n
	}
	return def
}

func figurePromptSubmitFigure(t testing.TB) {
	drawers, calls := envInt("LOCI_BENCH_DRAWERS", 10000), envInt("LOCI_BENCH_CALLS", 300)
	home := t.TempDir()
	if d := os.Getenv("LOCI_BENCH_HOME"); d != "" { // keep the palace to inspect it
		home = d
	}
	repo, reg, p := projectPalace(t, home)
	ctx := context.Background()
	r := rand.New(rand.NewSource(7))
	fallbacks := 0
	start := time.Now()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for done := 0; done < drawers; {
		batch := make([]*palace.Drawer, 0, 500)
		for i := 0; i < 500 && done < drawers; i++ {
			text := "User: " + benchSentence(r, 8+r.Intn(12)) + "\n\nAssistant: " + benchSentence(r, 40+r.Intn(80))
			batch = append(batch, &palace.Drawer{Kind: palace.KindTurn, Content: text,
				SessionID: fmt.Sprintf("s%03d", done%200), Timestamp: base.Add(time.Duration(done) * time.Minute)})
			done++
		}
		if err := p.AddMany(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seeded %d turn drawers in %v", drawers, time.Since(start))
	reg.Close()

	// run times one hook process: wall clock, and CPU (user+system), which
	// shows how much of the wall clock is the machine's other load.
	run := func(prompt string) (wall, cpu time.Duration, out string) {
		in, _ := json.Marshal(map[string]any{"session_id": "bench", "transcript_path": "", "cwd": repo,
			"hook_event_name": "UserPromptSubmit", "prompt": prompt})
		cmd := exec.Command(os.Args[0], "hook", "prompt-submit")
		cmd.Env = append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+home)
		cmd.Stdin = bytes.NewReader(in)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		t0 := time.Now()
		err := cmd.Run()
		wall = time.Since(t0)
		if err != nil || !json.Valid(stdout.Bytes()) {
			t.Fatalf("%v: stdout %q stderr %s", err, stdout.String(), stderr.String())
		}
		if strings.Contains(stderr.String(), "keyword search alone") || strings.Contains(stderr.String(), "ran out of time") {
			fallbacks++
		}
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), stdout.String()
	}
	cold, _, _ := run(benchSentence(r, 10))
	t.Logf("first call: %v", cold)

	var walls, cpus []time.Duration
	recalled := 0
	for i := 0; i < calls; i++ {
		w, c, out := run(benchSentence(r, 5+r.Intn(15)))
		walls, cpus = append(walls, w), append(cpus, c)
		if strings.Contains(out, "additionalContext") {
			recalled++
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("prompt-submit on %d drawers, %d calls (a process each): wall p50 %v  p90 %v  p99 %v  max %v; "+
		"CPU p50 %v  p99 %v; %d calls injected memories, %d fell back to keywords or ran out of time; load average %s",
		drawers, calls, hookPercentile(walls, 0.5), hookPercentile(walls, 0.9), hookPercentile(walls, 0.99), hookPercentile(walls, 1),
		hookPercentile(cpus, 0.5), hookPercentile(cpus, 0.99), recalled, fallbacks, strings.TrimSpace(string(load)))
	ds := walls
	if p99 := hookPercentile(ds, 0.99); p99 > time.Second {
		t.Errorf("p99 %v exceeds the 1 s budget", p99)
	}
}

// BenchmarkPromptSubmitFigure runs figurePromptSubmitFigure once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkPromptSubmitFigure(b *testing.B) {
	for range b.N {
		figurePromptSubmitFigure(b)
	}
}
