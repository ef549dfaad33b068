package palace

import (
	"context"
	"errors"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/index"
)

// Mode chooses which rankers a search uses.
type Mode string

const (
	ModeHybrid  Mode = "hybrid"  // BM25 and vectors, fused (the default)
	ModeKeyword Mode = "keyword" // BM25 only
	ModeVector  Mode = "vector"  // vectors only
)

// Limits on a search.
const (
	// MaxK bounds the results of one search; a larger K is clamped.
	MaxK = 1000
	// MaxQueryBytes bounds a query's text. A question, a paragraph or a
	// pasted error message fits many times over; a longer text is not a
	// query, and scoring it would only cost time and memory.
	MaxQueryBytes = 16 << 10
)

// SearchRequest is a recall query.
type SearchRequest struct {
	Query string
	K     int  // results wanted; default 10, at most 1000
	Mode  Mode // default ModeHybrid
	// Exhaustive scans every vector exactly instead of using the
	// approximate graph (seed 003's L3).
	Exhaustive bool
	Filter     Filter
	// NoAccess skips recording the hits in the access statistics.
	NoAccess bool
	// Fusion overrides DefaultFusion for this request.
	Fusion *Fusion
	// NoTimeHint disables time-aware ranking (see ParseTimeRange).
	NoTimeHint bool
}

// Hit is one search result.
type Hit struct {
	Drawer *Drawer
	// Score is the fused relevance in (0,1]: 1 for a drawer ranked first by
	// every ranker used.
	Score float64
	// Cosine is the vector similarity to the query (0 when not computed).
	Cosine float64
	// BM25 is the keyword score (higher is better; 0 when no term matched).
	BM25 float64
	// KeywordRank and VectorRank are 1-based ranks in each list (0: absent).
	KeywordRank int
	VectorRank  int
	// InTimeRange reports that the query named a time and the drawer's
	// event time falls in it.
	InTimeRange bool
	// Passage is the part of a long drawer's text that matched best (the
	// passage of the better of its two ranks); nil for a drawer indexed
	// whole.
	Passage *Span
}

// Fusion weighs the rankers of a hybrid search: a drawer at 1-based rank r
// in a list contributes weight/(K+r) (weighted reciprocal-rank fusion).
type Fusion struct {
	K             float64
	KeywordWeight float64
	VectorWeight  float64
}

// DefaultFusion is used when a request names none. Chosen by measurement
// on LoCoMo conversations 1-5 (see RECALL.md, "What each method is worth").
var DefaultFusion = Fusion{K: 10, KeywordWeight: 1, VectorWeight: 0.7}

// vectorFusionDepth is how deep a hybrid search's vector lists (the
// query's and a named time's) go into the fusion; its keyword lists
// stop at max(K, keywordFusionDepth). A drawer a list leaves out gets
// nothing from it.
// A keyword list ends where the query's words stop matching, but cosine
// similarity ranks every drawer, and 1/(K+r) falls slowly: cut at 50, the
// list denied a drawer ranked just below it VectorWeight/61 ≈ 0.0115 of
// fused score, more than separates the first two places of the keyword
// list (1/11 − 1/12 ≈ 0.0076), and the tenth place is decided by less.
// The list now goes as deep as the candidates it re-scores for its first
// 50 already reach (4×58, see vectorSearch), so it reads no more vectors.
// Chosen on LoCoMo conversations 1–5 as the depth where recall stops
// changing (session path, hybrid frac@10: 50 .813, 100 .814, 150 .815,
// 250 .815); held out in RECALL.md, "Vector lists 150 deep".
const vectorFusionDepth = 150

// keywordFusionDepth is how deep a hybrid search's keyword lists go into
// the fusion, or as deep as the results asked for when more are. The
// lists went three times as deep as the results asked for, so how many
// were asked for decided the first ones: a search for 20 read 60 deep
// and gave a drawer its words ranked 55th a share that a search for 10
// did not, and the prompt hook (30), memory_recall (10) and the recall
// tool (40 for its 20) ranked the same memories differently. Now every
// search for up to 50 results reads the same lists and returns the first
// results of any other. Lists as deep as the vector lists (150) were a
// wash on recall and cost a quarter more time at 100k drawers (RECALL.md,
// "Keyword lists: one depth for any number of results").
const keywordFusionDepth = 50

func (f Fusion) valid() bool {
	return f.K >= 0 && f.KeywordWeight >= 0 && f.VectorWeight >= 0 && f.KeywordWeight+f.VectorWeight > 0
}

var errShortEmbed = errors.New("embedder returned no vector")

