package palace

import (
	"container/list"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/index"
	"github.com/loci-mem/loci/palace/store"
)

// vectorState is a palace's in-memory vector index and how far it has
// caught up with the change log. A drawer's vectors are indexed under
// passageKey(VecKey, p): its whole text at p = 0 and, for a long text, its
// passages at 1..n (passages.go). A vector key is never reused, so
// re-activating or re-embedding a drawer gives it new index keys and stale
// ones simply fail to resolve (and are tombstoned).
type vectorState struct {
	p *Palace

	mu     sync.Mutex // serialises catch-up and load, and guards what follows
	idx    *index.Flat
	model  string
	hw     int64 // highest drawers.seq the index reflects
	loaded bool
	// snapshotSaves is made due whatever changed (mustSave) when vectors
	// are erased or the calibration changes.
	snapshotSaves
	// ridOf maps the current key of every active drawer to the drawer, and
	// keyOf the other way (both nil: unknown, ask the store). Catch-up keeps
	// them exact: a drawer that stops being active leaves both (and the
	// index), and a drawer given a new key drops its old one. So a key the
	// index returns that is not in ridOf is stale.
	ridOf *idMap // vector key -> rid
	keyOf *idMap // rid -> vector key
	// long holds the passage count of every drawer (by vector key) that
	// has passage vectors.
	long    map[uint64]int32
	lastErr string
	// erasedSeen is the latest erasure (its seq, erase.go) the index's
	// removed rows were erased for.
	erasedSeen int64
	// calibration is the graph's last calibration in this process.
	calibration *index.Calibration
	// saving is the index whose snapshot is being written, if any; held
	// the changes caught up and not yet applied to the index, deferring
	// that the catch-up under way holds its changes, and linking, closed
	// and links the goroutine that applies them (vecheld.go).
	saving    *index.Flat
	held      heldChanges
	deferring bool
	linking   bool
	closed    bool
	links     sync.WaitGroup
	// stopBuild cancels the index's graph being built aside (vecgraph.go);
	// nil when none is.
	stopBuild context.CancelFunc
}

// snapshotModel is the model id the snapshot records: the embedder's, and
// the key scheme (passage keys), so a snapshot of another scheme is rebuilt.
func (v *vectorState) snapshotModel() string { return v.model + "|passage-keys" }

// ikey is the index key of passage p of the drawer with vector key vk.
func ikey(vk uint64, p int) uint64 { return uint64(passageKey(int64(vk), p)) }

// drop removes every index key of the drawer with vector key vk and
// forgets it.
func (v *vectorState) drop(vk uint64) { v.dropWith(vk, v.remove) }

// erase drops the drawer's keys so that no later snapshot holds their
// vectors (index.Flat.Erase), and has the next SaveIndex write one.
func (v *vectorState) erase(vk uint64) {
	v.dropWith(vk, v.eraseKey)
	v.mustSave()
}

func (v *vectorState) dropWith(vk uint64, remove func(key uint64)) {
	remove(ikey(vk, 0))
	for p := 1; p <= int(v.long[vk]); p++ {
		remove(ikey(vk, p))
	}
	delete(v.long, vk)
	if rid, ok := v.ridOf.get(int64(vk)); ok {
		v.keyOf.del(rid)
	}
	v.ridOf.del(int64(vk))
}

// hasLong reports whether any drawer has passage vectors.
func (v *vectorState) hasLong() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.long) > 0
}

// vectorsOf estimates how many of the index's n vectors drawers of
// them hold: each as many as the palace's drawers with vectors do on
// average (a long one has its passages' too).
func (v *vectorState) vectorsOf(drawers, n int) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ridOf == nil || v.ridOf.len() == 0 {
		return drawers
	}
	return max(1, int(int64(drawers)*int64(n)/int64(v.ridOf.len())))
}

// indexKeys lists the index keys of drawers by vector key: every one's
// whole-text key and its passages'.
func (v *vectorState) indexKeys(vks []uint64) []uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]uint64, 0, len(vks))
	for _, vk := range vks {
		out = append(out, ikey(vk, 0))
		for p := 1; p <= int(v.long[vk]); p++ {
			out = append(out, ikey(vk, p))
		}
	}
	return out
}

