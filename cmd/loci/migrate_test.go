package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
)

// `loci migrate` moves a palace written by real loci processes from a
// SQLite data dir to PostgreSQL and back, verified by equal exports; the
// copy answers recall through the store it landed in.
func TestMigrateSQLiteToPostgresAndBack(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := pgtest.URL(t)
	p := startLoci(t, home, nil, "serve", "--palace", "proj")
	p.initialize()
	var rem struct {
		DrawerID string `json:"drawer_id"`
	}
	for _, text := range []string{
		"The billing service retries webhooks three times with exponential backoff",
		"Staging deploys need the VPN profile named blue-staging",
		"Our on-call rotation hands over on Mondays at 10:00 Oslo time",
	} {
		p.tool("memory_remember", map[string]any{"text": text}, &rem)
	}
	p.tool("kg_assert", map[string]any{"subject": "billing-service", "predicate": "owner", "object": "team-payments"}, nil)
	p.tool("memory_forget", map[string]any{"drawer_id": rem.DrawerID}, nil) // an undo token and a deleted drawer
	if code := p.closeAndWait(10 * time.Second); code != 0 {
		t.Fatalf("serve exit %d", code)
	}

	o := runCLI(t, home, "json", "migrate", "--from", home, "--to", url)
	if o.code != 0 {
		t.Fatalf("migrate to PostgreSQL: %d %s %s", o.code, o.stdout, o.stderr)
	}
	done := o.env.Data["palaces"].([]any)[0].(map[string]any)
	if done["palace"] != "proj" || done["verified"] != true || done["rows"].(map[string]any)["drawers"] != 3.0 {
		t.Fatalf("migrate result: %v", o.env.Data)
	}
	// The copy is the palace: found through the PostgreSQL store.
	o = runCLI(t, t.TempDir(), "json", "recall", "webhook retries backoff", "--all", "--palace", "proj", "--store", url)
	if o.code != 0 || !strings.Contains(o.stdout, "exponential backoff") {
		t.Fatalf("recall through PostgreSQL: %d %s %s", o.code, o.stdout, o.stderr)
	}
	// (The recall counted an access, so the palace's export changed.)
	back := filepath.Join(t.TempDir(), "back")
	o = runCLI(t, home, "json", "migrate", "--from", url, "--to", back, "--palace", "proj")
	if o.code != 0 || o.env.Data["palaces"].([]any)[0].(map[string]any)["verified"] != true {
		t.Fatalf("migrate back to SQLite: %d %s %s", o.code, o.stdout, o.stderr)
	}
	// A second migration into the same store finds the palace there.
	o = runCLI(t, home, "json", "migrate", "--from", home, "--to", url)
	if o.code != 1 || o.env.Error == nil || o.env.Error.Type != "conflict" {
		t.Fatalf("second migrate: %d %s", o.code, o.stdout)
	}
	for _, args := range [][]string{
		{"migrate", "--from", home},
		{"migrate", "--from", home, "--to", home},
		{"migrate", "--from", home, "--to", "mysql://x@y/z"},
	} {
		if o := runCLI(t, home, "json", args...); o.code != 2 || o.env.Error == nil || o.env.Error.Type != "invalid_args" {
			t.Errorf("%v: %d %s", args, o.code, o.stdout)
		}
	}
	if o := runCLI(t, home, "json", "migrate", "--from", home, "--to", back, "--palace", "nope"); o.code != 1 || o.env.Error.Type != "not_found" {
		t.Errorf("unknown palace: %d %s", o.code, o.stdout)
	}
}

// A destination palace that exists but cannot be opened (here its
// database path is a directory) is an io error naming it, not a crash:
// the error of opening it was once dropped by a shadowed variable and the
// copy went on into a nil store.
func TestMigrateIntoAnUnusablePalace(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if o := runCLI(t, home, "json", "remember", "a note to migrate", "--palace", "proj"); o.code != 0 {
		t.Fatalf("remember: %d %s %s", o.code, o.stdout, o.stderr)
	}
	dst := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dst, "palaces", "proj", "palace.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	o := runCLI(t, home, "json", "migrate", "--from", home, "--to", dst)
	if o.code != 5 || o.env.Error == nil || o.env.Error.Type != "io" || !strings.Contains(o.env.Error.Message, "open the destination palace proj") {
		t.Fatalf("migrate into an unusable palace: exit %d, %s %s", o.code, o.stdout, o.stderr)
	}
}