// Search ranks the palace's drawers against a query. Filters apply before
// ranking. Importance and recency only break ties.
func (p *Palace) Search(ctx context.Context, req SearchRequest) ([]Hit, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, Invalidf("query is empty")
	}
	if req.K == 0 {
		req.K = 10
	}
	if req.K < 0 {
		return nil, Invalidf("k must be at least 1, got %d", req.K)
	}
	req.K = min(req.K, MaxK)
	if len(req.Query) > MaxQueryBytes {
		return nil, Invalidf("query is %d bytes; the limit is %d", len(req.Query), MaxQueryBytes)
	}
	if req.Mode == "" {
		req.Mode = ModeHybrid
	}
	if req.Mode != ModeHybrid && req.Mode != ModeKeyword && req.Mode != ModeVector {
		return nil, Invalidf("unknown search mode %q", req.Mode)
	}
	filter, err := p.normalizeFilter(req.Filter)
	if err != nil {
		return nil, err
	}
	fu := DefaultFusion
	if req.Fusion != nil {
		fu = *req.Fusion
	}
	if !fu.valid() {
		return nil, Invalidf("invalid fusion weights %+v", fu)
	}
	depth := max(req.K, keywordFusionDepth)
	vdepth := max(depth, vectorFusionDepth)
	ctx = withSeqMemo(ctx) // both indexes check the store's seq with one read

	type cand struct {
		rid               int64
		rrf, bm25, cosine float64
		krank, vrank      int
		kpass, vpass      int // best passage in each list
		// wrank and wpass are the rank and passage in the list of the
		// time the query names (0: none); legible that the vector
		// votes are weighed by legibility already (weigh).
		wrank, wpass int
		legible      bool
	}
	cands := map[int64]*cand{}
	get := func(rid int64) *cand {
		c := cands[rid]
		if c == nil {
			c = &cand{rid: rid}
			cands[rid] = c
		}
		return c
	}
	best := 0.0 // the fused score of a drawer ranked first by every ranker used

	// A filter beyond "active" is resolved once, into the drawers it
	// allows; both rankers then rank only those.
	var allowed *allowedSet
	if !filter.ActiveOnly() {
		if allowed, err = p.allowedDrawers(ctx, filter); err != nil {
			return nil, err
		}
	}
	// A query that opens with a request to the memory ("Find notes
	// about…") is ranked by what follows it (request.go).
	content := RequestContent(req.Query)
	// The two rankers run side by side, the vector side once the question
	// is embedded: the built-in encoder runs a question's layers on both
	// cores, and begun beside the keyword pass it had one (at a million
	// drawers, where that pass takes 6–8 ms, the embedding took 5.8 ms p50
	// instead of 2.2). The keyword pass then runs beside the scan of the
	// vectors, which it shares the cores with as before. A question whose
	// embedding is cached loses nothing, and neither does one embedded by a
	// server: the keyword pass then hides behind the scan instead of
	// behind the embedding.
	var qv []float32
	if req.Mode != ModeKeyword {
		qv = p.queryVector(ctx, content)
	}
	var kw, vec []ranked
	var kwScores *bm25.Scored // kept for relevance feedback's second pass
	var kwErr, vecErr error
	var wg sync.WaitGroup
	// Relevance feedback keeps the first keyword pass's scores for its
	// second; whether the palace is large enough for it is known once the
	// keyword index is (below), which a process's first search builds.
	keep := req.Mode == ModeHybrid && feedbackOn()
	// A misspelt or informal word of the query asks for the word it
	// stands for too (typos.go), as a text is indexed.
	terms := queryTerms(withWordFixes(content, p.lex))
	if req.Mode != ModeVector {
		best += fu.KeywordWeight / (fu.K + 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A long query is searched with its rarest terms, and a
			// compound of the query written the other way in the palace
			// is asked for too (compounds.go); the palace's words are
			// known once its index is.
			if idx, err := p.kw.sync(ctx); err == nil {
				terms = searchedTerms(terms, termDocFreq(idx))
				terms = append(terms, compoundTerms(content, terms, idx, p.lex)...)
			} else {
				terms = searchedTerms(terms, nil)
			}
			kw, kwScores, kwErr = p.keywordRank(ctx, terms, nil, nil, keep, allowed, depth)
		}()
	}
	if req.Mode != ModeKeyword {
		best += fu.VectorWeight / (fu.K + 1)
		vec, vecErr = p.vectorRank(ctx, qv, allowed, vdepth, depth, req.Exhaustive)
	}
	wg.Wait()
	defer kwScores.Release() // when feedback does not expand them
	if kwErr != nil {
		return nil, kwErr
	}
	if vecErr != nil {
		return nil, vecErr
	}
	// The keyword pass has built the index by now, so a palace's first
	// search in a process (a CLI call, a hook) is expanded as every later
	// one is.
	feedback := keep && p.kw.drawers() >= feedbackMinDocs
	for i, r := range kw {
		c := get(r.rid)
		rank := tiedRank(kw, i)
		c.krank, c.bm25, c.kpass = rank, r.score, r.passage
		c.rrf += fu.KeywordWeight / (fu.K + float64(rank))
	}
	for i, r := range vec {
		c := get(r.rid)
		rank := tiedRank(vec, i)
		c.vrank, c.cosine, c.vpass = rank, r.score, r.passage
		c.rrf += fu.VectorWeight / (fu.K + float64(rank))
	}

	// Time-aware ranking: a query that names a time ("last May", "in
	// 2023") adds a third list — the query's nearest drawers within that
	// window — so memories of that time rise without anything outside it
	// being filtered away.
	var window TimeRange
	timed := false
	windowWeight := 0.0
	if !req.NoTimeHint && req.Mode != ModeKeyword {
		if window, timed = ParseTimeRange(content, p.now()); timed {
			wf := filter
			if wf.Since.IsZero() || wf.Since.Before(window.From) {
				wf.Since = window.From
			}
			if wf.Until.IsZero() || wf.Until.After(window.To) {
				wf.Until = window.To
			}
			inWindow, err := p.allowedDrawers(ctx, wf)
			if err != nil {
				return nil, err
			}
			ranked, err := p.vectorRank(ctx, qv, inWindow, vdepth, depth, false)
			if err != nil {
				return nil, err
			}
			windowWeight = max(fu.KeywordWeight, fu.VectorWeight)
			best += windowWeight / (fu.K + 1)
			for i, r := range ranked {
				c := get(r.rid)
				if c.vrank == 0 {
					c.cosine = r.score
				}
				c.wrank, c.wpass = tiedRank(ranked, i), r.passage
				c.rrf += windowWeight / (fu.K + float64(c.wrank))
			}
		}
	}

	rank := func() []*cand {
		all := make([]*cand, 0, len(cands))
		for _, c := range cands {
			all = append(all, c)
		}
		// Rank on fused score; keep enough for tie-breaks to be meaningful.
		sort.Slice(all, func(i, j int) bool {
			if all[i].rrf != all[j].rrf {
				return all[i].rrf > all[j].rrf
			}
			return all[i].rid > all[j].rid
		})
		return all
	}
	all := rank()

	// The drawers read to rank (the head for its answer type, the best
	// hits and their neighbours) are not read again below.
	loaded := map[int64]*Drawer{}
	load := func(head []*cand) error {
		var rs []int64
		for _, c := range head {
			if loaded[c.rid] == nil {
				rs = append(rs, c.rid)
			}
		}
		ds, err := p.drawersByRID(ctx, rs)
		for rid, d := range ds {
			loaded[rid] = d
		}
		return err
	}
	// The vector lists' votes on a drawer are weighed by how legible the
	// text each matched is (legible.go), once the drawer is read: the
	// first ranks before relevance feedback takes its documents from them
	// and again after, a drawer when a lift reads it, and the results. A
	// vote only falls, so the first n are read until each has its weighed
	// score: any below them scores at most what it does unweighed, which
	// is already less. Only the part of the vote made by models that read
	// language only is weighed (embed.LanguageShare): none of a remote
	// model's, 0.85 of the built-in default's.
	lang := embed.LanguageShare(p.emb)
	legible := req.Mode == ModeHybrid && legibleOn() && lang > 0
	weigh := func(c *cand, d *Drawer) {
		if !legible || c.legible || d == nil {
			return
		}
		c.legible = true
		if c.vrank > 0 {
			c.rrf -= lang * (1 - legibleShare(vectorText(d, c.vpass))) * fu.VectorWeight / (fu.K + float64(c.vrank))
		}
		if c.wrank > 0 {
			c.rrf -= lang * (1 - legibleShare(vectorText(d, c.wpass))) * windowWeight / (fu.K + float64(c.wrank))
		}
	}
	weighFirst := func(n int) error {
		if !legible {
			return nil
		}
		for {
			var todo []*cand
			for _, c := range all[:min(n, len(all))] {
				if !c.legible && (c.vrank > 0 || c.wrank > 0) {
					todo = append(todo, c)
				}
			}
			if len(todo) == 0 {
				return nil
			}
			if err := load(todo); err != nil {
				return err
			}
			for _, c := range todo {
				weigh(c, loaded[c.rid])
				c.legible = true // also a drawer gone since it was ranked
			}
			all = rank()
		}
	}
	weighed := max(req.K, feedbackDocs)
	if err := weighFirst(weighed); err != nil {
		return nil, err
	}

	// Relevance feedback (feedback.go): the best drawers of this first
	// ranking expand the keyword query, and the keyword list is replaced
	// by the expanded query's.
	// The feedback drawers are the best of the first ranking that matched
	// the query's words (the keyword list): in a small palace the vector
	// ranker ranks every drawer, and those sharing no word with the query
	// are no evidence of its vocabulary. One that restates a drawer taken
	// before it is passed over (feedbackDocuments).
	if feedback && len(kw) > 0 {
		var pool []feedbackCand
		for _, c := range all {
			if c.krank > 0 {
				pool = append(pool, feedbackCand{rid: c.rid, krank: c.krank, kpass: c.kpass, score: c.rrf})
			}
		}
		var qtoks []string
		for _, t := range terms {
			qtoks = bm25.AppendTokens(qtoks, t)
		}
		docs, scores, err := p.feedbackDocuments(ctx, pool, qtoks)
		if err != nil {
			return nil, err
		}
		if extra := expansionTerms(docs, scores, qtoks, p.kw.tokenShare); len(extra) > 0 {
			kw2, _, err := p.keywordRank(ctx, terms, extra, kwScores, false, allowed, depth)
			if err != nil {
				return nil, err
			}
			// The expanded list's ranks replace the keyword list's in the
			// fusion. KeywordRank, BM25 and the passage named stay those of
			// the query's own words: a drawer the expansion alone found is
			// not a keyword match of the query.
			for _, c := range cands {
				if c.krank > 0 {
					c.rrf -= fu.KeywordWeight / (fu.K + float64(c.krank))
				}
			}
			for i, r := range kw2 {
				get(r.rid).rrf += fu.KeywordWeight / (fu.K + float64(tiedRank(kw2, i)))
			}
			for rid, c := range cands {
				if c.rrf <= 1e-15 && c.krank == 0 && c.vrank == 0 {
					delete(cands, rid)
				}
			}
			all = rank()
			if err := weighFirst(weighed); err != nil {
				return nil, err
			}
		}
	}
	type askedHit struct {
		rid   int64
		score float64 // before the lifts
	}
	var asked []askedHit
	// The question's answer type and the speakers it names
	// (answertype.go) lift the head's drawers that fit them.
	if q := readQuestion(content); req.Mode == ModeHybrid && len(all) > 0 && q.lifts() {
		// Only a candidate that the largest lift could carry into the
		// first K needs reading.
		head := all[:min(questionCandidates, len(all))]
		if len(head) > req.K {
			kth, most := head[req.K-1].rrf, q.most()
			n := req.K
			for n < len(head) && head[n].rrf*most >= kth {
				n++
			}
			head = head[:n]
		}
		if err := load(head); err != nil {
			return nil, err
		}
		for _, c := range head {
			weigh(c, loaded[c.rid])
		}
		lifted := false
		// A text that only asks and was among the neighbour pass's hits
		// before the lifts keeps that score for its answers (below).
		third := head[min(neighbourHits, len(head))-1].rrf
		for _, c := range head {
			if d := loaded[c.rid]; d != nil {
				f, asks := q.lift(d, bestPassage(d, c.krank, c.kpass, c.vrank, c.vpass))
				if asks && c.rrf >= third {
					asked = append(asked, askedHit{c.rid, c.rrf})
				}
				if f != 1 {
					c.rrf *= f
					lifted = true
				}
			}
		}
		if lifted {
			all = rank()
		}
	}
	// Neighbours (see neighbourLift): the turns on either side of the
	// best hits rise to a share of their score.
	if neighbourOn() && len(all) > 0 {
		top := all[:min(neighbourHits, len(all))]
		if err := load(top); err != nil {
			return nil, err
		}
		// A text lifted below the K-th score cannot be returned, so no
		// lift smaller than that is worth a read of the store. One that
		// ties with it may be (the tie-breakers order ties), hence the
		// slack.
		floor := 0.0
		if len(all) >= req.K {
			floor = all[req.K-1].rrf * (1 - 1e-9)
		}
		lifted := false
		for _, c := range top {
			d := loaded[c.rid]
			if d == nil || (d.SessionID == "" && d.Connection == "") {
				continue
			}
			near, err := p.neighbours(ctx, d, floor/c.rrf)
			if err != nil {
				return nil, err
			}
			for _, nb := range near {
				n := nb.d
				if allowed != nil && !allowed.hasRID(n.RID) {
					continue
				}
				loaded[n.RID] = n
				nc := get(n.RID)
				weigh(nc, n)
				lift := nb.lift
				if reactOn() && onlyReacts(n) {
					lift *= quietLift // it says nothing of its own (answertype.go)
				}
				if s := lift * c.rrf; s > nc.rrf {
					nc.rrf, lifted = s, true
				}
			}
		}
		// A question among the best hits, lowered for only asking, is
		// answered by the turns after it (answersTo); they rise as its
		// neighbours would.
		for _, a := range asked {
			if neighbourLift*a.score < floor {
				continue // no answer could reach the results
			}
			answers, err := p.answersTo(ctx, loaded[a.rid])
			if err != nil {
				return nil, err
			}
			for _, n := range answers {
				if allowed != nil && !allowed.hasRID(n.RID) {
					continue
				}
				loaded[n.RID] = n
				nc := get(n.RID)
				weigh(nc, n)
				if s := neighbourLift * a.score; s > nc.rrf {
					nc.rrf, lifted = s, true
				}
			}
		}
		if lifted {
			all = rank()
		}
	}
	if best == 0 {
		best = 1
	}
	// A lift that lowered a drawer (a text that only asks) lets one below
	// the first K rise into them.
	if err := weighFirst(req.K); err != nil {
		return nil, err
	}
	// Only the first K and whatever ties with the K-th can be returned
	// (the tie-breakers order those); load no other drawer, unless some
	// of them repeat a memory listed above them (sameMemory), when the
	// next candidates take their places.
	hits := make([]Hit, 0, min(req.K, len(all)))
	shown := map[memoryKey]bool{}
	// A search that names no kinds passes over what only repeats in
	// another size what it lists (retellings, and a drawer drawn from one
	// listed: see memoryKey); one that names its kinds gets what it names.
	anyKind := len(req.Filter.Kinds) == 0
	retold := retellings{p: p, on: anyKind}
	listed := map[string]bool{} // ids listed so far, and copies passed over
	for from, want := 0, req.K; want > 0 && from < len(all); {
		cut := min(from+want, len(all))
		for last := all[cut-1].rrf / best; cut < len(all) && last-all[cut].rrf/best <= 1e-12; {
			cut++
		}
		var rids []int64
		for _, c := range all[from:cut] {
			if loaded[c.rid] == nil {
				rids = append(rids, c.rid)
			}
		}
		drawers, err := p.drawersByRID(ctx, rids)
		if err != nil {
			return nil, err
		}
		batch := make([]Hit, 0, cut-from)
		for _, c := range all[from:cut] {
			d := loaded[c.rid]
			if d == nil {
				d = drawers[c.rid]
			}
			if d == nil {
				continue
			}
			batch = append(batch, Hit{Drawer: d, Score: c.rrf / best, Cosine: c.cosine, BM25: c.bm25,
				KeywordRank: c.krank, VectorRank: c.vrank,
				InTimeRange: timed && !d.Timestamp.Before(window.From) && d.Timestamp.Before(window.To),
				Passage:     bestPassage(d, c.krank, c.kpass, c.vrank, c.vpass)})
		}
		sortHits(batch)
		for _, h := range batch {
			if retold.of(ctx, h.Drawer) || anyKind && h.Drawer.ParentID != "" && listed[h.Drawer.ParentID] {
				continue
			}
			listed[h.Drawer.ID] = true
			if k, ok := sameMemory(h.Drawer); ok {
				if shown[k] {
					continue
				}
				shown[k] = true
			}
			hits = append(hits, h)
		}
		from, want = cut, req.K-len(hits)
	}
	if len(hits) > req.K {
		hits = hits[:req.K]
	}
	if !req.NoAccess && len(hits) > 0 {
		rs := make([]int64, len(hits))
		for i, h := range hits {
			rs[i] = h.Drawer.RID
		}
		p.noteAccess(rs)
	}
	return hits, nil
}