// IndexInfo reports the state of the vector index.
type IndexInfo struct {
	Model    string `json:"model"`
	Dim      int    `json:"dim"`
	Loaded   bool   `json:"loaded"`
	Vectors  int    `json:"vectors"`
	Kind     string `json:"kind,omitempty"` // what answers searches: exact, graph or projection
	CaughtUp int64  `json:"caught_up_seq"`
	Error    string `json:"error,omitempty"`
	// Pending counts the long texts this process's background embedder
	// has yet to give vectors (embed_later.go): until then vector search
	// does not find them, keyword search does.
	Pending int `json:"embedding_pending,omitempty"`
	// Held counts the vectors caught up and not yet linked into the index
	// (vecheld.go): searches score them directly meanwhile. Vectors counts
	// the index's own.
	Held int `json:"vectors_held,omitempty"`
	// GraphBuilding is that the graph is being built in the background
	// (vecgraph.go): searches scan until it is in place.
	GraphBuilding bool `json:"graph_building,omitempty"`
	// GraphNodes is the rows of the graph over the index (0: none, every
	// search scans); EfSearch its beam width; GraphOff that calibration
	// found the scan as fast for the recall target, so searches scan;
	// Calibrated that the choice was measured at this size or half of it.
	GraphNodes int  `json:"graph_nodes,omitempty"`
	EfSearch   int  `json:"ef_search,omitempty"`
	GraphOff   bool `json:"graph_off,omitempty"`
	Calibrated bool `json:"calibrated,omitempty"`
	// Calibration is what the graph's last calibration in this process
	// measured and chose (see Palace.CalibrateIndex).
	Calibration *index.Calibration `json:"calibration,omitempty"`
}

func newVectorState(p *Palace) *vectorState {
	return &vectorState{p: p, model: p.emb.ID()}
}

func (v *vectorState) info() IndexInfo {
	v.mu.Lock()
	defer v.mu.Unlock()
	in := IndexInfo{Model: v.model, Dim: v.p.emb.Dim(), Loaded: v.loaded, CaughtUp: v.hw, Error: v.lastErr, Calibration: v.calibration}
	if v.idx != nil {
		in.Vectors, in.Held, in.GraphBuilding = v.idx.Len(), v.held.vectors, v.stopBuild != nil
		in.Kind = indexKind(v.idx)
		st := v.idx.Stats()
		in.GraphNodes, in.EfSearch, in.GraphOff = st.Graph, st.EfSearch, st.GraphOff
		in.Calibrated = st.Graph > 0 && !v.idx.NeedsCalibration()
	}
	return in
}

func (v *vectorState) isLoaded() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.loaded
}

func (v *vectorState) snapshotPath() string { return filepath.Join(v.p.Dir(), indexFile) }

// indexFile is the vector index snapshot in the palace's cache directory.
const indexFile = "vectors.idx"

