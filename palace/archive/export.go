// Package archive moves a palace in and out of files: ExportJSONL writes
// everything the palace knows as JSON Lines and ImportJSONL reads it back
// losslessly (into any backend: `loci migrate` is an export into an
// import); ExportMarkdown writes a readable account for people.
//
// It imports palace, its store boundary and facts, never server, dreamer
// or cmd.
package archive

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/redact"
	"github.com/loci-mem/loci/palace/store"
)

// A palace export is JSON Lines, one record per line, each an object with
// a "type":
//
//	{"type":"header","format":"loci-palace","version":1,"palace":...,"description":...,
//	 "created_at":...,"exported_at":...,"embedder":...,"dim":...}
//	{"type":"drawer","drawer":{...every Drawer field...},"vector":"<base64 float32 LE>",
//	 "passages":"<base64 float32 LE, a long drawer's passage vectors>"}
//	{"type":"triple","subject":...,"predicate":...,"object":...,"valid_from":...,
//	 "valid_to":...|null,"confidence":...,"provenance":...|null,"created_at":...}
//	{"type":"fact_id","n":42,"drawer_id":...}
//	{"type":"fact_counter","last":57}
//	{"type":"footer","drawers":N,"triples":M,"fact_ids":K}
//
// It holds everything a palace knows: drawers of every kind and status
// (their ids, times, access statistics, redaction counts, meta and vectors),
// every knowledge-graph triple with its validity interval, and the engram
// id allocation. It leaves out what is derived or transient: the keyword
// and vector indexes (rebuilt), the change log, undo tokens and unextracted
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
	Type     string         `json:"type"`
	Drawer   *palace.Drawer `json:"drawer"`
	Vector   string         `json:"vector,omitempty"`
	Passages string         `json:"passages,omitempty"` // a long drawer's passage vectors, one after another
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
func ExportJSONL(ctx context.Context, p *palace.Palace, w io.Writer) (ExportStats, error) {
	var st ExportStats
	cw := &countingWriter{w: bufio.NewWriterSize(w, 64<<10)}
	emb := p.Embedder()
	err := p.Store().Snapshot(ctx, func(r store.Reader) error {
		h := exportHeader{Type: "header", Format: ExportFormat, Version: ExportVersion, Palace: p.Name(),
			ExportedAt: p.Now().UTC().Format(time.RFC3339Nano), Embedder: emb.ID(), Dim: emb.Dim()}
		meta, err := r.Meta().All(ctx)
		if err != nil {
			return err
		}
		h.Description = meta["description"]
		var ms int64
		if json.Unmarshal([]byte(meta["created_at"]), &ms) == nil && ms > 0 {
			h.CreatedAt = time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
		}
		if err := cw.line(h); err != nil {
			return err
		}
		q := store.ScanQuery{Filter: palace.Filter{Statuses: palace.AnyStatus}, Limit: 1000, Vectors: true}
		for {
			last, n, err := r.Drawers().Scan(ctx, q, func(d *palace.Drawer, v *store.Vector) error {
				rec := exportDrawer{Type: "drawer", Drawer: d}
				if len(v.Blob) > 0 {
					rec.Vector = base64.StdEncoding.EncodeToString(v.Blob)
				}
				if len(v.Passages) > 0 {
					rec.Passages = base64.StdEncoding.EncodeToString(v.Passages)
				}
				st.Drawers++
				return cw.line(rec)
			})
			if err != nil {
				return err
			}
			if n < q.Limit {
				break
			}
			q.AfterID = last
		}
		triples, err := r.Triples().All(ctx)
		if err != nil {
			return err
		}
		for _, t := range triples {
			if err := cw.line(tripleRecord(t)); err != nil {
				return err
			}
			st.Triples++
		}
		nums, err := r.Facts().Numbers(ctx)
		if err != nil {
			return err
		}
		for _, f := range nums {
			if err := cw.line(exportFactID{Type: "fact_id", N: f.N, DrawerID: f.DrawerID}); err != nil {
				return err
			}
			st.FactIDs++
		}
		last, err := r.Facts().LastNumber(ctx)
		if err != nil {
			return err
		}
		if err := cw.line(exportCounter{Type: "fact_counter", Last: last}); err != nil {
			return err
		}
		return cw.line(exportFooter{Type: "footer", Drawers: st.Drawers, Triples: st.Triples, FactIDs: st.FactIDs})
	})
	if err == nil {
		err = cw.w.Flush()
	}
	st.Bytes = cw.n
	return st, palace.StoreError("export", err)
}

// tripleRecord is a triple as the export writes it: times in kg's stored
// form, a missing valid_to or provenance as null.
func tripleRecord(t kg.Triple) exportTriple {
	rec := exportTriple{Type: "triple", Subject: t.Subject, Predicate: t.Predicate, Object: t.Object,
		ValidFrom: kg.StoredTime(t.ValidFrom), Confidence: t.Confidence, CreatedAt: kg.StoredTime(t.CreatedAt)}
	if !t.ValidTo.IsZero() {
		to := kg.StoredTime(t.ValidTo)
		rec.ValidTo = &to
	}
	if t.Provenance != "" {
		prov := t.Provenance
		rec.Provenance = &prov
	}
	return rec
}