// A memory recorded more than once is listed once. A
// conversation recorded through the session buffer (palace/session) is
// extracted for each person in it: every participant of a stretch gets
// an episode of their own, and the episodes retell the same stretch in
// the same words. A search that is not kept to one person finds them
// all, side by side, and they took most of the first places: on LoCoMo
// recorded as /add records it, the first five results named 2.6
// sessions on average. A drawer that has the same text, session and time
// as one listed above it says nothing the list does not; it is passed
// over, and the next candidate takes its place. Texts that merely match
// (a "Thanks!" said twice in a session) differ in time and stay.
//
// A drawer drawn from one listed above it (or from a copy of it passed
// over) is passed over as well, in a search that names no kinds: an
// atomic fact (its ParentID the episode) restates one sentence the
// episode quotes. On LoCoMo recorded as /add records it (`loci eval
// locomo --path episodes`, conversations 1-5) the right session was among
// the first five results for .908 of the questions with such facts listed
// and .927 without; a fact ranked above its episode stays, the episode
// adding the talk around it (palace/RECALL.md, "Conversations recorded as
// episodes"). A search that names its kinds gets what it names: /search
// nests each atomic fact in its episode.
//
// A note or a fact records no event: it is a memory that stands, and one
// that says exactly what another of its kind, room, owner and fact kind
// listed above it says is the same memory, whenever it was written. An
// agent that remembers "the user prefers pnpm" in two sessions has
// remembered one thing, which the dreamer links as an exact repeat when
// it next runs (dreamer/pass_dedup.go); until then recall listed it twice.
type memoryKey struct {
	session string
	at      int64
	// standing is a note's or a fact's kind, room, owner and fact kind.
	standing string
	text     string
}

