package palace

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/store"
)

// keywordState is a palace's in-memory BM25 index (package bm25): a
// derived cache of the drawers' text, like the vector index, and the only
// keyword engine (no backend has to offer full-text search). It is built
// from the store on first use — by WarmIndex (serve warms its default
// palace at start) or by the first search — and caught up from the seq high-water mark before each
// search.
type keywordState struct {
	p *Palace

	mu     sync.Mutex // serialises build and catch-up
	idx    *bm25.Index
	hw     int64 // highest drawers.seq the index reflects
	ready  atomic.Bool
	loaded bool // from the snapshot
	// snapshotSaves is made due whatever changed (mustSave) when text was
	// erased.
	snapshotSaves
	// long holds the passage count of every drawer indexed as passages
	// (keys passageKey(rid, 1..n)); a drawer absent from it is indexed
	// whole (key passageKey(rid, 0)). Long drawers are few, so the map is
	// small.
	long map[int64]int32

	searches atomic.Int64 // keyword searches served since the palace opened
}

// KeywordIndexInfo reports the state of the in-memory keyword index.
type KeywordIndexInfo struct {
	Loaded  bool `json:"loaded"`
	Drawers int  `json:"drawers"`
	// Passages counts the passages of the drawers indexed as passages
	// (long texts; see passages.go).
	Passages int `json:"passages"`
	// FromSnapshot reports that the index was loaded from its snapshot
	// (then caught up) rather than built from the store.
	FromSnapshot bool  `json:"from_snapshot"`
	Terms        int   `json:"terms"`
	CaughtUp     int64 `json:"caught_up_seq"`
	// MemorySearches counts keyword searches since the palace was opened.
	MemorySearches int64 `json:"memory_searches"`
}

func (k *keywordState) info() KeywordIndexInfo {
	in := KeywordIndexInfo{MemorySearches: k.searches.Load()}
	if !k.ready.Load() {
		return in
	}
	k.mu.Lock()
	idx, hw, fromSnap := k.idx, k.hw, k.loaded
	drawers, passages := k.countLocked()
	k.mu.Unlock()
	in.Loaded, in.Drawers, in.Passages, in.Terms, in.CaughtUp, in.FromSnapshot = true, drawers, passages, idx.Terms(), hw, fromSnap
	return in
}

// countLocked counts the drawers of the index, a long drawer's passages
// counted as one, and the passages of its long drawers; k.mu is held and
// the index built.
func (k *keywordState) countLocked() (drawers, passages int) {
	drawers = k.idx.Len()
	for _, n := range k.long {
		passages += int(n)
		drawers -= int(n) - 1
	}
	return drawers, passages
}

// ftsWeights are the BM25 weights of the two indexed fields: a drawer's
// text counts fully, its extra keywords (context, a fact's kind) half.
// Set in the first wave and checked against 0.25, 0.75 and 1 on LoCoMo
// and two rewrites of it (RECALL.md, "Borrowed words count half").
var ftsWeights = []float64{1.0, 0.5}

func newKeywordState(p *Palace) *keywordState { return &keywordState{p: p} }

