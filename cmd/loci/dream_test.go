package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/palacetest"
)

// dupTexts are distinct memories; each is stored twice, the second time
// lightly changed.
var dupTexts = []string{
	"The deploy script lives in tools/deploy.sh and needs Go 1.22 on the build machine",
	"Remember that the VPN config lives in the shared drive under ops/vpn",
	"The user prefers dark mode in every editor and terminal window",
	"Postgres for staging listens on port 5432 behind pgbouncer",
}

// dreamPalace creates palace name under home with near-duplicate pairs.
func dreamPalace(t *testing.T, home, name string, pairs int) []string {
	t.Helper()
	ctx := context.Background()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: home})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	p, err := reg.OpenOrCreate(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < pairs; i++ {
		for _, s := range []string{dupTexts[i], strings.ToLower(dupTexts[i]) + "!"} {
			d := &palace.Drawer{Content: s}
			if err := p.Add(ctx, d); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// withPalace opens the palace in this process to inspect it.
func withPalace(t *testing.T, home, name string, fn func(p *palace.Palace)) {
	t.Helper()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: home})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	p, err := reg.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	fn(p)
}

// dreamCLI runs loci once and returns stdout, stderr and the exit code.
func dreamCLI(t *testing.T, home string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+home), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

type dreamEnvelope struct {
	OK    bool            `json:"ok"`
	Data  json.RawMessage `json:"data"`
	Error *cliError       `json:"error"`
}

func decodeEnvelope(t *testing.T, out string) dreamEnvelope {
	t.Helper()
	var e dreamEnvelope
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("stdout is not one JSON envelope: %v\n%s", err, out)
	}
	return e
}

func countStatus(t *testing.T, home, name, status string) int64 {
	t.Helper()
	var n int64
	withPalace(t, home, name, func(p *palace.Palace) {
		c, err := p.CountByStatus(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n = c[status]
	})
	return n
}

func TestDreamCLI(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dreamPalace(t, home, "dr", 2)

	out, _, code := dreamCLI(t, home, nil, "dream", "--palace", "dr", "--dry-run", "--format", "json")
	e := decodeEnvelope(t, out)
	if code != 0 || !e.OK || !strings.Contains(string(e.Data), `"dry_run":true`) {
		t.Fatalf("dry run: exit %d %s", code, out)
	}
	if n := countStatus(t, home, "dr", palace.StatusSuperseded); n != 0 {
		t.Fatalf("dry run superseded %d drawers", n)
	}

	out, _, code = dreamCLI(t, home, nil, "dream", "--palace", "dr", "--pass", "dedup,closets", "--format", "json")
	e = decodeEnvelope(t, out)
	var rep struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
		Passes []struct {
			Name   string            `json:"name"`
			Merges []json.RawMessage `json:"merges"`
		} `json:"passes"`
		After struct {
			ByStatus map[string]int `json:"by_status"`
		} `json:"after"`
	}
	if err := json.Unmarshal(e.Data, &rep); err != nil || code != 0 {
		t.Fatalf("run: exit %d %v %s", code, err, out)
	}
	if rep.RunID == "" || rep.Status != "done" || len(rep.Passes) != 2 || len(rep.Passes[0].Merges) != 2 ||
		rep.After.ByStatus["superseded"] != 2 {
		t.Fatalf("report %+v", rep)
	}

	out, _, code = dreamCLI(t, home, nil, "dream", "runs", "--palace", "dr", "--format", "json")
	if e = decodeEnvelope(t, out); code != 0 || !strings.Contains(string(e.Data), rep.RunID) {
		t.Fatalf("runs: %d %s", code, out)
	}
	out, _, code = dreamCLI(t, home, nil, "dream", "show", rep.RunID, "--palace", "dr", "--format", "json")
	if e = decodeEnvelope(t, out); code != 0 || !strings.Contains(string(e.Data), `"op":"supersede"`) {
		t.Fatalf("show: %d %s", code, out)
	}
	out, _, code = dreamCLI(t, home, nil, "dream", "undo", "--palace", "dr", "--format", "json")
	if e = decodeEnvelope(t, out); code != 0 || !strings.Contains(string(e.Data), `"restored":4`) {
		t.Fatalf("undo: %d %s", code, out)
	}
	if n := countStatus(t, home, "dr", palace.StatusSuperseded); n != 0 {
		t.Fatalf("after undo %d drawers still superseded", n)
	}
	out, _, code = dreamCLI(t, home, nil, "dream", "undo", rep.RunID, "--palace", "dr", "--format", "json")
	if e = decodeEnvelope(t, out); code != 1 || e.Error == nil || e.Error.Type != "conflict" {
		t.Fatalf("second undo: %d %s", code, out)
	}

	for _, c := range []struct {
		args []string
		code int
		typ  string
	}{
		{[]string{"dream", "--palace", "dr", "--pass", "nope"}, 2, "invalid_args"},
		{[]string{"dream", "sideways", "--palace", "dr"}, 2, "invalid_args"},
		{[]string{"dream", "--palace", "nowhere"}, 1, "not_found"},
		{[]string{"dream", "--palace", "../x"}, 2, "invalid_args"},
		{[]string{"dream", "show", "dr_nope", "--palace", "dr"}, 1, "not_found"},
		{[]string{"reembed", "--palace", "dr", "--batch", "0"}, 2, "invalid_args"},
	} {
		out, _, code := dreamCLI(t, home, nil, append(c.args, "--format", "json")...)
		e := decodeEnvelope(t, out)
		if code != c.code || e.OK || e.Error == nil || e.Error.Type != c.typ {
			t.Errorf("%v: exit %d %s, want %d %s", c.args, code, out, c.code, c.typ)
		}
	}
	out, errOut, code := dreamCLI(t, home, nil, "reembed", "--palace", "dr", "--format", "json")
	if e = decodeEnvelope(t, out); code != 0 || !strings.Contains(string(e.Data), `"reembedded":0`) ||
		strings.Contains(errOut, "reembed: ") { // progress only on a terminal
		t.Fatalf("reembed: %d %s %s", code, out, errOut)
	}
}