// sameMemory is the key under which d is listed once: a note's or a
// fact's kind, room, owner, fact kind and text; any other drawer's
// session, time and text. A drawer of another kind and no session is its
// own memory (ok false).
func sameMemory(d *Drawer) (memoryKey, bool) {
	switch {
	case d.Kind == KindNote || d.Kind == KindFact:
		fk, _ := d.Meta[MetaFactKind].(string)
		return memoryKey{standing: d.Kind + "\x00" + d.Room + "\x00" + d.UserID + "\x00" + d.AgentID + "\x00" + fk, text: d.Content}, true
	case d.SessionID == "":
		return memoryKey{}, false
	}
	return memoryKey{session: d.SessionID, at: d.Timestamp.UnixNano(), text: d.Content}, true
}

// retellings finds, for a search that names no kinds, the episodes that
// retell turns stored as drawers of their own. The Claude Code Stop hook
// saves each exchange as a turn drawer and also records it in the session
// buffer, so its palace holds every exchange twice: as itself, and quoted
// in its session's episode of up to 50 messages. The episode says nothing
// its turns do not, at many times the length, and a search scores it by
// its best passage, as a turn: it took the first places and the turns
// read with them. On LoCoMo recorded as the hook records it
// (`loci eval locomo --chat-roles --path hook`, conversations 1-5, k
// counting turns read) memory_recall's first ten found .624 of the
// questions with the episodes and .850 without; the prompt hook's five
// .713 and .739 (palace/RECALL.md, "The hook path's episodes"). Such an
// episode is passed over. A search that names its kinds gets what it
// names, and episodes recorded through /add or mem_save_turn alone have
// no turn drawers and are listed as any memory.
type retellings struct {
	p    *Palace
	on   bool
	seen map[string]bool // session id -> it has turn drawers
}