// sync brings the index up to date with every drawer change committed by
// any process. The first call loads the snapshot (if it is valid for the
// current model) and replays what changed after it.
func (v *vectorState) sync(ctx context.Context) (*index.Flat, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.loaded {
		start := time.Now()
		// The snapshot holds keys only; their drawers come from the
		// store, read while the snapshot is mapped and checked (each
		// takes about a second at a million drawers). Reading them
		// after the snapshot's seq is safe: the catch-up below applies
		// the same changes again. A failure only costs speed.
		var ridErr error
		rids := make(chan struct{})
		hint := 0
		if st, err := os.Stat(v.snapshotPath()); err == nil && v.p.emb.Dim() > 0 {
			hint = int(st.Size() / int64(v.p.emb.Dim()+16)) // a row: its codes, key, scale and norm
		}
		go func() {
			defer close(rids)
			v.ridOf, v.keyOf, v.long, ridErr = v.loadRIDs(ctx, hint)
		}()
		// A snapshot that lacks the graph it should have (one saved
		// while the graph was built aside) is not given it at load: the
		// graph is built aside (graphDue, below).
		cfg := v.indexConfig()
		cfg.DeferGraph = v.graphAside()
		idx, hw, err := loadSnapshot(v.snapshotPath(), cfg, v.snapshotModel(), v.p.emb.Dim())
		if err != nil {
			v.p.log.Info().Err(err).Msg("vector snapshot unusable; rebuilding from the store")
			idx, hw = v.newIndex(), 0
		}
		<-rids
		// A graph never measured (or measured by an older calibration)
		// is held off from the start, not only once WarmIndex reaches
		// CalibrateIndex: searches in between would otherwise go
		// through a graph whose recall nobody has checked.
		idx.HoldGraph()
		v.hw, v.savedHW, v.loaded = hw, hw, true
		v.setIndex(idx, true)
		if ridErr != nil {
			v.p.log.Info().Err(ridErr).Msg("vector keys to drawers; resolving through the store")
		} else if n := v.eraseOrphans(); n > 0 {
			v.p.log.Debug().Int("keys", n).Msg("vector snapshot keys of no drawer in recall erased")
		}
		if err := v.eraseSince(ctx, hw); err != nil {
			return nil, err
		}
		v.p.log.Debug().Dur("took", time.Since(start)).Int64("seq", hw).Msg("vector index loaded")
		v.graphDue() // a snapshot without the graph it should have
	}
	if v.p.caughtUp(ctx, v.hw) {
		return v.idx, nil
	}
	maxSeq, err := v.p.st.Drawers().MaxSeq(ctx)
	if err != nil {
		return nil, storeErr("index catch-up", err)
	}
	if maxSeq < v.hw {
		// The store went backwards (restored from a backup): start over.
		v.setIndex(v.newIndex(), false)
		v.hw, v.ridOf, v.keyOf, v.long = 0, newIDMap(0), newIDMap(0), map[uint64]int32{}
	}
	if maxSeq == v.hw {
		return v.idx, nil
	}
	if v.long == nil {
		v.long = map[uint64]int32{}
	}
	// Vectors are added in batches, so that a graph links a large
	// catch-up (a cold start, a rebuild) on every core. Removals wait for
	// the batch before them. More changes than a search should wait to
	// have linked into a graph, and few enough for searches to score
	// themselves, are held and linked in the background (vecheld.go).
	gap := maxSeq - v.hw
	v.deferring = v.idx.HasGraph() && gap > linkBatch && gap <= int64(maxHeldVectors)
	var batch catchUpBatch
	err = v.p.st.Drawers().Changes(ctx, v.hw, store.ChangeFields{Vector: true}, func(c store.Change) error {
		defer func() { v.hw = c.Seq }()
		if c.VecKey == 0 {
			// A changed text keeps its old vectors in recall until it is
			// embedded again; a drawer out of recall whose vectors were
			// cleared (purged, or its text changed) keeps none.
			if old, ok := v.keyOf.get(c.RID); ok && c.Status != StatusActive {
				batch.flush(v)
				v.erase(uint64(old))
			}
			return nil
		}
		vk := uint64(c.VecKey)
		if old, ok := v.keyOf.get(c.RID); ok && uint64(old) != vk {
			batch.flush(v)
			v.drop(uint64(old)) // the drawer's previous vectors
		}
		if !v.inRecall(c) {
			batch.flush(v)
			v.drop(vk)
			return nil
		}
		batch.add(v, ikey(vk, 0), c.Vector)
		if n, size := c.PassageCount, len(c.Vector); n > 0 && len(c.Passages) == n*size {
			for p := 1; p <= n; p++ {
				batch.add(v, ikey(vk, p), c.Passages[(p-1)*size:p*size])
			}
			v.long[vk] = int32(n)
		}
		if v.ridOf != nil {
			v.ridOf.set(int64(vk), c.RID)
			v.keyOf.set(c.RID, int64(vk))
		}
		return nil
	})
	batch.flush(v)
	if err == nil {
		err = v.eraseSince(ctx, v.erasedSeen)
	}
	v.deferring = false
	v.settle()
	if err != nil {
		return nil, storeErr("index catch-up", err)
	}
	v.hw = maxSeq
	return v.idx, nil
}

// inRecall reports whether a change leaves its drawer in recall with a
// vector the index takes: active, of this embedder, of its dimension.
func (v *vectorState) inRecall(c store.Change) bool {
	return c.VecKey != 0 && c.Status == StatusActive && c.Model == v.model && len(c.Vector) == 4*v.p.emb.Dim()
}

