package archive

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strings"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

// ImportOptions tune ImportJSONL.
type ImportOptions struct {
	// OnConflict decides what happens to a drawer whose id the palace
	// already has: "skip" (default; re-importing a file is harmless) or
	// "fail" (CodeConflict, nothing imported).
	OnConflict string
	// Progress, when set, is told how far the import has got: phase
	// "reading" (drawers read; total 0, unknown), "embedding" (drawers
	// whose vectors are being made) and "writing".
	Progress func(phase string, done, total int)
}

// report calls Progress if set.
func (o ImportOptions) report(phase string, done, total int) {
	if o.Progress != nil {
		o.Progress(phase, done, total)
	}
}

// importEmbedBatch is how many drawers are embedded between two progress
// reports: small enough for a live display, large enough that batching
// (which the embedders do inside one call) still pays.
const importEmbedBatch = 256

// ImportStats counts what an import did.
type ImportStats struct {
	Drawers        int `json:"drawers"`
	Skipped        int `json:"skipped"`
	Triples        int `json:"triples"`
	TriplesSkipped int `json:"triples_skipped"`
	FactIDs        int `json:"fact_ids"`
	Renumbered     int `json:"renumbered"` // facts given a new engram id (theirs was taken)
	Reembedded     int `json:"reembedded"` // drawers whose vector came from another embedder
	Redactions     int `json:"redactions"` // secrets removed on the way in
}

// maxImportLine bounds one JSONL record.
const maxImportLine = 64 << 20

type importDrawer struct {
	d      *palace.Drawer
	vector palace.Vectors
	line   int
}

