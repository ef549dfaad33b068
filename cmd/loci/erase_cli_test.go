package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/palacetest"
	"github.com/loci-mem/loci/palace/session"
	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
)

// `loci forget --purge` and `loci scrub`, as real processes, on a SQLite
// data dir and on a team palace in PostgreSQL: a purged memory is gone
// from recall, from an export and from every file of the data dir; a
// second purge, a purge without an ID and a scrub with an argument are
// errors in the envelope's contract; a scrub of a palace stored by this
// release finds nothing to change, and one of a memory an older release
// stored as written redacts it, which doctor pointed out. `loci kg purge`
// takes a fact's whole timeline off the disk in the same way.
func TestPurgeAndScrubCLI(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			env := append([]string{}, cliEnvVars...)
			if backend == "postgres" {
				env = append(env, "LOCI_STORE="+pgtest.URL(t))
			}
			run := func(args ...string) (cliEnvelope, string, int) {
				t.Helper()
				stdout, stderr, code := runLociOnce(t, home, env, "", append(args, "--palace", "p", "--format", "json")...)
				var e cliEnvelope
				if err := json.Unmarshal([]byte(stdout), &e); err != nil {
					t.Fatalf("loci %v: %v\nstdout %s\nstderr %s", args, err, stdout, stderr)
				}
				if e.OK != (code == 0) || (code != 0 && (e.Error == nil || e.Error.Hint == "")) {
					t.Fatalf("loci %v: exit %d with %s", args, code, stdout)
				}
				return e, stdout, code
			}
			export := func() string {
				t.Helper()
				stdout, stderr, code := runLociOnce(t, home, env, "", "export", "--palace", "p")
				if code != 0 {
					t.Fatalf("export: exit %d: %s", code, stderr)
				}
				return stdout
			}
			const marker = "quokkazanzibar"
			if _, _, code := run("palace", "create", "p"); code != 0 {
				t.Fatal("palace create failed")
			}
			for _, text := range []string{"the cabin wifi key is " + marker + " on the fridge", "the garden gate code changed in May"} {
				if e, _, code := run("remember", text); code != 0 || e.Data["outcome"] == nil {
					t.Fatalf("remember: %d %v", code, e.Data)
				}
			}
			if out := export(); !strings.Contains(out, marker) {
				t.Fatal("the memory is not in the export before the purge: the checks below could not fail")
			}
			e, out, code := run("forget", "--purge", "mem-0001")
			if code != 0 || e.Data["drawer_id"] == "" || e.Data["history_rows"] == nil {
				t.Fatalf("purge: %s", out)
			}
			if got := e.Data["reclaimed"]; got != (backend == "sqlite") {
				t.Errorf("reclaimed = %v on %s", got, backend)
			}
			if e, _, code := run("forget", "--purge", "mem-0001"); code == 0 || e.Error.Type != "not_found" {
				t.Errorf("a second purge: exit %d, %+v", code, e.Error)
			}
			if e, _, code := run("forget", "--purge"); code == 0 || e.Error.Type != "invalid_args" {
				t.Errorf("a purge without an ID: exit %d, %+v", code, e.Error)
			}
			if out := export(); strings.Contains(out, marker) || !strings.Contains(out, "garden gate") {
				t.Errorf("the export after the purge: %s", out)
			}
			if _, out, _ := run("review", "list", "--status", "all"); strings.Contains(out, marker) {
				t.Errorf("the review list shows the purged text: %s", out)
			}
			for _, dry := range []bool{true, false} {
				args := []string{"scrub"}
				if dry {
					args = append(args, "--dry-run")
				}
				e, out, code := run(args...)
				if code != 0 || e.Data["drawers"] != float64(2) || e.Data["drawers_changed"] != float64(0) || e.Data["dry_run"] != dry {
					t.Errorf("loci %v: %s", args, out)
				}
			}
			if e, _, code := run("scrub", "extra"); code == 0 || e.Error.Type != "invalid_args" {
				t.Errorf("scrub with an argument: exit %d", code)
			}
			if backend == "sqlite" {
				// A memory as an older release stored it, before a rule
				// caught weak passwords: doctor says so (without the
				// secret), scrub redacts it, and doctor is content.
				const weak = "marmalade77"
				db, err := sql.Open("sqlite3", filepath.Join(home, "palaces", "p", "palace.db"))
				if err != nil {
					t.Fatal(err)
				}
				_, err = db.Exec(`UPDATE drawers SET content = ? WHERE content LIKE '%garden gate%'`, "the garden gate code changed in May; DB_PASS="+weak)
				db.Close()
				if err != nil {
					t.Fatal(err)
				}
				secretsCheck := func() (found bool) {
					t.Helper()
					_, out, _ := run("doctor")
					if strings.Contains(out, weak) {
						t.Errorf("doctor printed the secret: %s", out)
					}
					return strings.Contains(out, `"palace p secrets"`) && strings.Contains(out, "loci scrub --palace p")
				}
				if !secretsCheck() {
					t.Error("doctor does not warn of a secret stored by an older release")
				}
				if e, out, code := run("scrub"); code != 0 || e.Data["drawers_changed"] != float64(1) {
					t.Errorf("scrub of the older memory: %s", out)
				}
				if secretsCheck() {
					t.Error("doctor still warns after the scrub")
				}
				if out := export(); strings.Contains(out, weak) || !strings.Contains(out, "DB_PASS=[REDACTED]") {
					t.Errorf("the export after the scrub: %s", out)
				}
			}
			// A knowledge-graph fact: its whole timeline goes, and the
			// log's details that named it; the subject's other fact stays.
			const oldKey, newKey = "wombatkey41", "wombatkey42"
			for _, tr := range [][3]string{{"cabin", "alarm_code", oldKey}, {"cabin", "alarm_code", newKey}, {"cabin", "caretaker", "ana"}} {
				if _, out, code := run("kg", "assert", tr[0], tr[1], tr[2]); code != 0 {
					t.Fatalf("kg assert %v: %s", tr, out)
				}
			}
			if out := export(); !strings.Contains(out, oldKey) || !strings.Contains(out, newKey) {
				t.Fatal("the facts are not in the export before the purge: the checks below could not fail")
			}
			e, out, code = run("kg", "purge", "cabin", "alarm_code")
			if code != 0 || e.Data["purged"] != float64(2) || e.Data["events"] != float64(2) || e.Data["predicate"] != "alarm_code" ||
				strings.Contains(out, oldKey) || strings.Contains(out, newKey) {
				t.Errorf("kg purge: exit %d: %s", code, out)
			}
			if e, _, code := run("kg", "purge", "cabin", "alarm_code"); code == 0 || e.Error.Type != "not_found" {
				t.Errorf("a second kg purge: exit %d, %+v", code, e.Error)
			}
			if e, _, code := run("kg", "purge"); code == 0 || e.Error.Type != "invalid_args" {
				t.Errorf("kg purge without a subject: exit %d, %+v", code, e.Error)
			}
			if _, out, _ := run("kg", "history", "cabin"); strings.Contains(out, "alarm_code") || !strings.Contains(out, "caretaker") {
				t.Errorf("the subject's history after the purge: %s", out)
			}
			if out := export(); strings.Contains(out, oldKey) || strings.Contains(out, newKey) || !strings.Contains(out, "caretaker") {
				t.Errorf("the export after the kg purge: %s", out)
			}
			for _, n := range []string{marker, "marmalade77", oldKey, newKey, "alarm_code"} {
				if held := palacetest.FilesHolding(t, home, n); len(held) > 0 {
					t.Errorf("files hold a purged or scrubbed text: %q", held)
				}
			}
		})
	}
}