func (r *retellings) of(ctx context.Context, d *Drawer) bool {
	if !r.on || d.Kind != KindEpisode || d.SessionID == "" {
		return false
	}
	has, ok := r.seen[d.SessionID]
	if !ok {
		n, err := r.p.st.Drawers().Count(ctx, Filter{Kinds: []string{KindTurn}, SessionID: d.SessionID})
		has = err == nil && n > 0
		if r.seen == nil {
			r.seen = map[string]bool{}
		}
		r.seen[d.SessionID] = has
	}
	return has
}

// bestPassage is the span of the passage that ranked a long drawer best:
// the keyword list's when it ranked the drawer at least as high as the
// vector list, else the vector list's. The two lists cut the text in
// different windows (passages.go). nil for a drawer indexed whole.
func bestPassage(d *Drawer, krank, kpass, vrank, vpass int) *Span {
	p, spans := vpass, []Span(nil)
	if krank > 0 && (vrank == 0 || krank <= vrank) {
		p = kpass
		if p > 0 {
			spans = Passages(d.Content)
		}
	} else if p > 0 {
		spans = vectorSpans(d.Content, d.VecPassages)
	}
	if p == 0 || p > len(spans) {
		return nil
	}
	sp := spans[p-1]
	return &sp
}

// vectorText is the part of d's text that its vector passage p (0: the
// whole text) was made from.
func vectorText(d *Drawer, p int) string {
	if p > 0 {
		if spans := vectorSpans(d.Content, d.VecPassages); p <= len(spans) {
			if t, ok := spans[p-1].Of(d.Content); ok {
				return t
			}
		}
	}
	return d.Content
}