// ImportJSONL reads an export (see ExportJSONL) into this palace in one
// transaction: all of it or nothing. The file is checked completely first:
// a malformed line, a record out of place or a footer whose counts differ
// (a truncated file) is a CodeInvalid error naming the line. Drawers keep
// their ids, times and statuses, are redacted again, and get new change-log
// positions; vectors from the same embedder are kept, others re-made.
// Engram ids are kept unless this palace already uses one for another
// fact, in which case the fact gets the next free id and references to it
// (conflicts_with, supersedes) follow.
func ImportJSONL(ctx context.Context, p *palace.Palace, r io.Reader, opt ImportOptions) (ImportStats, error) {
	var st ImportStats
	switch opt.OnConflict {
	case "":
		opt.OnConflict = "skip"
	case "skip", "fail":
	default:
		return st, palace.Invalidf("on-conflict must be skip or fail, got %q", opt.OnConflict)
	}
	var (
		header   *exportHeader
		footer   *exportFooter
		drawers  []importDrawer
		triples  []exportTriple
		factIDs  = map[string]int64{} // drawer id -> n
		lastFact int64
		seen     = map[string]bool{}
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxImportLine)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		if footer != nil {
			return st, palace.Invalidf("line %d: data after the footer", line)
		}
		var typ struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(raw, &typ); err != nil {
			return st, palace.Invalidf("line %d: not a JSON object: %v", line, err)
		}
		if header == nil && typ.Type != "header" {
			return st, palace.Invalidf("line %d: the first record must be the header, got %q", line, typ.Type)
		}
		switch typ.Type {
		case "header":
			if header != nil {
				return st, palace.Invalidf("line %d: a second header", line)
			}
			header = &exportHeader{}
			if err := json.Unmarshal(raw, header); err != nil {
				return st, palace.Invalidf("line %d: header: %v", line, err)
			}
			if header.Format != ExportFormat || header.Version < 1 || header.Version > ExportVersion {
				return st, palace.Invalidf("line %d: not a loci palace export (format %q version %d)", line, header.Format, header.Version)
			}
		case "drawer":
			var rec struct {
				Drawer   *palace.Drawer `json:"drawer"`
				Vector   string         `json:"vector"`
				Passages string         `json:"passages"`
			}
			if err := json.Unmarshal(raw, &rec); err != nil || rec.Drawer == nil {
				return st, palace.Invalidf("line %d: drawer: %v", line, errOr(err, "missing 'drawer'"))
			}
			d := rec.Drawer
			d.ID = strings.TrimSpace(d.ID)
			if d.ID == "" || len(d.ID) > 200 {
				return st, palace.Invalidf("line %d: drawer id must be 1 to 200 bytes", line)
			}
			if seen[d.ID] {
				return st, palace.Invalidf("line %d: drawer %q appears twice", line, palace.Truncate(d.ID, 60))
			}
			seen[d.ID] = true
			if err := palace.CheckDrawer(d); err != nil {
				return st, palace.Invalidf("line %d: drawer %s: %v", line, palace.Truncate(d.ID, 60), err)
			}
			item := importDrawer{d: d, line: line}
			if rec.Vector != "" {
				if blob, err := base64.StdEncoding.DecodeString(rec.Vector); err == nil && len(blob)%4 == 0 {
					item.vector.Whole = decodeVector(blob)
				}
			}
			if rec.Passages != "" && len(item.vector.Whole) > 0 {
				blob, err := base64.StdEncoding.DecodeString(rec.Passages)
				if dim := 4 * len(item.vector.Whole); err == nil && len(blob)%dim == 0 {
					for off := 0; off < len(blob); off += dim {
						item.vector.Passages = append(item.vector.Passages, decodeVector(blob[off:off+dim]))
					}
				}
			}
			drawers = append(drawers, item)
			if len(drawers)%1000 == 0 {
				opt.report("reading", len(drawers), 0)
			}
		case "triple":
			var t exportTriple
			if err := json.Unmarshal(raw, &t); err != nil {
				return st, palace.Invalidf("line %d: triple: %v", line, err)
			}
			if err := checkImportTriple(&t); err != nil {
				return st, palace.Invalidf("line %d: triple: %v", line, err)
			}
			triples = append(triples, t)
		case "fact_id":
			var f exportFactID
			if err := json.Unmarshal(raw, &f); err != nil || f.N <= 0 || f.DrawerID == "" {
				return st, palace.Invalidf("line %d: fact_id: %v", line, errOr(err, "needs n > 0 and drawer_id"))
			}
			factIDs[f.DrawerID] = f.N
		case "fact_counter":
			var c exportCounter
			if err := json.Unmarshal(raw, &c); err != nil || c.Last < 0 {
				return st, palace.Invalidf("line %d: fact_counter: %v", line, errOr(err, "negative"))
			}
			lastFact = c.Last
		case "footer":
			footer = &exportFooter{}
			if err := json.Unmarshal(raw, footer); err != nil {
				return st, palace.Invalidf("line %d: footer: %v", line, err)
			}
		default:
			return st, palace.Invalidf("line %d: unknown record type %q", line, typ.Type)
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return st, palace.Invalidf("line %d: longer than %d bytes", line+1, maxImportLine)
		}
		return st, palace.StoreError("read import", err)
	}
	if header == nil {
		return st, palace.Invalidf("empty file: no header")
	}
	if footer == nil {
		return st, palace.Invalidf("no footer: the file is truncated")
	}
	if footer.Drawers != len(drawers) || footer.Triples != len(triples) || footer.FactIDs != len(factIDs) {
		return st, palace.Invalidf("footer counts (%d drawers, %d triples, %d fact ids) differ from the file (%d, %d, %d): the file is damaged",
			footer.Drawers, footer.Triples, footer.FactIDs, len(drawers), len(triples), len(factIDs))
	}
	return applyImport(ctx, p, drawers, triples, factIDs, lastFact, opt, st)
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