// warm builds the index if it is not built yet.
func (k *keywordState) warm(ctx context.Context) error {
	if k.ready.Load() {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.buildLocked(ctx)
}

// keywordFile names the keyword index snapshot in the palace's cache
// directory. The name carries what its documents hold beyond the stored
// keywords: the passage window, whose keys it holds; "episodes" for the
// episode or day word (episodeWord); "spelt-drawn" where a misspelt word
// is indexed with the word it misspells and a word drawn out for emphasis
// with the word it stretches ("sooo"), "standard-verbs-plurals" where an
// informal word or a British spelling is indexed with its standard word,
// an irregular verb's past with its verb ("went" go) and an irregular
// plural with its noun ("children" child), "idents"
// where an identifier in camel case is indexed with its words (typos.go),
// which are read as a text is indexed and never stored, and "nicknames"
// where a short form of a name a text addresses, or the name typed
// without its accents, is left out with the name ("Hey Mel!"; address.go)
// and a speaker's label may end with emoji ("Jess 🌸: "), and "emoji"
// where an emoji that names a thing is indexed with its words ("🐶"
// dog; typos.go), and the zone its days were drawn in, outside UTC
// (zoneTag). A snapshot of another name was written by an earlier
// release, with corrections off or in another zone, and is rebuilt from
// the store.
func keywordFile(spelt bool) string {
	name := fmt.Sprintf("keywords-p%d-%d-episodes", PassageWords, PassageStride)
	if spelt {
		name += "-spelt-drawn"
	}
	if standardOn() {
		name += "-standard-verbs-plurals"
	}
	if identsOn() {
		name += "-idents"
	}
	if nicknamesOn() {
		name += "-nicknames"
	}
	if emojiOn() {
		name += "-emoji"
	}
	return name + zoneTag() + ".bm25"
}

func (k *keywordState) snapshotPath() string {
	return filepath.Join(k.p.Dir(), keywordFile(k.p.lex != nil))
}

// removeStaleSnapshots removes the keyword snapshots of earlier releases
// (other names), which nothing reads any more.
func (k *keywordState) removeStaleSnapshots() {
	current := keywordFile(k.p.lex != nil)
	old, _ := filepath.Glob(filepath.Join(k.p.Dir(), "keywords*.bm25"))
	for _, f := range old {
		if filepath.Base(f) != current {
			if err := os.Remove(f); err == nil {
				k.p.log.Debug().Str("file", filepath.Base(f)).Msg("removed an earlier release's keyword snapshot")
			}
		}
	}
}

// buildLocked loads the snapshot, or builds the index from the store; the
// caller then catches it up. The long drawers' passage counts come from
// the snapshot's own keys: catching up must drop the passages a drawer had
// when the snapshot was written, which the store no longer knows once the
// drawer changed (a long text edited short kept its old passages in the
// index, and their words in its statistics).
func (k *keywordState) buildLocked(ctx context.Context) error {
	if k.ready.Load() {
		return nil
	}
	start := time.Now()
	// A snapshot written before an erasure holds the erased words; sync
	// erases them as it catches the index up.
	idx, hw, err := bm25.LoadFile(k.snapshotPath(), ftsWeights...)
	if err == nil {
		long := map[int64]int32{}
		idx.Keys(func(key int64) {
			if rid, p := splitKey(key); p > 0 {
				long[rid] = max(long[rid], int32(p))
			}
		})
		k.idx, k.hw, k.savedHW, k.long, k.loaded = idx, hw, hw, long, true
		k.ready.Store(true)
		k.p.log.Debug().Dur("took", time.Since(start)).Int64("seq", hw).Msg("keyword index loaded")
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		k.p.log.Info().Err(err).Msg("keyword snapshot unusable; rebuilding from the store")
	}
	k.removeStaleSnapshots()
	idx, hw, err = k.build(ctx)
	if err != nil {
		return err
	}
	k.idx, k.hw, k.savedHW, k.loaded = idx, hw, 0, false
	k.ready.Store(true)
	k.p.log.Debug().Dur("took", time.Since(start)).Int("drawers", idx.Len()).Msg("keyword index built")
	return nil
}

// save writes the snapshot if enough changed since the last one
// (snapshotDue), or (now) if anything did. The mark is read before the
// index is written: a snapshot may hold changes newer than its mark
// (catching up re-puts them harmlessly), never older ones. One made due
// by an erasure while it was written stays due.
func (k *keywordState) save(now bool) error {
	k.saveMu.Lock()
	defer k.saveMu.Unlock()
	k.mu.Lock()
	if !k.ready.Load() || !saveDue(k.hw, k.savedHW, k.idx.Len(), false, now) {
		k.mu.Unlock()
		return nil
	}
	idx, hw, forced := k.idx, k.hw, k.forced
	k.mu.Unlock()
	if savingHook != nil {
		savingHook("keywords")
	}
	if err := idx.SaveFile(k.snapshotPath(), hw); err != nil {
		return err
	}
	k.mu.Lock()
	if k.idx == idx {
		k.written(hw, forced)
	}
	k.mu.Unlock()
	return nil
}

type kwRow struct {
	rid, seq          int64
	active            bool
	content, keywords string
	when              time.Time
	ep                episode
	docs              []bm25.Doc // one per passage, or one for the whole text
}

// analyze makes a drawer's index documents: its whole text, or each of
// its passages (every passage carries the drawer's keywords), each with
// the word of the drawer's episode or day (episodeWord). The sentences of
// its text that restate an earlier text (restated.go) count with its
// keywords, in the whole text or the passage that holds them. A misspelt
// word is indexed with the word it stands for as well, in its field
// (typos.go). The names the text addresses are not indexed (address.go).
func analyze(an *bm25.Analyzer, content, keywords string, when time.Time, ep episode, sp *spelling) []bm25.Doc {
	mark := episodeWord(when, content, ep)
	_, names := splitAddressed(keywords)
	content = unaddressed(content, names)
	keywords, restated := splitRestated(keywords)
	ranges := restatedRanges(content, restated)
	doc := func(start, end int) bm25.Doc {
		own, moved := splitOff(content, start, end, ranges)
		beside := keywords // indexed at the keywords' weight
		if moved != "" {
			beside += "\n" + moved
		}
		return an.Analyze(mark+withWordFixes(own, sp), withWordFixes(beside, sp))
	}
	spans := Passages(content)
	if spans == nil {
		return []bm25.Doc{doc(0, len(content))}
	}
	docs := make([]bm25.Doc, len(spans))
	for i, sp := range spans {
		docs[i] = doc(sp.Start, sp.End)
	}
	return docs
}

// episode is what a drawer was written in: its session, else the client
// connection it came through (Drawer.Connection); neither when both are
// "".
type episode struct{ session, conn string }

// episodeWord is the word a drawer's text is indexed with to say which
// episode of the palace's life it belongs to: the word of its session's
// or connection's day (episode.word), or its day's word (dateWords) when
// it was written in neither. A text whose header names its date gets
// none, as dateWords gives it none: that date's words mark it already.
func episodeWord(when time.Time, content string, ep episode) string {
	if ep.session == "" && ep.conn == "" {
		return dateWords(when, content)
	}
	if !ReadTextMeta(content).When.IsZero() {
		return ""
	}
	return ep.word(when)
}

// word is the word of an episode's day: "s" and the 64-bit FNV-1a hash,
// in hex, of the session id (or the connection's) and the drawer's day
// (in this machine's zone, localDay), or of the id alone for a drawer
// with no time. A drawer written in a session, or stored through a
// connection, is indexed with it instead of its day's word (dateWords). The day stood for the episode;
// a session is the episode as its writer declared it, a connection the
// run of an agent that stores its notes one by one (a Claude Code
// session's stdio stream). They differ from the day where one day holds
// several sessions, and where a conversation comes without its dates
// (all its drawers then get the day it was stored, so the day word groups
// nothing); a session that runs over several days (one thread of a chat
// export, whose messages carry their own times) is still cut at the day.
// Where each session has a day of its own (LoCoMo's sessions do), the
// word groups the drawers the day word grouped. That the texts of one
// episode are relevant together is the cluster hypothesis (Jardine and
// van Rijsbergen 1971), and learning from the clusters of the best hits
// is cluster-based retrieval (Liu and Croft 2004); here the clusters are
// the palace's own episodes and days, not computed ones, so there is
// nothing to tune, and relevance feedback takes the word only where the
// best hits share it. Not an episode word beside the day word: an
// episode of one day would count twice in the feedback, as a header's
// date would. Measured with eval --no-dates and --one-thread, on both
// ingestion paths (RECALL.md, "Sessions, not days"). The hash keeps an id
// (which a client chooses) out of the index and makes the word one token.
func (ep episode) word(when time.Time) string {
	h := fnv.New64a()
	if ep.session != "" {
		fmt.Fprintf(h, "session\x00%s", ep.session)
	} else {
		fmt.Fprintf(h, "connection\x00%s", ep.conn)
	}
	if !when.IsZero() {
		y, m, d := localDay(when)
		fmt.Fprintf(h, "\x00%04d%02d%02d", y, int(m), d)
	}
	return fmt.Sprintf("s%016x ", h.Sum64())
}

// dateWords is a drawer's day as one word, "d20230508 ", which its text
// is indexed with when it was written in no episode (episodeWord).
// Relevance feedback then learns the time of the best hits as it learns
// their words: when they share a day (a day's notes), that day's word
// becomes an expansion term, and the other memories of that day that
// match the question rise with them. Using the time of the first pass's
// best results as evidence is temporal feedback (Li and Croft 2003;
// Keikha et al. 2011; Efron et al. 2014). One word rather than "8 May
// 2023", so that a question's numbers ("the 3 tests") cannot match every
// drawer of a day; a question that names a date is answered by
// time-aware search. A text whose header names its date ("(8 May, 2023)
// Caroline: …", as an agent stores a turn) carries that date's words
// already, and gets none: with both, its day would count twice in the
// feedback.
func dateWords(when time.Time, content string) string {
	if when.IsZero() || !ReadTextMeta(content).When.IsZero() {
		return ""
	}
	y, m, d := localDay(when)
	return fmt.Sprintf("d%04d%02d%02d ", y, int(m), d)
}

// localDay is the day t falls on in this machine's zone (time.Local), the
// zone a question's days are read in (ParseTimeRange) and a wall clock
// without a zone is read in: the day its people lived it. An evening's
// conversation in New York runs past midnight UTC, and cut at that
// midnight it would be two episodes. The keyword snapshot's name carries
// the zone (zoneTag), so that a palace opened in another zone rebuilds
// its words.
func localDay(t time.Time) (int, time.Month, int) { return t.In(dayZone()).Date() }

// dayZone is the zone localDay reads days in: time.Local (tests set
// another).
var dayZone = func() *time.Location { return time.Local }

// zoneTag names this machine's zone in the keyword snapshot's name: ""
// for UTC (and any zone that has always been UTC), else a hash of its
// offsets at the start and middle of each year from 1970 to 2050, which
// tells zones apart by the days they draw (localDay), whatever they are
// called.
var zoneTag = sync.OnceValue(func() string { return zoneTagOf(dayZone()) })

func zoneTagOf(loc *time.Location) string {
	h := fnv.New32a()
	utc := true
	for y := 1970; y <= 2050; y++ {
		for _, m := range []time.Month{time.January, time.July} {
			_, off := time.Date(y, m, 1, 12, 0, 0, 0, time.UTC).In(loc).Zone()
			utc = utc && off == 0
			fmt.Fprintf(h, "%d,", off)
		}
	}
	if utc {
		return ""
	}
	return fmt.Sprintf("-zone%08x", h.Sum32())
}

// hasLong reports whether any drawer is indexed as passages.
func (k *keywordState) hasLong() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.long) > 0
}