// catchUpBatch gathers vectors for index.Flat.AddBatch.
type catchUpBatch struct {
	seq  int64 // the change of the first
	keys []uint64
	vecs [][]float32
}

// catchUpBatchSize is the vectors added at once: 4 MB of float32 at 996
// dimensions, and enough rows for two cores to link without waiting on
// each other.
const catchUpBatchSize = 1024

// add adds a vector of the change being caught up (v.hw is the one before).
func (b *catchUpBatch) add(v *vectorState, key uint64, blob []byte) {
	if len(b.keys) == 0 {
		b.seq = v.hw + 1
	}
	b.keys = append(b.keys, key)
	b.vecs = append(b.vecs, decodeVectorInto(nil, blob))
	if len(b.keys) >= catchUpBatchSize {
		b.flush(v)
	}
}

// flush adds the batch (vectorState.addBatch, which may hold on to it).
func (b *catchUpBatch) flush(v *vectorState) {
	if len(b.keys) > 0 {
		v.addBatch(b.seq, b.keys, b.vecs)
		b.keys, b.vecs = nil, nil
	}
}

// eraseSince erases every removed row the index keeps (a graph's
// waypoints) when the palace erased text after seq, and has the next
// SaveIndex write the snapshot. Caller holds mu.
func (v *vectorState) eraseSince(ctx context.Context, seq int64) error {
	erased, err := v.p.erasedSeq(ctx)
	if err != nil {
		return storeErr("index catch-up", err)
	}
	if erased > seq {
		v.change((*index.Flat).EraseRemoved, true)
		v.mustSave()
	}
	v.erasedSeen = max(v.erasedSeen, erased, seq)
	return nil
}

// eraseOrphans erases the loaded snapshot's keys that no drawer in
// recall holds now: vectors of drawers since changed, forgotten or purged.
// Catching up cannot reach those whose key the store no longer records (a
// purged drawer's, a text embedded again), and a purged text's vectors
// must not be written again. It returns how many it erased. Caller holds
// mu, with the maps loaded (the store's keys, read after the snapshot's
// seq: a key it lacks is no drawer's in recall now).
func (v *vectorState) eraseOrphans() int {
	var gone []uint64
	v.idx.Keys(func(key uint64) {
		if vk, _ := splitKey(int64(key)); !v.ridOf.known(vk) {
			gone = append(gone, key)
		}
	})
	for _, key := range gone {
		v.eraseKey(key)
	}
	return len(gone)
}

// loadRIDs maps the vector keys of active drawers to their rows and back,
// and notes the passage counts of long ones.
func (v *vectorState) loadRIDs(ctx context.Context, hint int) (*idMap, *idMap, map[uint64]int32, error) {
	ridOf, keyOf := newIDMap(hint), newIDMap(hint)
	long := map[uint64]int32{}
	err := v.p.st.Drawers().ActiveKeys(ctx, func(k, rid int64, passages int) {
		ridOf.set(k, rid)
		keyOf.set(rid, k)
		if passages > 0 {
			long[uint64(k)] = int32(passages)
		}
	})
	if err != nil {
		return nil, nil, long, err
	}
	return ridOf, keyOf, long, nil
}

// activeRIDs resolves index results to active drawers from memory, keeping
// their order, each drawer once at its best passage (MaxP), up to limit,
// and removes stale keys from the index. ok is false when the maps are
// unknown (the caller then asks the store).
func (v *vectorState) activeRIDs(res []index.Result, limit int) (out []ranked, ok bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ridOf == nil {
		return nil, false
	}
	out = make([]ranked, 0, min(len(res), limit))
	seen := make(map[int64]bool, len(res))
	for _, r := range res {
		vk, p := splitKey(int64(r.Key))
		rid, found := v.ridOf.get(vk)
		if !found {
			v.remove(r.Key)
			continue
		}
		if seen[rid] {
			continue
		}
		seen[rid] = true
		out = append(out, ranked{rid: rid, score: float64(r.Score), passage: p})
		if len(out) == limit {
			break
		}
	}
	return out, true
}