// `loci forget --purge --session ID`, as a real process: the messages a
// conversation session buffered for extraction are counted by `loci
// stats` and erased from every file of the data dir; another session's
// stay; a second purge is not_found, and --session without --purge, or
// beside an ID, is invalid_args.
func TestPurgeMessagesCLI(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	const said = "quokkazanzibar"
	run := func(args ...string) (cliEnvelope, int) {
		t.Helper()
		stdout, stderr, code := runLociOnce(t, home, cliEnvVars, "", append(args, "--palace", "p", "--format", "json")...)
		var e cliEnvelope
		if err := json.Unmarshal([]byte(stdout), &e); err != nil {
			t.Fatalf("loci %v: %v\nstdout %s\nstderr %s", args, err, stdout, stderr)
		}
		return e, code
	}
	if _, code := run("palace", "create", "p"); code != 0 {
		t.Fatal("palace create failed")
	}
	withPalace(t, home, "p", func(p *palace.Palace) {
		ctx := context.Background()
		for sid, text := range map[string]string{"s-1": "my locker code is " + said, "s-2": "the garden gate is green"} {
			msgs := []extract.Message{{Role: "user", SenderID: "ann", Text: text, Timestamp: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}}
			if _, err := session.Of(p).Append(ctx, sid, msgs, session.Options{}); err != nil {
				t.Fatal(err)
			}
		}
	})
	if e, code := run("stats"); code != 0 || fmt.Sprint(e.Data["buffered_messages"]) != "map[s-1:1 s-2:1]" {
		t.Errorf("stats: exit %d, buffered %v", code, e.Data["buffered_messages"])
	}
	if held := palacetest.FilesHolding(t, home, said); len(held) == 0 {
		t.Fatal("no file holds the buffered message before the purge: the check below could not fail")
	}
	if e, code := run("forget", "--session", "s-1"); code != 2 || e.Error.Type != "invalid_args" {
		t.Errorf("--session without --purge: exit %d, %+v", code, e.Error)
	}
	if e, code := run("forget", "--purge", "--session", "s-1", "mem-0001"); code != 2 || e.Error.Type != "invalid_args" {
		t.Errorf("--session beside an ID: exit %d, %+v", code, e.Error)
	}
	if e, code := run("forget", "--purge", "--session", "s-1"); code != 0 || e.Data["messages"] != float64(1) || e.Data["session_id"] != "s-1" || e.Data["reclaimed"] != true || e.Data["debug_log"] != nil {
		t.Errorf("purge: exit %d, %v", code, e.Data)
	}
	// With the hooks' debug log on disk (LOCI_DEBUG=1), which no erasure
	// rewrites, the result names it and the text says to delete it.
	debugLog := filepath.Join(home, "logs", "hooks.log")
	if err := os.MkdirAll(filepath.Dir(debugLog), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(debugLog, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if e, code := run("forget", "--purge", "--session", "s-2"); code != 0 || e.Data["debug_log"] != debugLog {
		t.Errorf("purge beside a debug log: exit %d, %v", code, e.Data)
	}
	if _, code := run("kg", "assert", "cabin", "alarm_code", "1234"); code != 0 {
		t.Fatal("kg assert failed")
	}
	if stdout, _, code := runLociOnce(t, home, cliEnvVars, "", "kg", "purge", "cabin", "--palace", "p", "--format", "text"); code != 0 ||
		!strings.Contains(stdout, "delete "+debugLog) {
		t.Errorf("kg purge beside a debug log: exit %d, %s", code, stdout)
	}
	if held := palacetest.FilesHolding(t, home, said); len(held) > 0 {
		t.Errorf("files still hold the purged message: %q", held)
	}
	if e, code := run("forget", "--purge", "--session", "s-1"); code != 1 || e.Error.Type != "not_found" || !strings.Contains(e.Error.Hint, "loci stats") {
		t.Errorf("a second purge: exit %d, %+v", code, e.Error)
	}
	if e, _ := run("stats"); fmt.Sprint(e.Data["buffered_messages"]) != "map[]" {
		t.Errorf("stats after the purges: buffered %v", e.Data["buffered_messages"])
	}
}