// put indexes a drawer's documents, first dropping the keys of the
// passages it no longer has.
func (k *keywordState) put(idx *bm25.Index, rid int64, active bool, docs []bm25.Doc) {
	old := int(k.long[rid])
	if len(docs) == 1 { // whole
		for p := 1; p <= old; p++ {
			idx.Remove(passageKey(rid, p))
		}
		delete(k.long, rid)
		idx.PutDoc(passageKey(rid, 0), active, docs[0])
		return
	}
	if old == 0 {
		idx.Remove(passageKey(rid, 0))
	}
	for p := len(docs) + 1; p <= old; p++ {
		idx.Remove(passageKey(rid, p))
	}
	for i, d := range docs {
		idx.PutDoc(passageKey(rid, i+1), active, d)
	}
	k.long[rid] = int32(len(docs))
}

// build reads every drawer and indexes it, tokenizing on all cores. The
// high-water mark is the largest seq read: one read sees one snapshot,
// and any later change has a larger seq.
func (k *keywordState) build(ctx context.Context) (*bm25.Index, int64, error) {
	idx := bm25.New(ftsWeights...)
	k.long = map[int64]int32{}
	const batchSize = 256
	todo := make(chan []kwRow, 4)
	done := make(chan []kwRow, 4)
	var workers sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		workers.Add(1)
		go func() {
			defer workers.Done()
			an := idx.Analyzer()
			for batch := range todo {
				for i := range batch {
					batch[i].docs = analyze(an, batch[i].content, batch[i].keywords, batch[i].when, batch[i].ep, k.p.lex)
					batch[i].content, batch[i].keywords = "", ""
				}
				done <- batch
			}
		}()
	}
	var hw int64
	added := make(chan struct{})
	go func() {
		defer close(added)
		for batch := range done {
			for _, r := range batch {
				k.put(idx, r.rid, r.active, r.docs)
				hw = max(hw, r.seq)
			}
		}
	}()

	batch := make([]kwRow, 0, batchSize)
	scanErr := k.p.st.Drawers().Changes(ctx, 0, store.ChangeFields{Text: true}, func(c store.Change) error {
		batch = append(batch, kwRow{rid: c.RID, seq: c.Seq, active: c.Status == StatusActive,
			content: c.Content, keywords: c.Keywords, when: c.Timestamp, ep: episode{c.SessionID, c.Connection}})
		if len(batch) == batchSize {
			todo <- batch
			batch = make([]kwRow, 0, batchSize)
		}
		return nil
	})
	if len(batch) > 0 {
		todo <- batch
	}
	close(todo)
	workers.Wait()
	close(done)
	<-added
	if scanErr != nil {
		return nil, 0, storeErr("keyword index", scanErr)
	}
	idx.Trim()
	return idx, hw, nil
}