// SaveIndex writes the index snapshots (vectors and keywords) that changed
// enough since the last ones (snapshotDue). A snapshot is a cache: failing
// to write it loses nothing. A loaded index catches up first, so that a
// snapshot never writes back what another process erased since this one
// last searched.
func (p *Palace) SaveIndex(ctx context.Context) error { return p.saveIndex(ctx, false) }

// SaveIndexNow is SaveIndex without the thresholds: it writes each
// snapshot whose index changed at all since its last one (of 1,000
// entries or more: a smaller one is built from the store at once). `loci palace
// warm` saves so: a hook starts it when it ran out of time, most often
// catching the indexes up, and the next hook should load what it caught
// up rather than replay it again.
func (p *Palace) SaveIndexNow(ctx context.Context) error { return p.saveIndex(ctx, true) }

func (p *Palace) saveIndex(ctx context.Context, now bool) error {
	if p.kw.ready.Load() {
		if _, err := p.kw.sync(ctx); err != nil {
			return err
		}
	}
	if p.vec.isLoaded() {
		if _, err := p.vec.sync(ctx); err != nil {
			return err
		}
	}
	kwErr := p.kw.save(now)
	if kwErr != nil {
		kwErr = internal("save keyword index", kwErr)
	}
	return errors.Join(p.saveVectorsIf(now), kwErr)
}

func (p *Palace) saveVectors() error { return p.saveVectorsIf(false) }

// saveVectorsIf writes the vector snapshot when it is due, or (now) when
// anything changed since the last one. The index is written under its own
// read lock only, as of the last change it holds (heldMark): searches go
// on, and changes caught up meanwhile are held until it is written
// (vecheld.go). Held erasures are applied first, and (now) every held
// change. A snapshot made due
// meanwhile (an erasure, a calibration) stays due.
func (p *Palace) saveVectorsIf(now bool) error {
	v := p.vec
	v.saveMu.Lock()
	defer v.saveMu.Unlock()
	v.mu.Lock()
	if v.loaded && (v.held.erases > 0 || now) {
		// No erased vector may reach the file; and a save asked for now
		// (`loci palace warm`) is there to leave the next process less to
		// catch up.
		v.applyHeld(0)
	}
	// An index whose graph is being built aside is saved as any other,
	// without the graph: the process that loads it builds the graph aside
	// in turn, as it would from the older snapshot, which has none either.
	if !v.loaded || !saveDue(v.heldMark(), v.savedHW, v.idx.Len(), v.idx.HasGraph(), now) {
		v.mu.Unlock()
		return nil
	}
	idx, hw, forced, model := v.idx, v.heldMark(), v.forced, v.snapshotModel()
	v.saving = idx
	v.mu.Unlock()
	if savingHook != nil {
		savingHook("vectors")
	}
	err := saveSnapshot(v.snapshotPath(), idx, model, hw)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.saving = nil
	v.settle()
	if err != nil {
		v.lastErr = err.Error()
		return internal("save vector index", err)
	}
	if v.idx == idx {
		v.written(hw, forced)
	}
	v.lastErr = ""
	return nil
}

// snapshotSaves is what an index state (vectors or keywords) keeps of its
// snapshot's saves. The state's mu guards savedHW and forced.
type snapshotSaves struct {
	savedHW int64 // hw of the snapshot on disk (0: none; -1: due whatever changed)
	// forced counts the times a snapshot was made due whatever changed
	// (mustSave): a save that began before one leaves it due.
	forced uint64
	// saveMu serialises snapshot writes, which hold the index's own read
	// lock and not the state's mu: searches go on meanwhile, and a write
	// that began later is never replaced by one that began earlier.
	saveMu sync.Mutex
}

// mustSave makes a snapshot due whatever changed: the index dropped what
// a snapshot on disk may hold (erased text or vectors), or a choice the
// snapshot keeps changed. Caller holds the state's mu.
func (s *snapshotSaves) mustSave() {
	s.savedHW = -1
	s.forced++
}

// written records a snapshot written at hw by a save that read forced
// when it began; one made due since stays due. Caller holds the state's
// mu.
func (s *snapshotSaves) written(hw int64, forced uint64) {
	if s.forced == forced {
		s.savedHW = hw
	}
}

// savingHook, when set (by tests), runs while an index snapshot is being
// saved ("vectors" or "keywords"): after its mark is read, before the file
// is written.
var savingHook func(index string)

