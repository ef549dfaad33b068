package palace

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"
)

// ImportOptions tune ImportJSONL.
type ImportOptions struct {
	// OnConflict decides what happens to a drawer whose id the palace
	// already has: "skip" (default; re-importing a file is harmless) or
	// "fail" (CodeConflict, nothing imported).
	OnConflict string
}

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
	d      *Drawer
	vector []float32
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
func (p *Palace) ImportJSONL(ctx context.Context, r io.Reader, opt ImportOptions) (ImportStats, error) {
	var st ImportStats
	switch opt.OnConflict {
	case "":
		opt.OnConflict = "skip"
	case "skip", "fail":
	default:
		return st, Invalidf("on-conflict must be skip or fail, got %q", opt.OnConflict)
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
			return st, Invalidf("line %d: data after the footer", line)
		}
		var typ struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(raw, &typ); err != nil {
			return st, Invalidf("line %d: not a JSON object: %v", line, err)
		}
		if header == nil && typ.Type != "header" {
			return st, Invalidf("line %d: the first record must be the header, got %q", line, typ.Type)
		}
		switch typ.Type {
		case "header":
			if header != nil {
				return st, Invalidf("line %d: a second header", line)
			}
			header = &exportHeader{}
			if err := json.Unmarshal(raw, header); err != nil {
				return st, Invalidf("line %d: header: %v", line, err)
			}
			if header.Format != ExportFormat || header.Version < 1 || header.Version > ExportVersion {
				return st, Invalidf("line %d: not a loci palace export (format %q version %d)", line, header.Format, header.Version)
			}
		case "drawer":
			var rec struct {
				Drawer *Drawer `json:"drawer"`
				Vector string  `json:"vector"`
			}
			if err := json.Unmarshal(raw, &rec); err != nil || rec.Drawer == nil {
				return st, Invalidf("line %d: drawer: %v", line, errOr(err, "missing 'drawer'"))
			}
			d := rec.Drawer
			d.ID = strings.TrimSpace(d.ID)
			if d.ID == "" || len(d.ID) > 200 {
				return st, Invalidf("line %d: drawer id must be 1 to 200 bytes", line)
			}
			if seen[d.ID] {
				return st, Invalidf("line %d: drawer %q appears twice", line, truncate(d.ID, 60))
			}
			seen[d.ID] = true
			if err := d.validate(); err != nil {
				return st, Invalidf("line %d: drawer %s: %v", line, truncate(d.ID, 60), err)
			}
			item := importDrawer{d: d, line: line}
			if rec.Vector != "" {
				if blob, err := base64.StdEncoding.DecodeString(rec.Vector); err == nil && len(blob)%4 == 0 {
					item.vector = decodeVector(blob)
				}
			}
			drawers = append(drawers, item)
		case "triple":
			var t exportTriple
			if err := json.Unmarshal(raw, &t); err != nil {
				return st, Invalidf("line %d: triple: %v", line, err)
			}
			if err := checkImportTriple(&t); err != nil {
				return st, Invalidf("line %d: triple: %v", line, err)
			}
			triples = append(triples, t)
		case "fact_id":
			var f exportFactID
			if err := json.Unmarshal(raw, &f); err != nil || f.N <= 0 || f.DrawerID == "" {
				return st, Invalidf("line %d: fact_id: %v", line, errOr(err, "needs n > 0 and drawer_id"))
			}
			factIDs[f.DrawerID] = f.N
		case "fact_counter":
			var c exportCounter
			if err := json.Unmarshal(raw, &c); err != nil || c.Last < 0 {
				return st, Invalidf("line %d: fact_counter: %v", line, errOr(err, "negative"))
			}
			lastFact = c.Last
		case "footer":
			footer = &exportFooter{}
			if err := json.Unmarshal(raw, footer); err != nil {
				return st, Invalidf("line %d: footer: %v", line, err)
			}
		default:
			return st, Invalidf("line %d: unknown record type %q", line, typ.Type)
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return st, Invalidf("line %d: longer than %d bytes", line+1, maxImportLine)
		}
		return st, internal("read import", err)
	}
	if header == nil {
		return st, Invalidf("empty file: no header")
	}
	if footer == nil {
		return st, Invalidf("no footer: the file is truncated")
	}
	if footer.Drawers != len(drawers) || footer.Triples != len(triples) || footer.FactIDs != len(factIDs) {
		return st, Invalidf("footer counts (%d drawers, %d triples, %d fact ids) differ from the file (%d, %d, %d): the file is damaged",
			footer.Drawers, footer.Triples, footer.FactIDs, len(drawers), len(triples), len(factIDs))
	}
	return p.applyImport(ctx, drawers, triples, factIDs, lastFact, opt, st)
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

