package palace

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"io"
	"time"

	"github.com/loci-mem/loci/palace/redact"
)

// A palace export is JSON Lines, one record per line, each an object with
// a "type":
//
//	{"type":"header","format":"loci-palace","version":1,"palace":...,"description":...,
//	 "created_at":...,"exported_at":...,"embedder":...,"dim":...}
//	{"type":"drawer","drawer":{...every Drawer field...},"vector":"<base64 float32 LE>"}
//	{"type":"triple","subject":...,"predicate":...,"object":...,"valid_from":...,
//	 "valid_to":...|null,"confidence":...,"provenance":...|null,"created_at":...}
//	{"type":"fact_id","n":42,"drawer_id":...}
//	{"type":"fact_counter","last":57}
//	{"type":"footer","drawers":N,"triples":M,"fact_ids":K}
//
// It holds everything a palace knows: drawers of every kind and status
// (their ids, times, access statistics, redaction counts, meta and vectors),
// every knowledge-graph triple with its validity interval, and the engram
// id allocation. It leaves out what is derived or transient: the FTS and
// vector indexes (rebuilt), the change log, undo tokens and unextracted
// session buffers. The footer's counts let an import detect a truncated
// file.

// ExportFormat and ExportVersion identify the JSONL format.
const (
	ExportFormat  = "loci-palace"
	ExportVersion = 1
)

type exportHeader struct {
	Type        string `json:"type"`
	Format      string `json:"format"`
	Version     int    `json:"version"`
	Palace      string `json:"palace"`
	Description string `json:"description"`
	CreatedAt   string `json:"created_at,omitempty"`
	ExportedAt  string `json:"exported_at"`
	Embedder    string `json:"embedder"`
	Dim         int    `json:"dim"`
}

type exportDrawer struct {
	Type   string  `json:"type"`
	Drawer *Drawer `json:"drawer"`
	Vector string  `json:"vector,omitempty"`
}

type exportTriple struct {
	Type       string  `json:"type"`
	Subject    string  `json:"subject"`
	Predicate  string  `json:"predicate"`
	Object     string  `json:"object"`
	ValidFrom  string  `json:"valid_from"`
	ValidTo    *string `json:"valid_to"`
	Confidence float64 `json:"confidence"`
	Provenance *string `json:"provenance"`
	CreatedAt  string  `json:"created_at"`
}

type exportFactID struct {
	Type     string `json:"type"`
	N        int64  `json:"n"`
	DrawerID string `json:"drawer_id"`
}

type exportCounter struct {
	Type string `json:"type"`
	Last int64  `json:"last"`
}

type exportFooter struct {
	Type    string `json:"type"`
	Drawers int    `json:"drawers"`
	Triples int    `json:"triples"`
	FactIDs int    `json:"fact_ids"`
}

// ExportStats counts what an export wrote or an import read.
type ExportStats struct {
	Drawers int   `json:"drawers"`
	Triples int   `json:"triples"`
	FactIDs int   `json:"fact_ids"`
	Bytes   int64 `json:"bytes"`
}

type countingWriter struct {
	w *bufio.Writer
	n int64
}

// line writes one record, redacted (stored text is already clean; this is
// defence in depth at the output).
func (c *countingWriter) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(redact.JSON(b), '\n')
	n, err := c.w.Write(b)
	c.n += int64(n)
	return err
}

