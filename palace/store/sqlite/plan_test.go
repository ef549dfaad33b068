package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/store/sqlite"
)

// The drawer before or after one in its session (what a turn borrows, the
// neighbours a hit lifts) is found in the session index's order, not by
// reading and sorting the session: with a sort, each write of a turn cost
// time in proportion to its session's length. Checked on a new palace and
// on one an earlier release wrote, upgraded.
func TestSessionNeighboursNeedNoSort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fresh := t.TempDir()
	for name, dir := range map[string]string{"new": fresh, "compat": copyCompat(t)} {
		b, err := sqlite.Open(dir, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if name == "new" {
			st, err := b.Create(ctx, "new")
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
		} else {
			st, err := b.Open(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
		}
		raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "palaces", name, "palace.db"))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			// Previous (sqlstore's drawers.Previous)
			`SELECT d.rid FROM drawers d INDEXED BY drawers_session WHERE d.session_id = ? AND d.session_id <> '' AND d.ts <= ?
				AND d.status <> 'deleted' AND d.kind IN ('turn') ORDER BY d.ts DESC, d.rid DESC LIMIT 1`,
			// Adjacent, both ways (drawers.Adjacent)
			`SELECT d.rid FROM drawers d INDEXED BY drawers_session WHERE d.session_id = ? AND d.session_id <> '' AND d.status = 'active'
				AND d.kind IN ('turn') AND (d.ts < ? OR (d.ts = ? AND d.rid < ?)) ORDER BY d.ts DESC, d.rid DESC LIMIT 1`,
			`SELECT d.rid FROM drawers d INDEXED BY drawers_session WHERE d.session_id = ? AND d.session_id <> '' AND d.status = 'active'
				AND d.kind IN ('turn') AND (d.ts > ? OR (d.ts = ? AND d.rid > ?)) ORDER BY d.ts ASC, d.rid ASC LIMIT 1`,
		} {
			rows, err := raw.Query("EXPLAIN QUERY PLAN "+q, "s", 1, 1, 1)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			rows.Close()
			if p := strings.Join(plan, "; "); !strings.Contains(p, "drawers_session") || strings.Contains(p, "TEMP B-TREE") {
				t.Errorf("%s palace: the plan %q sorts the session", name, p)
			}
		}
		raw.Close()
	}
}