// kgStoreLayout is kg's stored time format (fixed width, so that string
// order is time order); imported triples are written in it.
const kgStoreLayout = "2006-01-02T15:04:05.000000000Z"

func checkImportTriple(t *exportTriple) error {
	for _, f := range []struct{ name, v string }{{"subject", t.Subject}, {"predicate", t.Predicate}, {"object", t.Object}} {
		if strings.TrimSpace(f.v) == "" {
			return errors.New(f.name + " is empty")
		}
	}
	if !(t.Confidence >= 0 && t.Confidence <= 1) {
		return errors.New("confidence must be in [0,1]")
	}
	conv := func(s string) (string, time.Time, error) {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return "", tm, err
		}
		return tm.UTC().Format(kgStoreLayout), tm, nil
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

func (p *Palace) applyImport(ctx context.Context, drawers []importDrawer, triples []exportTriple,
	factIDs map[string]int64, lastFact int64, opt ImportOptions, st ImportStats) (ImportStats, error) {
	// Which drawers does the palace have already?
	exists := map[string]bool{}
	for lo := 0; lo < len(drawers); lo += 500 {
		hi := min(lo+500, len(drawers))
		args := make([]any, 0, hi-lo)
		for _, it := range drawers[lo:hi] {
			args = append(args, it.d.ID)
		}
		rows, err := p.db.QueryContext(ctx, `SELECT id FROM drawers WHERE id IN (`+placeholders(len(args))+`)`, args...)
		if err != nil {
			return st, internal("import", err)
		}
		for rows.Next() {
			var id string
			if rows.Scan(&id) == nil {
				exists[id] = true
			}
		}
		rows.Close()
	}
	var todo []importDrawer
	for _, it := range drawers {
		if exists[it.d.ID] {
			if opt.OnConflict == "fail" {
				return st, Conflictf("line %d: drawer %q already exists in palace %q", it.line, truncate(it.d.ID, 60), p.name)
			}
			st.Skipped++
			continue
		}
		before := it.d.Redactions
		p.redactDrawer(it.d)
		st.Redactions += it.d.Redactions - before
		todo = append(todo, it)
	}
	// Vectors: keep those of this palace's embedder, make the rest.
	var need []*Drawer
	var needIdx []int
	for i, it := range todo {
		if it.vector == nil || it.d.Model != p.emb.ID() || len(it.vector) != p.emb.Dim() {
			need = append(need, it.d)
			needIdx = append(needIdx, i)
		}
	}
	if len(need) > 0 {
		vecs := p.embedDocs(ctx, need)
		for j, i := range needIdx {
			todo[i].vector = vecs[j]
			if vecs[j] != nil {
				st.Reembedded++
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}

	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return st, internal("begin import", err)
	}
	defer tx.Rollback()
	renumber, err := p.importFactIDs(ctx, tx, todo, factIDs, lastFact, &st)
	if err != nil {
		return st, err
	}
	now := p.now().UTC()
	for _, it := range todo {
		d := it.d
		for _, key := range []string{MetaConflictsWith, MetaSupersedes} {
			if v := metaString(d.Meta, key); v != "" && renumber[v] != "" {
				d.Meta[key] = renumber[v]
			}
		}
		seq, err := logEvent(ctx, tx, now, EventAdded, d.ID, map[string]any{"kind": d.Kind, "room": d.Room, "status": d.Status, "import": true})
		if err != nil {
			return st, internal("log event", err)
		}
		var blob []byte
		var vecID int64
		d.Model = ""
		if it.vector != nil {
			blob, vecID, d.Model = encodeVector(it.vector), seq, p.emb.ID()
		}
		if d.CreatedAt.IsZero() {
			d.CreatedAt = now
		}
		if d.UpdatedAt.IsZero() {
			d.UpdatedAt = d.CreatedAt
		}
		if d.Timestamp.IsZero() {
			d.Timestamp = d.CreatedAt
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO drawers (id, seq, kind, content, keywords, room, tags,
			importance, confidence, status, user_id, agent_id, session_id, sender_ids, parent_id,
			superseded_by, ts, created_at, updated_at, access_count, last_access, pinned, redactions,
			model, vec_id, vector, meta) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			d.ID, seq, d.Kind, d.Content, d.Keywords, d.Room, jsonText(d.Tags), d.Importance,
			d.Confidence, d.Status, d.UserID, d.AgentID, d.SessionID, jsonText(d.SenderIDs), d.ParentID,
			d.SupersededBy, d.Timestamp.UnixMilli(), d.CreatedAt.UnixMilli(), d.UpdatedAt.UnixMilli(),
			d.AccessCount, timeMS(d.LastAccess), boolInt(d.Pinned), d.Redactions, d.Model, vecID, blob, metaText(d.Meta))
		if err != nil {
			return st, internal("import drawer", err)
		}
		st.Drawers++
	}
	for _, t := range triples {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM kg_triples WHERE subject = ? AND predicate = ?
			AND object = ? AND valid_from = ?`, t.Subject, t.Predicate, t.Object, t.ValidFrom).Scan(&n); err != nil {
			return st, internal("import triple", err)
		}
		if n > 0 {
			st.TriplesSkipped++
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO kg_triples(subject, predicate, object, valid_from, valid_to,
			confidence, provenance, created_at) VALUES (?,?,?,?,?,?,?,?)`,
			t.Subject, t.Predicate, t.Object, t.ValidFrom, t.ValidTo, t.Confidence, t.Provenance, t.CreatedAt); err != nil {
			return st, internal("import triple", err)
		}
		st.Triples++
	}
	if err := tx.Commit(); err != nil {
		return st, internal("commit import", err)
	}
	return st, nil
}

// importFactIDs records the engram numbers of imported facts. Numbers
// this palace has free are kept; then the counter is raised past every
// exported number (none is handed out again); then facts whose number is
// taken by another drawer, or that had none, get fresh ones. It returns old
// engram id -> new engram id for renumbered facts.
func (p *Palace) importFactIDs(ctx context.Context, tx *sql.Tx, todo []importDrawer, factIDs map[string]int64,
	lastFact int64, st *ImportStats) (map[string]string, error) {
	var fresh []*Drawer
	for _, it := range todo {
		if it.d.Kind != KindFact {
			continue
		}
		st.FactIDs++
		n, ok := factIDs[it.d.ID]
		if !ok {
			n, ok = ParseFactID(metaString(it.d.Meta, MetaEngramID))
		}
		if !ok {
			fresh = append(fresh, it.d)
			continue
		}
		lastFact = max(lastFact, n)
		var owner string
		err := tx.QueryRowContext(ctx, `SELECT drawer_id FROM fact_ids WHERE n = ?`, n).Scan(&owner)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `INSERT INTO fact_ids(n, drawer_id) VALUES (?, ?)`, n, it.d.ID); err != nil {
				return nil, internal("import fact ids", err)
			}
			if it.d.Meta == nil {
				it.d.Meta = map[string]any{}
			}
			it.d.Meta[MetaEngramID] = FormatFactID(n)
		case err != nil:
			return nil, internal("import fact ids", err)
		case owner != it.d.ID:
			fresh = append(fresh, it.d)
		}
	}
	if lastFact > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'fact_ids'`, lastFact); err != nil {
			return nil, internal("import fact ids", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sqlite_sequence(name, seq) SELECT 'fact_ids', ?
			WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'fact_ids')`, lastFact); err != nil {
			return nil, internal("import fact ids", err)
		}
	}
	renumber := map[string]string{}
	for _, d := range fresh {
		res, err := tx.ExecContext(ctx, `INSERT INTO fact_ids(drawer_id) VALUES (?)`, d.ID)
		if err != nil {
			return nil, internal("import fact ids", err)
		}
		m, _ := res.LastInsertId()
		if old := metaString(d.Meta, MetaEngramID); old != "" {
			renumber[old] = FormatFactID(m)
			st.Renumbered++
		}
		if d.Meta == nil {
			d.Meta = map[string]any{}
		}
		d.Meta[MetaEngramID] = FormatFactID(m)
	}
	return renumber, nil
}