// sortHits orders by score, then importance, then recency: importance and
// recency decide only between equally relevant drawers.
func sortHits(hits []Hit) {
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if d := a.Score - b.Score; d > 1e-12 || d < -1e-12 {
			return d > 0
		}
		if a.Drawer.Importance != b.Drawer.Importance {
			return a.Drawer.Importance > b.Drawer.Importance
		}
		return a.Drawer.Timestamp.After(b.Drawer.Timestamp)
	})
}

// tiedRank is the 1-based rank of list[i] where equal scores share the
// rank of the first of them, so that equally relevant drawers get equal
// fused scores and only the tie-breakers (importance, recency) order them.
func tiedRank(list []ranked, i int) int {
	for i > 0 && list[i-1].score == list[i].score {
		i--
	}
	return i + 1
}

type ranked struct {
	rid     int64
	score   float64
	passage int // the best passage (passages.go); 0: the whole text
}

// keywordRank ranks by BM25 from the in-memory index (keyword.go), built
// or loaded on first use and caught up with the change log, for query
// terms plus weighted extra tokens (relevance feedback's expansion).
// allowed, when not nil, holds the drawers the filter allows (statuses
// included); otherwise only active drawers are returned. With keep it
// also returns the terms' scores, which a later call for the same terms passes as base to
// add its extra tokens to them without scoring the terms again.
func (p *Palace) keywordRank(ctx context.Context, terms []string, extra []bm25.Weighted, base *bm25.Scored, keep bool,
	allowed *allowedSet, limit int) ([]ranked, *bm25.Scored, error) {
	if len(terms) == 0 {
		return nil, nil, nil
	}
	p.kw.searches.Add(1)
	idx, err := p.kw.sync(ctx)
	if err != nil {
		return nil, nil, err
	}
	// A long drawer's passages are documents of their own: ask for more
	// than limit when there are any, and keep each drawer once, at its
	// best passage (MaxP).
	want := limit
	if p.kw.hasLong() {
		want = 2*limit + 8
	}
	activeOnly, allow := true, (func(int64) bool)(nil)
	if allowed != nil {
		activeOnly, allow = false, func(key int64) bool {
			rid, _ := splitKey(key)
			return allowed.hasRID(rid)
		}
	}
	var hits []bm25.Hit
	var scored *bm25.Scored
	switch {
	case base != nil:
		hits = idx.Expand(base, extra) // base was kept with the same want and filter
	case keep && len(extra) == 0:
		hits, scored = idx.SearchKeep(terms, want, activeOnly, allow)
	default:
		hits = idx.SearchExpanded(terms, extra, want, activeOnly, allow)
	}
	out := make([]ranked, 0, min(len(hits), limit))
	seen := make(map[int64]bool, len(hits))
	for _, h := range hits {
		rid, passage := splitKey(h.Key)
		if seen[rid] {
			continue
		}
		seen[rid] = true
		out = append(out, ranked{rid: rid, score: h.Score, passage: passage})
		if len(out) == limit {
			break
		}
	}
	return out, scored, nil
}

// A filter allowing at most 1/byKeyFraction of the indexed vectors has its
// drawers' vectors looked up by key and scored (index.Flat.SearchKeys,
// ~250 ns a drawer at 233k vectors: its passages' keys, then each key's
// row); a larger one is searched by index.Flat.SearchFiltered, which asks
// the filter about every vector (a bitset probe of a few ns a vector, so
// from about a sixtieth of the vectors on it costs less than the look-ups)
// and scores those it admits, or searches the graph wide enough to hold
// as many of them.
const byKeyFraction = 64

// vectorSearch ranks active drawers by cosine similarity to the query
// embedding, only those in allowed when it is not nil (a small allowed set
// is scored exactly, a large one filters the index scan). It returns up to
// limit drawers; the index's candidates for the first exact of them are
// re-scored with the stored vectors, and the list goes on as deep as those
// candidates reach (so a deeper list costs no more reads).
func (p *Palace) vectorSearch(ctx context.Context, query string, allowed *allowedSet, limit, exact int, exhaustive bool) ([]ranked, error) {
	return p.vectorRank(ctx, p.queryVector(ctx, query), allowed, limit, exact, exhaustive)
}

// queryVector embeds a query for the vector ranker, or logs why it could
// not and returns nil: a search then ranks by keywords alone.
func (p *Palace) queryVector(ctx context.Context, query string) []float32 {
	qv, err := p.embedQuery(ctx, encoderText(query, p.lex))
	if err != nil {
		p.log.Warn().Err(err).Msg("embed query; vector ranking skipped")
		return nil
	}
	return qv
}

