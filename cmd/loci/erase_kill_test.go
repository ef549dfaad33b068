package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// `loci forget --purge`, `loci kg purge` and `loci scrub`, killed with SIGKILL at moments
// spread over the time an uninterrupted run takes, then run again to the
// end: afterwards no file of the data dir holds what they erase (the
// index snapshots and SQLite's log included), and every other memory is
// still there. A purge killed after it committed is not found the second
// time, and must still have finished.
func TestErasureKilledAndRunAgain(t *testing.T) {
	t.Parallel()
	const (
		marker = "quokkazanzibar" // the memory a purge erases
		weak   = "marmalade77"    // a password an older release stored as written
		alarm  = "pelicanhalyard" // a knowledge-graph fact's object
		others = 1100             // enough drawers that both indexes keep snapshots
		rounds = 24               // kills per command
	)
	template := t.TempDir()
	var target string
	func() {
		ctx := context.Background()
		reg, err := palace.OpenRegistry(palace.Config{DataDir: template})
		if err != nil {
			t.Fatal(err)
		}
		defer reg.Close()
		p, err := reg.OpenOrCreate(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		var ds []*palace.Drawer
		for i := range others {
			ds = append(ds, &palace.Drawer{Content: fmt.Sprintf("garden note %d about tomatoes and basil row %d", i, i%37)})
		}
		ds = append(ds, &palace.Drawer{Content: "the cabin wifi key is " + marker + " written on the fridge"},
			&palace.Drawer{Content: "the staging database password is in the vault"})
		if err := p.AddMany(ctx, ds); err != nil {
			t.Fatal(err)
		}
		target = ds[others].ID
		for _, obj := range []string{alarm, alarm + "2"} { // a timeline of two
			if _, err := p.KG().Assert(ctx, kg.Assertion{Subject: "cabin", Predicate: "alarm_code", Object: obj}); err != nil {
				t.Fatal(err)
			}
		}
		// The last memory as an older release stored it, before a rule
		// caught weak passwords; its indexes built from that text.
		db, err := sql.Open("sqlite3", filepath.Join(template, "palaces", "p", "palace.db"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.Exec(`UPDATE drawers SET content = ? WHERE id = ?`, "staging database: DB_PASS="+weak, ds[others+1].ID)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Search(ctx, palace.SearchRequest{Query: "garden", K: 1, NoAccess: true}); err != nil {
			t.Fatal(err)
		}
		if err := p.SaveIndex(ctx); err != nil {
			t.Fatal(err)
		}
	}()
	if held := palacetest.FilesHolding(t, template, marker, weak, alarm); len(held) < 3 {
		t.Fatalf("the snapshots do not hold the texts before the erasures (%q): the checks below could not fail", held)
	}
	command := map[string][]string{
		"purge": {"forget", "--purge", target, "--palace", "p", "--format", "json"},
		"kg":    {"kg", "purge", "cabin", "--palace", "p", "--format", "json"},
		"scrub": {"scrub", "--palace", "p", "--format", "json"},
	}
	needle := map[string]string{"purge": marker, "kg": alarm, "scrub": weak}
	for _, name := range []string{"purge", "kg", "scrub"} {
		t.Run(name, func(t *testing.T) {
			args := command[name]
			start := func(home string) *exec.Cmd {
				cmd := exec.Command(os.Args[0], args...)
				cmd.Env = append(append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+home), cliEnvVars...)
				cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				return cmd
			}
			// How long an uninterrupted run takes, on a copy of its own.
			home := copyHome(t, template)
			began := time.Now()
			if err := start(home).Wait(); err != nil {
				t.Fatalf("loci %v: %v", args, err)
			}
			whole := time.Since(began)
			finishedFirst, committed := 0, 0
			for round := range rounds {
				home := copyHome(t, template)
				cmd := start(home)
				time.Sleep(whole * time.Duration(round) / rounds)
				cmd.Process.Signal(syscall.SIGKILL)
				if cmd.Wait() == nil {
					finishedFirst++
				}
				stdout, stderr, code := runLociOnce(t, home, cliEnvVars, "", args...)
				var e cliEnvelope
				if err := json.Unmarshal([]byte(stdout), &e); err != nil {
					t.Fatalf("round %d: run again: %v\nstdout %s\nstderr %s", round, err, stdout, stderr)
				}
				if code != 0 && (name == "scrub" || e.Error == nil || e.Error.Type != "not_found") {
					t.Errorf("round %d: run again: exit %d, %s", round, code, stdout)
				}
				if held := palacetest.FilesHolding(t, home, needle[name]); len(held) > 0 {
					t.Errorf("round %d (killed after %v of %v): files hold the erased text: %q", round, whole*time.Duration(round)/rounds, whole, held)
				}
				if code != 0 {
					committed++ // the purge killed had committed
				}
				want := int64(others + 2)
				if name == "purge" {
					want--
				}
				withPalace(t, home, "p", func(p *palace.Palace) {
					if n, err := p.Count(context.Background(), palace.Filter{}); err != nil || n != want {
						t.Errorf("round %d: %d active memories (%v), want %d", round, n, err, want)
					}
				})
			}
			t.Logf("%s: %d rounds killed over %v, %d of them finished before the kill", name, rounds, whole, finishedFirst)
			if name != "scrub" {
				t.Logf("%s: %d of the rounds killed had committed (not found when run again)", name, committed)
			}
		})
	}
}

// copyHome copies the data dir src to a new temporary directory.
func copyHome(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
