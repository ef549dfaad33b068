package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-mem/loci/cmd/loci/locomo"
)

// `loci bench scale` builds a small palace, measures real `loci serve`
// processes over stdio and says which corpus its figures come from: LoCoMo
// when it is found, and generated sentences otherwise, which it also says
// on stderr (their figures are not comparable with LoCoMo's). Measured
// again, the palace is reused and its recall check agrees.
func TestBenchScaleNamesItsCorpus(t *testing.T) {
	t.Parallel()
	data := locomo.DefaultDataPath()
	if _, err := os.Stat(data); err != nil {
		t.Fatalf("LoCoMo is not at %s: %v", data, err)
	}
	run := func(t *testing.T, locomoPath, dir string) (scaleFigures, string) {
		cmd := exec.Command(os.Args[0], "bench", "scale", "--drawers", "1500", "--queries", "20", "--recall-queries", "20",
			"--dir", dir, "--format", "json")
		cmd.Env = append(append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+t.TempDir(), "LOCI_LOCOMO="+locomoPath), cliEnvVars...)
		var stdout, stderr syncBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("bench scale: %v\nstdout %s\nstderr %s", err, stdout.String(), tail(stderr.String(), 800))
		}
		var env struct {
			OK   bool `json:"ok"`
			Data struct {
				Sizes []scaleFigures `json:"sizes"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(stdout.String()), &env); err != nil || !env.OK || len(env.Data.Sizes) != 1 {
			t.Fatalf("envelope %s (%v)", stdout.String(), err)
		}
		f := env.Data.Sizes[0]
		if f.Drawers != 1500 || f.Queries != 20 || f.RecallP50MS <= 0 || f.RecallP99MS < f.RecallP50MS ||
			f.ApproxRecallAt10 <= 0 || f.ApproxRecallAt10 > 1 || f.RSSMB <= 0 || f.IndexKind == "" {
			t.Fatalf("figures %+v", f)
		}
		return f, stderr.String()
	}
	t.Run("locomo", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		f, stderr := run(t, data, dir)
		if f.Corpus != "locomo" || f.Reused || strings.Contains(stderr, "LoCoMo not found") {
			t.Fatalf("with LoCoMo: corpus %q, reused %v\n%s", f.Corpus, f.Reused, tail(stderr, 500))
		}
		again, _ := run(t, data, dir)
		if !again.Reused || again.Corpus != "locomo" || again.ApproxRecallAt10 != f.ApproxRecallAt10 {
			t.Fatalf("measured again: %+v, first %+v", again, f)
		}
	})
	t.Run("generated", func(t *testing.T) {
		t.Parallel()
		f, stderr := run(t, filepath.Join(t.TempDir(), "absent.json"), t.TempDir())
		if f.Corpus != "generated" || !strings.Contains(stderr, "LoCoMo not found") {
			t.Fatalf("without LoCoMo: corpus %q\n%s", f.Corpus, tail(stderr, 500))
		}
	})
}
