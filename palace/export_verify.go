package palace

import (
	"context"
	"strings"
)

// IntegrityReport is what CheckIntegrity found.
type IntegrityReport struct {
	// SQLite is "ok" or the problems PRAGMA quick_check listed.
	SQLite string `json:"sqlite"`
	// FTS is "ok" or why the full-text index disagrees with the drawers
	// (repair: RebuildFTS).
	FTS string `json:"fts"`
	// Migrations counts the schema migrations applied.
	Migrations int `json:"migrations"`
	// Index is the vector index's health.
	Index IndexHealth `json:"index"`
}

// OK reports whether the store and its indexes are sound.
func (r IntegrityReport) OK() bool { return r.SQLite == "ok" && r.FTS == "ok" }

// CheckIntegrity checks the palace file (SQLite quick_check), the
// full-text index against the drawers, and the vector index. It changes
// nothing but the in-memory vector index's catch-up. Run it before an
// export you mean to keep, after an import, or from `loci doctor`.
func (p *Palace) CheckIntegrity(ctx context.Context) (IntegrityReport, error) {
	var r IntegrityReport
	rows, err := p.db.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return r, internal("quick_check", err)
	}
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			rows.Close()
			return r, internal("quick_check", err)
		}
		msgs = append(msgs, m)
	}
	rows.Close()
	r.SQLite = strings.Join(msgs, "; ")
	r.FTS = "ok"
	if _, err := p.db.ExecContext(ctx, `INSERT INTO drawers_fts(drawers_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		r.FTS = err.Error()
	}
	if err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&r.Migrations); err != nil {
		return r, internal("count migrations", err)
	}
	if r.Index, err = p.IndexHealth(ctx); err != nil {
		return r, err
	}
	return r, nil
}

// RebuildFTS rebuilds the full-text index from the drawers.
func (p *Palace) RebuildFTS(ctx context.Context) error {
	_, err := p.db.ExecContext(ctx, `INSERT INTO drawers_fts(drawers_fts) VALUES ('rebuild')`)
	return internal("rebuild full-text index", err)
}
