package postgres

import (
	"context"
	"database/sql"
	neturl "net/url"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
)

// A server folds every letter where it can, and A to Z alone where it
// cannot, whatever its collations and the database's encoding; it never
// fails to open for it.
func TestFoldCollationFound(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// The other databases are made beside the test's, named after it.
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	dbWith := func(suffix, options string) *sql.DB {
		t.Helper()
		if _, err := admin.Exec(`CREATE DATABASE ` + name + suffix + ` TEMPLATE template0 ` + options); err != nil {
			t.Fatalf("create database %s: %v", suffix, err)
		}
		other := *u
		other.Path = "/" + name + suffix
		db, err := sql.Open("pgx", other.String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	utf8C := dbWith("_c", `ENCODING 'UTF8' LOCALE 'C'`)
	utf8Locale := dbWith("_cutf8", `ENCODING 'UTF8' LOCALE 'C.UTF-8'`)
	latin1 := dbWith("_latin1", `ENCODING 'LATIN1' LOCALE 'C'`)
	const icu, missing = ` COLLATE "und-x-icu"`, ` COLLATE "no-such-collation"`
	for _, c := range []struct {
		name       string
		db         *sql.DB
		collations []string
		want       dialect
	}{
		{"ICU's root", utf8C, []string{icu, ""}, dialect{unicodeFold: true, foldWith: icu}},
		{"no ICU, a C database", utf8C, []string{missing, ""}, dialect{}},
		{"no ICU, a database in a UTF-8 locale", utf8Locale, []string{missing, ""}, dialect{unicodeFold: true}},
		{"a LATIN1 database, which has no Σ", latin1, []string{missing, ""}, dialect{}},
	} {
		got, err := foldFirst(ctx, c.db, c.collations...)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
		if !got.unicodeFold {
			continue
		}
		// The dialect's own SQL finds a name typed in another case.
		var n int
		q := `SELECT count(*) FROM (VALUES ('Élodie'), ('НАТАША'), ('Cy')) AS v(s) WHERE ` + got.Fold("v.s") +
			` IN (` + got.Bind(got.FoldArg()) + `)`
		for _, typed := range []string{"élodie", "наташа", "CY"} {
			if err := c.db.QueryRowContext(ctx, q, typed).Scan(&n); err != nil || n != 1 {
				t.Errorf("%s: %q matched %d names (%v), want 1", c.name, typed, n, err)
			}
		}
	}
}
