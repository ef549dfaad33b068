package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/loci-mem/loci/cmd/loci/loadbench"
	"github.com/loci-mem/loci/palace"
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
	reg, err := openRegistry(homeFlags{dataDir: dir}, zerolog.Nop(), nil)
	if err != nil {
		return nil, &cliError{Type: "io", Message: err.Error()}
	}
	defer reg.Close()
	r, err := loadbench.RunHTTP(ctx, loadbench.HTTPConfig{Registry: reg, Version: version, Logger: newLogger(env.stderr),
		Status: func(format string, a ...any) { statusf(env, "loci bench http: "+format, a...) }, Profile: os.Getenv("LOCI_BENCH_PROFILE"),
		Episodes: *episodes, Clients: *clients, Duration: *duration, Writer: *writer, FlushEvery: *flushEvery, TopK: *topK, Method: *method})
	if err != nil {
		var pe *palace.Error
		if errors.As(err, &pe) || errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, &cliError{Type: "internal", Message: err.Error()}
	}
	return &result{data: r, text: r.WriteText}, nil
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