// snapshotDue reports whether an index at high-water mark hw, last saved
// at savedHW (-1: never, or rebuilt since), holding n entries, should be
// saved. Every process that opens the palace replays the changes after
// the snapshot, so a snapshot is due once replaying them would cost about
// as much as writing it: short-lived processes (hooks, the CLI) close
// palaces after one or two writes, and replaying a few hundred changes
// from the store is cheaper than rewriting the index. Into a flat index a
// change replays as an append (a keyword index: its text tokenized), and
// the snapshot is due after a twentieth of its entries. Into a graph
// (graph: the index has one) a change is linked, a beam search over the
// graph per vector: at 237k rows of 996 dimensions (100k drawers with
// their passages) replaying 2,400 changes took 2.4 s, a millisecond a
// change, while writing the 282 MB snapshot took 0.3–0.8 s, 1–3 µs a row,
// so one change replayed costs what writing about graphReplayRows rows
// does. Under the flat rule the 100k palace's snapshot fell due only
// after 11,870 changes, about 12 s of replay for every process that opened
// it, where a prompt hook has 850 ms.
func snapshotDue(hw, savedHW int64, n int, graph bool) bool {
	if hw == savedHW {
		return false
	}
	if savedHW <= 0 {
		return int64(n) >= snapshotMinEntries || savedHW < 0
	}
	if graph {
		return hw-savedHW >= max(snapshotMinDelta, int64(n)/graphReplayRows)
	}
	return hw-savedHW >= max(snapshotMinDelta, int64(n)/20)
}

// saveDue is snapshotDue, or (now) whether anything changed since the
// last snapshot of an index large enough to keep one.
func saveDue(hw, savedHW int64, n int, graph, now bool) bool {
	if now && hw != savedHW && n >= snapshotMinEntries {
		return true
	}
	return snapshotDue(hw, savedHW, n, graph)
}

const (
	snapshotMinEntries = 1000 // below this, building from the store is instant
	snapshotMinDelta   = 500
	// graphReplayRows is how many snapshot rows cost what one change
	// replayed into a graph does (snapshotDue): 1 ms against 1–3 µs.
	graphReplayRows = 500
)

// CompactIndex drops the removed rows the vector index keeps as its
// graph's waypoints (index.Flat.Compact), which RebuildIndex drops by
// reading every vector from the store again. The rows are compacted under
// the index's lock (70-88 ms at the 100k palace's 262k rows, half of them
// removed), and a graph that takes long to build is built again aside
// (vecgraph.go) while searches scan; a smaller one is built at once, and
// the next SaveIndex writes the snapshot. The dreamer's index pass calls
// it: RebuildIndex held every search of the process for as long as it
// read the vectors and linked the graph, a minute and more at 100k. It
// returns the vectors the index holds.
func (p *Palace) CompactIndex(ctx context.Context) (int, error) {
	v := p.vec
	if _, err := v.sync(ctx); err != nil {
		return 0, err
	}
	v.saveMu.Lock() // no snapshot write for the compaction to wait for, holding mu
	defer v.saveMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	v.idx.Compact()
	if !v.idx.GraphWanted() {
		v.mustSave()
	}
	v.graphDue()
	return v.idx.Len(), nil
}

// RebuildIndex discards the in-memory index and rebuilds it from the vectors
// in the store (dropping tombstones), then saves a fresh snapshot.
func (p *Palace) RebuildIndex(ctx context.Context) (int, error) {
	v := p.vec
	v.mu.Lock()
	v.setIndex(v.newIndex(), false)
	v.hw, v.savedHW, v.loaded = 0, -1, true
	v.ridOf, v.keyOf, v.long = newIDMap(0), newIDMap(0), map[uint64]int32{}
	v.mu.Unlock()
	idx, err := v.sync(ctx)
	if err != nil {
		return 0, err
	}
	return idx.Len(), p.SaveIndex(ctx)
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) []float32 { return decodeVectorInto(nil, b) }

// decodeVectorInto decodes b into dst, reusing its storage when it fits.
func decodeVectorInto(dst []float32, b []byte) []float32 {
	n := len(b) / 4
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst
}

