package palace

import "context"

// IntegrityReport is what CheckIntegrity found.
type IntegrityReport struct {
	// Backend is where the palace is kept ("sqlite", "postgres").
	Backend string `json:"backend"`
	// Engine is "ok" or the problems the database's own check listed
	// (SQLite's quick_check).
	Engine string `json:"engine"`
	// Migrations counts the schema migrations applied.
	Migrations int `json:"migrations"`
	// Index is the vector index's health.
	Index IndexHealth `json:"index"`
	// KeywordIndex is the keyword index's state.
	KeywordIndex KeywordIndexInfo `json:"keyword_index"`
}

// OK reports whether the store is sound.
func (r IntegrityReport) OK() bool { return r.Engine == "ok" }

// CheckIntegrity checks the store and brings both indexes up to date. It
// changes nothing but the in-memory indexes' catch-up. Run it before an
// export you mean to keep, after an import, or from `loci doctor`.
func (p *Palace) CheckIntegrity(ctx context.Context) (IntegrityReport, error) {
	r := IntegrityReport{Backend: p.reg.backend.Kind()}
	in, err := p.st.Check(ctx)
	if err != nil {
		return r, storeErr("check store", err)
	}
	r.Engine, r.Migrations = in.Engine, in.Migrations
	if r.Index, err = p.IndexHealth(ctx); err != nil {
		return r, err
	}
	if _, err := p.kw.sync(ctx); err != nil {
		return r, err
	}
	r.KeywordIndex = p.kw.info()
	return r, nil
}