// vectorRank is vectorSearch for a query already embedded as qv; a nil
// qv (its embedding failed) ranks nothing.
func (p *Palace) vectorRank(ctx context.Context, qv []float32, allowed *allowedSet, limit, exact int, exhaustive bool) ([]ranked, error) {
	if qv == nil {
		return nil, nil
	}
	if err := p.checkEmbedder(ctx); err != nil {
		return nil, err
	}
	idx, err := p.vec.sync(ctx)
	if err != nil {
		return nil, err
	}
	// A long drawer has several vectors (its passages): ask for more than
	// limit when there are any, so that after keeping each drawer once
	// there are enough. (The 8 spare results cover stale keys.)
	want, wantExact := limit+8, exact+8
	if p.vec.hasLong() {
		want, wantExact = 2*limit+8, 2*exact+8
	}
	var res []index.Result
	cands := max(rerankFactor*wantExact, want)
	// Vectors caught up and held, not yet in the index (vecheld.go), are
	// scored apart. They are read before the index is searched: once
	// applied they are in the index, and read after it they could be in
	// neither.
	var allow func(key uint64) bool
	if allowed != nil {
		allow = allowed.hasKey
	}
	held := p.vec.heldVectors(qv, cands, allow)
	switch {
	case allowed != nil && allowed.keys.len() == 0:
		return nil, nil
	case allowed != nil && allowed.keys.len()*byKeyFraction <= idx.Len():
		// A filter of few drawers: score just their vectors, by key.
		res = idx.SearchKeys(qv, cands, p.vec.indexKeys(allowed.keyList))
	case allowed != nil:
		// Those vectors scored, every vector scanned, or (not
		// exhaustive) the index searched wide enough to hold as many of
		// them, whichever reads fewer rows.
		res = idx.SearchFiltered(qv, cands, allowed.hasKey, p.vec.vectorsOf(allowed.keys.len(), idx.Len()), exhaustive)
	case exhaustive:
		res = idx.SearchExact(qv, cands, nil)
	default:
		res = idx.Search(qv, cands, nil)
	}
	res = append(res, held...)
	if res, err = p.rerank(ctx, qv, res, want); err != nil {
		return nil, err
	}
	if out, ok := p.vec.activeRIDs(res, limit); ok {
		return out, nil
	}
	return p.resolveKeys(ctx, res, limit)
}

// allowedSet is what a filter allows: drawers by row and, for those with a
// vector, by index key (also listed, to score them one by one).
type allowedSet struct {
	rids, keys idSet
	keyList    []uint64
}

func (a *allowedSet) hasRID(rid int64) bool { return a.rids.has(uint64(rid)) }

// hasKey reports whether an index key (a drawer's whole-text or passage
// vector) belongs to an allowed drawer.
func (a *allowedSet) hasKey(key uint64) bool {
	vk, _ := splitKey(int64(key))
	return a.keys.has(uint64(vk))
}

// allowedDrawers collects the drawers a filter selects, as rows and
// vector keys.
func (p *Palace) allowedDrawers(ctx context.Context, f Filter) (*allowedSet, error) {
	a := &allowedSet{}
	err := p.st.Drawers().Keys(ctx, f, func(rid, key int64) {
		a.rids.add(uint64(rid))
		if key > 0 {
			a.keys.add(uint64(key))
			a.keyList = append(a.keyList, uint64(key))
		}
	})
	return a, storeErr("filter", err)
}