// queryCache is a small LRU of query embeddings: agents repeat queries, and
// an embedding costs milliseconds while a lookup costs nanoseconds.
type queryCache struct {
	mu    sync.Mutex
	max   int
	ll    *list.List
	items map[string]*list.Element
}

type cacheEntry struct {
	key string
	vec []float32
}

func newQueryCache(max int) *queryCache {
	return &queryCache{max: max, ll: list.New(), items: map[string]*list.Element{}}
}

// recent returns up to n cached query vectors of the embedder with that
// id and dimension, most recent first.
func (c *queryCache) recent(id string, dim, n int) [][]float32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out [][]float32
	for e := c.ll.Front(); e != nil && len(out) < n; e = e.Next() {
		ce := e.Value.(*cacheEntry)
		if strings.HasPrefix(ce.key, id+"\x00") && len(ce.vec) == dim {
			out = append(out, ce.vec)
		}
	}
	return out
}

func (c *queryCache) get(key string) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*cacheEntry).vec, true
	}
	return nil, false
}

func (c *queryCache) put(key string, vec []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.ll.MoveToFront(e)
		return
	}
	c.items[key] = c.ll.PushFront(&cacheEntry{key, vec})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}

// embedQuery embeds a query, using the cache. An asymmetric model reads it
// with its query prompt (embed.Queries), where stored texts get the
// document prompt.
func (p *Palace) embedQuery(ctx context.Context, text string) ([]float32, error) {
	key := p.emb.ID() + "\x00" + text
	if v, ok := p.qcache.get(key); ok {
		return v, nil
	}
	vs, err := embed.Queries(ctx, p.emb, []string{text})
	p.noteEngineCut()
	if err != nil {
		return nil, err
	}
	if len(vs) != 1 {
		return nil, internal("embed query", errShortEmbed)
	}
	p.qcache.put(key, vs[0])
	return vs[0], nil
}

// accessLog batches recall hits so that reading never waits on a write.
type accessLog struct {
	mu      sync.Mutex
	pending map[int64]int64 // rid -> hits
	last    map[int64]int64 // rid -> unix ms of latest hit
}

func (p *Palace) noteAccess(rids []int64) {
	a := p.access
	now := p.now().UnixMilli()
	a.mu.Lock()
	if a.last == nil {
		a.last = map[int64]int64{}
	}
	for _, r := range rids {
		a.pending[r]++
		a.last[r] = now
	}
	n := len(a.pending)
	a.mu.Unlock()
	if n >= 256 {
		go p.FlushAccess(context.Background())
	}
}

// FlushAccess writes batched access statistics (hit counts, last access).
func (p *Palace) FlushAccess(ctx context.Context) error {
	a := p.access
	a.mu.Lock()
	pending, last := a.pending, a.last
	a.pending, a.last = map[int64]int64{}, map[int64]int64{}
	a.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	hits := make(map[int64]store.Access, len(pending))
	for rid, n := range pending {
		hits[rid] = store.Access{Hits: n, Last: time.UnixMilli(last[rid])}
	}
	err := store.Write(ctx, p.st, func(tx store.Tx) error {
		return tx.Drawers().AddAccess(ctx, hits)
	})
	if errors.Is(err, store.ErrReadOnly) {
		return nil // statistics are a nicety; a read-only palace keeps none
	}
	return storeErr("flush access stats", err)
}

// WarmIndex loads the vector index (from its snapshot when valid) and
// builds the in-memory keyword index, so that recalls do not pay for
// either. `serve --palace` calls it for its default palace in the
// background; a process that never does builds them on its first search.
func (p *Palace) WarmIndex(ctx context.Context) error {
	if _, err := p.vec.sync(ctx); err != nil {
		return err
	}
	if err := p.kw.warm(ctx); err != nil {
		return err
	}
	if _, err := p.CalibrateIndex(ctx); err != nil {
		p.log.Debug().Err(err).Msg("calibrate the vector index")
	}
	// An index just built from the store (no snapshot, or a stale one)
	// is saved now rather than at Close: a process killed before then
	// would leave the next start to build it again (a minute at 1M
	// drawers). SaveIndex writes only what changed enough.
	if err := p.SaveIndex(ctx); err != nil {
		p.log.Debug().Err(err).Msg("save index snapshots after warming")
	}
	return nil
}