// sync returns the index caught up with every committed change, building
// it first when it is not built yet.
func (k *keywordState) sync(ctx context.Context) (*bm25.Index, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.buildLocked(ctx); err != nil {
		return nil, err
	}
	if k.p.caughtUp(ctx, k.hw) {
		return k.idx, nil
	}
	maxSeq, err := k.p.st.Drawers().MaxSeq(ctx)
	if err != nil {
		return nil, storeErr("keyword catch-up", err)
	}
	if maxSeq == k.hw {
		return k.idx, nil
	}
	erased, err := k.p.erasedSeq(ctx)
	if err != nil {
		return nil, storeErr("keyword catch-up", err)
	}
	if maxSeq < k.hw {
		// The store went backwards (restored from a backup): build the
		// index again.
		idx, hw, err := k.build(ctx)
		if err != nil {
			return nil, err
		}
		k.idx, k.hw, k.savedHW, k.loaded = idx, hw, 0, false
		return k.idx, nil
	}
	erasedSince := erased > k.hw
	an := k.idx.Analyzer()
	err = k.p.st.Drawers().Changes(ctx, k.hw, store.ChangeFields{Text: true}, func(c store.Change) error {
		k.put(k.idx, c.RID, c.Status == StatusActive, analyze(an, c.Content, c.Keywords, c.Timestamp, episode{c.SessionID, c.Connection}, k.p.lex))
		k.hw = c.Seq
		return nil
	})
	if err != nil {
		return nil, storeErr("keyword catch-up", err)
	}
	k.hw = max(k.hw, maxSeq)
	if erasedSince {
		// Text was erased since the index was last caught up: catching up
		// took the erased drawers' words out of their lists, and Erase
		// takes them out of the vocabulary, which otherwise only grows.
		// The snapshot on disk may still hold them: write it at once.
		start := time.Now()
		dropped := k.idx.Erase()
		k.mustSave()
		k.p.log.Debug().Dur("took", time.Since(start)).Int("terms", dropped).Msg("keyword index erased")
	}
	return k.idx, nil
}

// drawers is the number of drawers in the keyword index (0 before it is
// built): its documents, a long drawer's passages counted as one.
func (k *keywordState) drawers() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.idx == nil {
		return 0
	}
	n, _ := k.countLocked()
	return n
}

// tokenShare is the share of the palace's keyword tokens that are the
// analysed token tok (bm25.Index.TokenShare); 0 before the index exists.
func (k *keywordState) tokenShare(tok string) float64 {
	k.mu.Lock()
	idx := k.idx
	k.mu.Unlock()
	if idx == nil {
		return 0
	}
	return idx.TokenShare(tok)
}