// ExportJSONL writes the palace to w as JSON Lines (see the format above).
// It reads one consistent snapshot of the store.
func (p *Palace) ExportJSONL(ctx context.Context, w io.Writer) (ExportStats, error) {
	var st ExportStats
	tx, done, err := p.readSnapshot(ctx)
	if err != nil {
		return st, internal("export", err)
	}
	defer done()
	cw := &countingWriter{w: bufio.NewWriterSize(w, 64<<10)}
	fail := func(err error) (ExportStats, error) { st.Bytes = cw.n; return st, internal("export", err) }

	h := exportHeader{Type: "header", Format: ExportFormat, Version: ExportVersion, Palace: p.name,
		ExportedAt: p.now().UTC().Format(time.RFC3339Nano), Embedder: p.emb.ID(), Dim: p.emb.Dim()}
	rows, err := tx.QueryContext(ctx, `SELECT key, value FROM palace_meta`)
	if err != nil {
		return fail(err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return fail(err)
		}
		switch k {
		case "description":
			h.Description = v
		case "created_at":
			var ms int64
			if json.Unmarshal([]byte(v), &ms) == nil && ms > 0 {
				h.CreatedAt = msTime(ms).Format(time.RFC3339Nano)
			}
		}
	}
	rows.Close()
	if err := cw.line(h); err != nil {
		return fail(err)
	}

	rows, err = tx.QueryContext(ctx, `SELECT `+drawerCols+`, d.vector FROM drawers d ORDER BY d.rid`)
	if err != nil {
		return fail(err)
	}
	for rows.Next() {
		var d *Drawer
		var blob []byte
		d, err = scanDrawerWith(rows, &blob)
		if err != nil {
			rows.Close()
			return fail(err)
		}
		rec := exportDrawer{Type: "drawer", Drawer: d}
		if len(blob) > 0 {
			rec.Vector = base64.StdEncoding.EncodeToString(blob)
		}
		if err := cw.line(rec); err != nil {
			rows.Close()
			return fail(err)
		}
		st.Drawers++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}

	rows, err = tx.QueryContext(ctx, `SELECT subject, predicate, object, valid_from, valid_to, confidence,
		provenance, created_at FROM kg_triples ORDER BY id`)
	if err != nil {
		return fail(err)
	}
	for rows.Next() {
		t := exportTriple{Type: "triple"}
		var to, prov sql.NullString
		if err := rows.Scan(&t.Subject, &t.Predicate, &t.Object, &t.ValidFrom, &to, &t.Confidence, &prov, &t.CreatedAt); err != nil {
			rows.Close()
			return fail(err)
		}
		if to.Valid {
			t.ValidTo = &to.String
		}
		if prov.Valid {
			t.Provenance = &prov.String
		}
		if err := cw.line(t); err != nil {
			rows.Close()
			return fail(err)
		}
		st.Triples++
	}
	rows.Close()

	rows, err = tx.QueryContext(ctx, `SELECT n, drawer_id FROM fact_ids ORDER BY n`)
	if err != nil {
		return fail(err)
	}
	for rows.Next() {
		f := exportFactID{Type: "fact_id"}
		if err := rows.Scan(&f.N, &f.DrawerID); err != nil {
			rows.Close()
			return fail(err)
		}
		if err := cw.line(f); err != nil {
			rows.Close()
			return fail(err)
		}
		st.FactIDs++
	}
	rows.Close()
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'fact_ids'), 0)`).Scan(&last); err != nil {
		return fail(err)
	}
	if err := cw.line(exportCounter{Type: "fact_counter", Last: last}); err != nil {
		return fail(err)
	}
	if err := cw.line(exportFooter{Type: "footer", Drawers: st.Drawers, Triples: st.Triples, FactIDs: st.FactIDs}); err != nil {
		return fail(err)
	}
	if err := cw.w.Flush(); err != nil {
		return fail(err)
	}
	st.Bytes = cw.n
	return st, nil
}

// exportRowScan scans the drawer columns followed by extra columns.
type exportRowScan struct {
	s     scanner
	extra []any
}

func (w exportRowScan) Scan(dest ...any) error { return w.s.Scan(append(dest, w.extra...)...) }

func scanDrawerWith(rows *sql.Rows, extra ...any) (*Drawer, error) {
	return scanDrawer(exportRowScan{rows, extra})
}

// querier is what reads need of *sql.DB, *sql.Tx and *sql.Conn.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readSnapshot opens a deferred read transaction on a dedicated
// connection: one consistent view of the store that, in WAL mode, never
// blocks writers (the pool's transactions start IMMEDIATE, taking the
// write lock). done ends it.
func (p *Palace) readSnapshot(ctx context.Context) (querier, func(), error) {
	conn, err := p.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	if _, err := conn.ExecContext(ctx, `BEGIN DEFERRED`); err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, func() {
		_, _ = conn.ExecContext(context.Background(), `ROLLBACK`)
		conn.Close()
	}, nil
}