func checkImportTriple(t *exportTriple) error {
	for _, f := range []struct{ name, v string }{{"subject", t.Subject}, {"predicate", t.Predicate}, {"object", t.Object}} {
		if strings.TrimSpace(f.v) == "" {
			return errors.New(f.name + " is empty")
		}
	}
	if err := palace.CheckUnit("confidence", t.Confidence); err != nil {
		return err
	}
	conv := func(s string) (string, time.Time, error) {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return "", tm, err
		}
		return kg.StoredTime(tm), tm, nil
	}
	var err error
	var from time.Time
	if t.ValidFrom, from, err = conv(t.ValidFrom); err != nil {
		return errors.New("valid_from: " + err.Error())
	}
	if t.CreatedAt == "" {
		t.CreatedAt = t.ValidFrom
	} else if t.CreatedAt, _, err = conv(t.CreatedAt); err != nil {
		return errors.New("created_at: " + err.Error())
	}
	if t.ValidTo != nil {
		s, to, err := conv(*t.ValidTo)
		if err != nil {
			return errors.New("valid_to: " + err.Error())
		}
		if to.Before(from) {
			return errors.New("valid_to is before valid_from")
		}
		t.ValidTo = &s
	}
	return nil
}

func applyImport(ctx context.Context, p *palace.Palace, drawers []importDrawer, triples []exportTriple,
	factIDs map[string]int64, lastFact int64, opt ImportOptions, st ImportStats) (ImportStats, error) {
	ids := make([]string, len(drawers))
	for i, it := range drawers {
		ids[i] = it.d.ID
	}
	exists, err := p.Store().Drawers().Existing(ctx, ids)
	if err != nil {
		return st, palace.StoreError("import", err)
	}
	var todo []importDrawer
	for _, it := range drawers {
		if exists[it.d.ID] {
			if opt.OnConflict == "fail" {
				return st, palace.Conflictf("line %d: drawer %q already exists in palace %q", it.line, palace.Truncate(it.d.ID, 60), p.Name())
			}
			st.Skipped++
			continue
		}
		before := it.d.Redactions
		palace.Redact(it.d)
		st.Redactions += it.d.Redactions - before
		todo = append(todo, it)
	}
	// Vectors: keep those of this palace's embedder (with every passage a
	// long drawer has), make the rest.
	emb := p.Embedder()
	var need []*palace.Drawer
	var needIdx []int
	for i, it := range todo {
		v := it.vector
		if v.Whole == nil || it.d.Model != emb.ID() || len(v.Whole) != emb.Dim() ||
			len(v.Passages) != len(palace.VectorPassages(it.d.Content)) {
			need = append(need, it.d)
			needIdx = append(needIdx, i)
		}
	}
	for lo := 0; lo < len(need); lo += importEmbedBatch {
		opt.report("embedding", lo, len(need))
		hi := min(lo+importEmbedBatch, len(need))
		vecs := p.Embed(ctx, need[lo:hi])
		for j, i := range needIdx[lo:hi] {
			todo[i].vector = vecs[j]
			if vecs[j].Whole != nil {
				st.Reembedded++
			}
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
	}
	if len(need) > 0 {
		opt.report("embedding", len(need), len(need))
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}

	err = p.Write(ctx, func(t *palace.Tx) error {
		renumber, err := importFactIDs(t, todo, factIDs, lastFact, &st)
		if err != nil {
			return err
		}
		for _, it := range todo {
			d := it.d
			for _, key := range []string{facts.MetaConflictsWith, facts.MetaSupersedes} {
				if v, _ := d.Meta[key].(string); v != "" && renumber[v] != "" {
					d.Meta[key] = renumber[v]
				}
			}
			if d.CreatedAt.IsZero() {
				d.CreatedAt = t.Now()
			}
			if d.UpdatedAt.IsZero() {
				d.UpdatedAt = d.CreatedAt
			}
			if d.Timestamp.IsZero() {
				d.Timestamp = d.CreatedAt
			}
			if err := t.Insert(d, it.vector, map[string]any{"import": true}); err != nil {
				return err
			}
			st.Drawers++
			if st.Drawers%500 == 0 || st.Drawers == len(todo) {
				opt.report("writing", st.Drawers, len(todo))
			}
		}
		tw := t.Store().Triples()
		for _, rec := range triples {
			tr, err := recordTriple(rec)
			if err != nil {
				return palace.Invalidf("triple: %v", err)
			}
			history, err := tw.History(ctx, tr.Subject)
			if err != nil {
				return palace.StoreError("import triple", err)
			}
			dup := false
			for _, h := range history {
				dup = dup || h.Predicate == tr.Predicate && h.Object == tr.Object && h.ValidFrom.Equal(tr.ValidFrom)
			}
			if dup {
				st.TriplesSkipped++
				continue
			}
			if _, err := tw.Insert(ctx, tr); err != nil {
				return palace.StoreError("import triple", err)
			}
			st.Triples++
		}
		return nil
	})
	return st, err
}

// recordTriple turns an exported triple (checked by checkImportTriple)
// into a triple, redacted like every text loci stores.
func recordTriple(rec exportTriple) (kg.Triple, error) {
	clean := func(s string) string { out, _ := palace.Scrub(s); return out }
	t := kg.Triple{Subject: clean(strings.TrimSpace(rec.Subject)), Predicate: clean(strings.TrimSpace(rec.Predicate)),
		Object: clean(strings.TrimSpace(rec.Object)), Confidence: rec.Confidence}
	var err error
	if t.ValidFrom, err = kg.ParseStoredTime(rec.ValidFrom); err != nil {
		return t, err
	}
	if t.CreatedAt, err = kg.ParseStoredTime(rec.CreatedAt); err != nil {
		return t, err
	}
	if rec.ValidTo != nil {
		if t.ValidTo, err = kg.ParseStoredTime(*rec.ValidTo); err != nil {
			return t, err
		}
	}
	if rec.Provenance != nil {
		t.Provenance = clean(*rec.Provenance)
	}
	return t, nil
}

func decodeVector(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// importFactIDs records the engram numbers of imported facts. Numbers
// this palace has free are kept; then the counter is raised past every
// exported number (none is handed out again); then facts whose number is
// taken by another drawer, or that had none, get fresh ones. It returns old
// engram id -> new engram id for renumbered facts.
func importFactIDs(t *palace.Tx, todo []importDrawer, factIDs map[string]int64,
	lastFact int64, st *ImportStats) (map[string]string, error) {
	ctx, fw := t.Context(), t.Store().Facts()
	var fresh []*palace.Drawer
	for _, it := range todo {
		if it.d.Kind != palace.KindFact {
			continue
		}
		st.FactIDs++
		n, ok := factIDs[it.d.ID]
		if !ok {
			engram, _ := it.d.Meta[palace.MetaEngramID].(string)
			n, ok = palace.ParseFactID(engram)
		}
		if !ok {
			fresh = append(fresh, it.d)
			continue
		}
		lastFact = max(lastFact, n)
		owner, taken, err := fw.DrawerOf(ctx, n)
		switch {
		case err != nil:
			return nil, palace.StoreError("import fact ids", err)
		case !taken:
			if err := fw.Assign(ctx, n, it.d.ID); err != nil {
				return nil, palace.StoreError("import fact ids", err)
			}
			if it.d.Meta == nil {
				it.d.Meta = map[string]any{}
			}
			it.d.Meta[palace.MetaEngramID] = palace.FormatFactID(n)
		case owner != it.d.ID:
			fresh = append(fresh, it.d)
		}
	}
	if lastFact > 0 {
		if err := fw.RaiseCounter(ctx, lastFact); err != nil {
			return nil, palace.StoreError("import fact ids", err)
		}
	}
	renumber := map[string]string{}
	for _, d := range fresh {
		m, err := fw.Allocate(ctx, d.ID)
		if err != nil {
			return nil, palace.StoreError("import fact ids", err)
		}
		if old, _ := d.Meta[palace.MetaEngramID].(string); old != "" {
			renumber[old] = palace.FormatFactID(m)
			st.Renumbered++
		}
		if d.Meta == nil {
			d.Meta = map[string]any{}
		}
		d.Meta[palace.MetaEngramID] = palace.FormatFactID(m)
	}
	return renumber, nil
}