// resolveKeys maps index keys back to active drawers through SQLite,
// dropping stale keys, and keeps the index order: the fallback of
// vectorState.activeRIDs.
func (p *Palace) resolveKeys(ctx context.Context, res []index.Result, limit int) ([]ranked, error) {
	if len(res) == 0 {
		return nil, nil
	}
	keys := make([]int64, len(res))
	for i, r := range res {
		keys[i], _ = splitKey(int64(r.Key))
	}
	ridOf, err := p.st.Drawers().ResolveKeys(ctx, keys)
	if err != nil {
		return nil, storeErr("vector search", err)
	}
	out := make([]ranked, 0, len(res))
	seen := map[int64]bool{}
	for _, r := range res {
		vk, passage := splitKey(int64(r.Key))
		if rid, ok := ridOf[vk]; ok && !seen[rid] {
			seen[rid] = true
			out = append(out, ranked{rid: rid, score: float64(r.Score), passage: passage})
			if len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

// Recent returns the newest active drawers (by event time), for session
// context and dashboards.
func (p *Palace) Recent(ctx context.Context, f Filter, limit int) ([]*Drawer, error) {
	ds, _, err := p.List(ctx, ListOptions{Filter: f, Order: "newest", Limit: limit})
	return ds, err
}

// Neighbour propagation: what a conversation says about one thing it
// usually says over consecutive turns (a question and its answer, a
// statement and its elaboration), so the turns on either side of a strong
// hit are likely evidence too. Each of the neighbourHits best drawers of
// the fused ranking lifts the turn before it and the turn after it in its
// session, or its connection (store.DrawerReader.Adjacent), to
// neighbourLift of its own fused score, unless the neighbour already
// scores higher; a neighbour the filter excludes, or one a silence of
// episodeSilence parts from the hit, stays out; a neighbour that only
// reacts ("lol", "Wow, so cool!": answertype.go) rises to quietLift of
// that share, since it says nothing of its own. A turn sent as several
// messages is one turn: the lift goes on through the rest of the hit's
// run of messages and one text beyond it, each step a further
// neighbourLift of the last (see neighbours). Both values were chosen
// on LoCoMo conversations 1–5 (λ 0.5–0.8 × hits 1, 3, 5, 10; 0.6–0.7
// with 3 hits best, a plateau) and held on 6–10, hybrid any@10 /
// frac@10: session path 1–5 .840/.788 → .847/.798, 6–10 .832/.766 →
// .837/.775; agent path (texts of one connection are the neighbours:
// Drawer.Connection) 1–5 .837/.787 → .842/.791, 6–10 .832/.771 →
// .834/.773.
// LOCI_NEIGHBOUR=0 turns it off (for comparison).
const (
	neighbourHits = 3
	neighbourLift = 0.6
)

func neighbourOn() bool { return os.Getenv("LOCI_NEIGHBOUR") != "0" }

// neighbour is a text a hit lifts, and the share of the hit's score it
// rises to.
type neighbour struct {
	d    *Drawer
	lift float64
}

// neighbours are the texts d lifts: on each side, the text next to it,
// and while that text is d's speaker's too (one turn said in several
// messages, as people write in a chat), the one after it, as far as the
// first text of another speaker or turnContextBytes of d's run, whichever
// comes first. A step away from d multiplies the share by neighbourLift
// again: the neighbour of a neighbour, lifted as a neighbour is. A
// silence (apart) ends a side, and so does a share below least, which
// could not carry a text into the results. Where speakers take turns, or
// a text has no speaker, that is one text on each side at neighbourLift.
// Measured on the short-message rewrite (session path, hybrid frac@10:
// 1–5 .692 → .695, 6–10 .672 → .673; agent 6–10 .668 → .669), and on
// LoCoMo, whose speakers take turns, the same question by question
// (RECALL.md, "A turn in several messages"). A reply whose export names
// the message it answers (MetaReplyTo) lifts that message, at
// neighbourLift, in place of the texts before it, and a text after the
// hit that answers another message is passed over: in a chat of several
// conversations at once the texts next to a reply are often another's
// (RECALL.md, "Conversations held at once").
func (p *Palace) neighbours(ctx context.Context, d *Drawer, least float64) ([]neighbour, error) {
	if neighbourLift < least {
		return nil, nil
	}
	prev, next, err := p.st.Drawers().Adjacent(ctx, d, contextKinds)
	if err != nil {
		return nil, storeErr("read adjacent drawers", err)
	}
	var out []neighbour
	// A reply whose export names the message it answers lifts that
	// message in place of the text before it, however long before.
	answered, _, err := p.answered(ctx, d, nil)
	if err != nil {
		return nil, err
	}
	if answered != nil {
		if !saysNothing(answered) {
			out = append(out, neighbour{answered, neighbourLift})
		}
		prev = nil
	}
	speaker := SpeakerOf(d)
	for side, n := range []*Drawer{prev, next} {
		at, lift, size := d, neighbourLift, 0
		for steps := 0; n != nil && !apart(n, at) && steps < maxBorrowTurns; steps++ {
			if side == 1 && answersAnother(n, d) {
				// A reply to another message after d is another
				// conversation's: the walk passes it and lifts nothing.
				at = n
			} else if saysNothing(n) {
				// A line a chat export wrote in place of a photo or a
				// deleted message stands between two turns without being
				// one: the walk passes it at no cost and lifts nothing.
				at = n
			} else {
				out = append(out, neighbour{n, lift})
				size += len(n.Content)
				if speaker == "" || SpeakerOf(n) != speaker || size >= turnContextBytes {
					break
				}
				if at, lift = n, lift*neighbourLift; lift < least {
					break
				}
			}
			if prev, next, err = p.st.Drawers().Adjacent(ctx, at, contextKinds); err != nil {
				return out, storeErr("read adjacent drawers", err)
			}
			if n = prev; side == 1 {
				n = next
			}
		}
	}
	return out, nil
}

// answersAnother reports whether n names, as the message it answers
// (MetaReplyTo), another drawer than d.
func answersAnother(n, d *Drawer) bool {
	id, _ := n.Meta[MetaReplyTo].(string)
	return id != "" && id != d.ID && os.Getenv("LOCI_REPLIES") != "0"
}

// seqMemo is the store's latest change-log seq, read once per search and
// shared by both indexes: when it equals an index's high-water mark the
// index is up to date without a second read. (Only that: "behind" and
// "ahead" are decided under the index's own lock from a fresh read, since
// another search may have caught the index up past the memo meanwhile.)
type seqMemo struct {
	once sync.Once
	seq  int64
	err  error
}

type seqMemoKey struct{}

func withSeqMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, seqMemoKey{}, &seqMemo{})
}

// caughtUp reports whether an index at high-water mark hw is up to date
// by ctx's seq memo (false without one, or on a failed read).
func (p *Palace) caughtUp(ctx context.Context, hw int64) bool {
	m, ok := ctx.Value(seqMemoKey{}).(*seqMemo)
	if !ok {
		return false
	}
	m.once.Do(func() { m.seq, m.err = p.st.Drawers().MaxSeq(ctx) })
	return m.err == nil && m.seq == hw
}