// TestDreamShutdownDuringLongPass: a signal or stdin EOF while a pass is
// halfway through its transaction stops the dreamer within 2 s and leaves
// the palace as it was before that pass.
func TestDreamShutdownDuringLongPass(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"SIGTERM", "SIGINT", "EOF"} {
		t.Run(how, func(t *testing.T) {
			home := t.TempDir()
			ids := dreamPalace(t, home, "long", 3)
			p := startLoci(t, home, []string{"LOCI_DREAM_IDLE=0", "LOCI_DREAM_TICK=20ms", "LOCI_DEBUG_DREAM_DELAY_MS=60000"},
				"serve", "--palace", "long")
			p.initialize()
			palacetest.WaitFor(t, 10*time.Second, "the dreamer to reach the middle of a pass", func() bool {
				return strings.Contains(p.stderr.String(), "dream pass applying (delayed)")
			})
			start := time.Now()
			switch how {
			case "SIGTERM":
				p.cmd.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				p.cmd.Process.Signal(syscall.SIGINT)
			default:
				p.stdin.Close()
			}
			if code := p.wait(3 * time.Second); code != 0 {
				t.Fatalf("exit code %d", code)
			}
			took := time.Since(start)
			t.Logf("exited %v after %s during a pass", took, how)
			if took > 2*time.Second {
				t.Fatalf("shutdown took %v, more than 2 s", took)
			}
			withPalace(t, home, "long", func(pl *palace.Palace) {
				ctx := context.Background()
				for _, id := range ids {
					d, err := pl.Get(ctx, id)
					if err != nil || d.Status != palace.StatusActive || d.Meta["merged_from"] != nil {
						t.Fatalf("drawer %s after shutdown: %+v %v", id, d, err)
					}
				}
				runs, err := dreamlog.Of(pl).Runs(ctx, 5)
				if err != nil || len(runs) != 1 || runs[0].Status != dreamlog.Cancelled || runs[0].Changes != 0 {
					t.Fatalf("runs %+v %v", runs, err)
				}
				if l, ok, _ := dreamlog.Of(pl).Holder(ctx); ok {
					t.Fatalf("lock still held by %s", l.Owner)
				}
			})
		})
	}
}

// TestDreamTwoProcessesNeverOverlap: passes on one palace never run in two
// processes at once; a second dreamer either waits or is told who holds
// the lock; a killed holder blocks others only until its lease expires.
func TestDreamTwoProcessesNeverOverlap(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dreamPalace(t, home, "both", 2)
	slow := []string{"LOCI_DEBUG_DREAM_PASS_DELAY_MS=80"}
	var wg sync.WaitGroup
	codes := make([]int, 3)
	outs := make([]string, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			outs[i], _, codes[i] = dreamCLI(t, home, slow, "dream", "--palace", "both", "--wait", "30s", "--format", "json")
		}(i)
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Fatalf("dreamer %d: exit %d %s", i, c, outs[i])
		}
	}
	withPalace(t, home, "both", func(p *palace.Palace) {
		runs, err := dreamlog.Of(p).Runs(context.Background(), 10)
		if err != nil || len(runs) != 3 {
			t.Fatalf("runs %d %v", len(runs), err)
		}
		for i := range runs {
			for j := i + 1; j < len(runs); j++ {
				a, b := runs[i], runs[j]
				if a.StartedAt.Before(b.FinishedAt) && b.StartedAt.Before(a.FinishedAt) {
					t.Fatalf("runs overlap: %s [%v, %v] and %s [%v, %v]", a.ID, a.StartedAt, a.FinishedAt,
						b.ID, b.StartedAt, b.FinishedAt)
				}
			}
		}
	})

	// A holder that is killed: others are refused until its lease ends,
	// then get the lock.
	holder := startLoci(t, home, []string{"LOCI_DEBUG_DREAM_PASS_DELAY_MS=60000", "LOCI_DREAM_LOCK_TTL=1s"},
		"dream", "--palace", "both", "--format", "json")
	palacetest.WaitFor(t, 10*time.Second, "the holder to take the lock", func() bool {
		held := false
		withPalace(t, home, "both", func(p *palace.Palace) {
			_, held, _ = dreamlog.Of(p).Holder(context.Background())
		})
		return held
	})
	out, _, code := dreamCLI(t, home, nil, "dream", "--palace", "both", "--format", "json")
	if e := decodeEnvelope(t, out); code != 1 || e.Error == nil || e.Error.Type != "conflict" {
		t.Fatalf("while held: exit %d %s", code, out)
	}
	holder.cmd.Process.Kill()
	<-holder.done
	start := time.Now()
	out, _, code = dreamCLI(t, home, nil, "dream", "--palace", "both", "--pass", "decay", "--wait", "10s", "--format", "json")
	if code != 0 {
		t.Fatalf("after the holder died: exit %d %s", code, out)
	}
	t.Logf("lock taken over %v after the holder was killed (lease 1 s)", time.Since(start))
	withPalace(t, home, "both", func(p *palace.Palace) {
		runs, _ := dreamlog.Of(p).Runs(context.Background(), 10)
		for _, r := range runs {
			if r.Status == dreamlog.Running {
				t.Fatalf("the killed holder's run %s is still recorded as running", r.ID)
			}
		}
	})
}
