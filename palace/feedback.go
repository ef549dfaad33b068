package palace

import (
	"context"
	"math"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/words"
)

// Pseudo-relevance feedback for the keyword ranker, RM3 (Lavrenko and
// Croft's relevance model, interpolated with the query as in Abdul-Jaleel
// et al., TREC 2004): the first pass's best drawers are taken as relevant,
// the words that set them apart from the rest of the palace become extra
// query terms (chosen by KL divergence, weighted by the relevance model),
// and the keyword ranker runs again with them. A question worded unlike the memory that answers
// it ("where does she work?" against "…joined the clinic downtown…") finds
// it through the words the other hits share with it.
//
// Search uses it in hybrid mode only: the feedback drawers are the best of
// the fused ranking among those that matched the query's words, and the
// expanded keyword list replaces the keyword list in the fusion (a
// drawer's KeywordRank stays that of the query's own words). Keyword-only
// search stays literal.
//
// The parameters are the method's customary defaults, as Anserini and
// Terrier ship them, not values chosen on an evaluation set: ten feedback
// documents, ten expansion terms, the original query weighted 0.5.
const (
	feedbackDocs   = 10
	feedbackTerms  = 10
	feedbackLambda = 0.5 // weight of the original query in the interpolation
	// feedbackMu smooths P(t|d) as a Dirichlet prior does, tf/(|d|+μ):
	// without it a three-word note's words each get a third of its mass
	// and outweigh a long passage's, so that a short, barely relevant
	// feedback drawer steers the expansion. 1000 is the customary μ of
	// Dirichlet smoothing for short queries (Zhai and Lafferty).
	feedbackMu = 1000
	// feedbackMinDocs: the method assumes the feedback documents are a
	// small, mostly relevant head of a large collection. In a palace of a
	// few dozen drawers the "top ten" is most of what matched at all, and
	// its words are noise; feedback starts where ten drawers are at most a
	// tenth of the palace's drawers (a long drawer's passages count as one
	// drawer: a palace of one long document and a note has two).
	feedbackMinDocs = 10 * feedbackDocs
	// feedbackRestates: a candidate feedback drawer that shares at least
	// this share of its words with one already taken, counted over the
	// shorter of the two and leaving out the query's own words, restates
	// it, and is passed over (feedbackDocuments). Half is where "most of
	// what it says" begins. Checked on conversations 1–5 (session path,
	// hybrid any@10): 0.4, 0.5, 0.65 and 0.8 give .866, .863, .864, .864
	// on LoCoMo (.865 without) and .723, .729, .714, .712 on its rewrite
	// with replies that restate the 8 turns before them (.703 without);
	// RECALL.md has the held-out halves.
	feedbackRestates = 0.5
	// feedbackRestateWords: a text of fewer words beyond the query's
	// ("yes, the camping trip!") is too short to call a restatement: one
	// word in common would be half of it.
	feedbackRestateWords = 3
)

// feedbackOn reports whether relevance feedback is used (LOCI_FEEDBACK=0
// turns it off, for comparisons).
func feedbackOn() bool { return os.Getenv("LOCI_FEEDBACK") != "0" }

// restatementsOn reports whether feedbackDocuments passes over texts that
// restate one already taken (LOCI_RESTATE=0 turns it off, for
// comparisons).
func restatementsOn() bool { return os.Getenv("LOCI_RESTATE") != "0" }

// longFeedbackOn reports whether drawers indexed as passages can be
// feedback documents (LOCI_FEEDBACK_LONG=1, for comparisons; see
// feedbackDocuments).
func longFeedbackOn() bool { return os.Getenv("LOCI_FEEDBACK_LONG") == "1" }

// feedbackCand is a drawer of the first ranking that matched the query's
// words, with its fused score and the keyword passage that matched.
type feedbackCand struct {
	rid          int64
	krank, kpass int
	score        float64
}

// feedbackDocuments reads the feedback documents: the first feedbackDocs
// of the candidates (best first) that are not long and do not restate one
// already taken, as tokens (after its day's word, as it is indexed) and
// their first-pass scores.
//
// The relevance model takes each feedback document for a text about the
// question's subject, and a text of a turn or a note is about one thing.
// A text long enough to be indexed as passages (over PassageWords words:
// an assistant's reply of several paragraphs, a pasted file, a document)
// is about several, and the passage of it that matched the question is a
// window cut without regard to where one subject ends: its other words
// are those of whatever else the text goes on to. Taken as feedback they
// steer the expansion toward the rest of such texts, which crowd out the
// short statement a question asks about. On the rewrite whose replies
// elaborate on what they were told (--topic-replies 8; palace/RECALL.md,
// "Replies that elaborate") passing them over gains .07 any@10 on both
// halves and paths. A palace of short texts is unchanged, and one of long
// texts only gets no feedback.
//
// The relevance model adds up the words of its feedback documents.
// Where texts restate one another — a long reply that repeats the
// statements before it, a note saved twice, a pasted message — their
// common words are counted several times over, and the expansion drifts
// toward what is repeated rather than what the best hits share. Taking
// one text of each such group (the best-ranked) keeps the ten as
// independent as the method assumes, as maximal marginal relevance
// (Carbonell and Goldstein, 1998) keeps a result list from repeating
// itself. Candidates are read ten at a time, so a head without
// repetition costs no more reads than before, and one full of it at most
// one read per ten of the keyword list's drawers.
func (p *Palace) feedbackDocuments(ctx context.Context, pool []feedbackCand, queryToks []string) ([][]string, []float64, error) {
	inQuery := make(map[string]bool, len(queryToks))
	for _, t := range queryToks {
		inQuery[t] = true
	}
	var docs [][]string
	var scores []float64
	var taken []map[string]bool // each taken document's words beyond the query's
	dedup, long := restatementsOn(), longFeedbackOn()
	for len(pool) > 0 && len(docs) < feedbackDocs {
		batch := pool[:min(len(pool), feedbackDocs)]
		pool = pool[len(batch):]
		rs := make([]int64, len(batch))
		for i, c := range batch {
			rs[i] = c.rid
		}
		ds, err := p.drawersByRID(ctx, rs)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range batch {
			d := ds[c.rid]
			if d == nil || len(docs) == feedbackDocs {
				continue
			}
			if isTapbackText(d) {
				// It restates another text whole (a tapback quotes it),
				// and counts once, as that text (feedbackRestates).
				continue
			}
			// A drawer long enough to be indexed as passages is passed
			// over, or, for comparisons (longFeedbackOn), the passage
			// that matched is its feedback document.
			text := d.Content
			if sp := bestPassage(d, c.krank, c.kpass, 0, 0); sp != nil {
				if !long {
					continue
				}
				text = d.Content[sp.Start:sp.End]
			}
			text = unaddressed(text, addressedBy(d)) // as it is indexed
			// With its episode's or day's word, as it is indexed
			// (episodeWord).
			toks := bm25.AppendTokens(nil, episodeWord(d.Timestamp, d.Content, episode{d.SessionID, d.Connection}))
			dated := len(toks)
			toks = bm25.AppendTokens(toks, text)
			if dedup {
				said := toks[dated:]
				if body := spokenWords(text, d); body != text {
					said = bm25.AppendTokens(nil, body) // without its header
				}
				own := make(map[string]bool, len(said))
				for _, t := range said {
					if !inQuery[t] && len(t) >= 2 && !stopToken(t) {
						own[t] = true
					}
				}
				if restates(own, taken) {
					continue
				}
				taken = append(taken, own)
			}
			docs = append(docs, toks)
			scores = append(scores, c.score)
		}
	}
	return docs, scores, nil
}

// stopTokens are the stopwords as BM25 tokens. Feedback reads tokens,
// which are stemmed, and words.IsStopword knows words: "they", "this",
// "was" and "very" are "thei", "thi", "wa" and "veri" as tokens, and
// passed for the subject of the feedback drawers that say them most.
var stopTokens = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range words.Stopwords() {
		for _, t := range bm25.AppendTokens(nil, w) {
			m[t] = true
		}
	}
	return m
})

// stopToken reports whether a BM25 token is a stopword's.
func stopToken(t string) bool { return stopTokens()[t] }

// spokenWords is what a text of d says, for judging restatements and
// whether it only asks or reacts: without the header an agent's text opens
// with ("[D1:3] (8 May, 2023) Caroline: …"), whose words every text of a
// conversation shares, without a label that names d's sender in any case
// ("caroline: …", a speaker recorded in lower case), and without what a
// chat export writes in place of a photo or a deleted message
// (withoutPlaceholders).
func spokenWords(text string, d *Drawer) string {
	return withoutPlaceholders(unlabelled(text, d))
}

// unlabelled is text without its header and the label that names d's
// sender.
func unlabelled(text string, d *Drawer) string {
	_, body, headed := readHeaded(text)
	if n := labelLen(body, headed); n > 0 {
		return body[n:]
	}
	if len(d.SenderIDs) > 0 {
		if sp := d.SenderIDs[0]; len(body) > len(sp) && body[len(sp)] == ':' && strings.EqualFold(body[:len(sp)], sp) {
			return strings.TrimLeft(body[len(sp)+1:], " \t")
		}
	}
	return body
}

// restates reports whether a text with the words own shares at least
// feedbackRestates of the shorter one's words with one of taken.
func restates(own map[string]bool, taken []map[string]bool) bool {
	for _, o := range taken {
		n := min(len(own), len(o))
		if n < feedbackRestateWords {
			continue
		}
		shared := 0
		for t := range own {
			if o[t] {
				shared++
			}
		}
		if float64(shared) >= feedbackRestates*float64(n) {
			return true
		}
	}
	return false
}

// expansionTerms computes RM3's expansion from the feedback documents'
// tokens and their first-pass scores: P(t|R) = Σ_d P(t|d)·P(d|q), with
// P(t|d) = [t in d]/(|d|+μ) and P(d|q) the document's share of the
// scores; stopwords and the query's own tokens are left out.
//
// A document counts each of its words once, not tf times. Text that
// repeats its words is common in a palace: a pasted log or source file
// names the same identifiers on every line ("err", "nil", "resp"), a list
// repeats its heading's words. Counted by frequency, one such passage
// among the ten outweighs the other nine together, and the expansion
// becomes its vocabulary (a question about someone's relationship status
// expanded with "resp err nil statuscod", from a pasted HTTP client that
// matched "status"). Counted once a document, a word weighs by how many
// of the best hits use it, as the relevance weights of Robertson and
// Spärck Jones (1976) count relevant documents, not occurrences, and
// Robertson (1990) selects expansion terms by them. Weights are relative
// to an original query token's 1: with the query q and RM1 each a
// distribution, RM3 is λ·q + (1−λ)·RM1, so an expansion term weighs
// (1−λ)/λ · |q| · P(t|R) against an original term's 1.
func expansionTerms(docs [][]string, scores []float64, queryToks []string, share func(tok string) float64) []bm25.Weighted {
	if len(docs) == 0 || len(queryToks) == 0 {
		return nil
	}
	inQuery := make(map[string]bool, len(queryToks))
	for _, t := range queryToks {
		inQuery[t] = true
	}
	// P(d|q) is the document's share of the first pass's (fused)
	// retrieval scores, as RM3 implementations weigh feedback documents by
	// their retrieval score.
	total := 0.0
	for _, s := range scores {
		total += s
	}
	if total <= 0 {
		return nil
	}
	rel := map[string]float64{}
	for i, toks := range docs {
		if len(toks) == 0 {
			continue
		}
		pd := scores[i] / total
		share := pd / (float64(len(toks)) + feedbackMu)
		seen := make(map[string]bool, len(toks))
		for _, t := range toks {
			if seen[t] || inQuery[t] || len(t) < 2 || stopToken(t) {
				continue
			}
			seen[t] = true
			rel[t] += share
		}
	}
	type term struct {
		tok  string
		p    float64
		gain float64 // what choosing it is worth (below)
	}
	relSum := 0.0
	for _, p := range rel {
		relSum += p
	}
	ts := make([]term, 0, len(rel))
	for t, p := range rel {
		// Terms are chosen by their contribution to the divergence of
		// the feedback model from the collection's (Carpineto et al.,
		// 2001): P(t|R)·log(P(t|R)/P(t|C)). A word the whole palace uses
		// (a speaker's name, the project's name) is frequent in any ten
		// drawers and says nothing about these; one the feedback drawers
		// use far more than the palace does is their subject.
		pr := p / relSum
		gain := pr
		if share != nil {
			pc := share(t)
			if pc <= 0 || pr <= pc {
				continue // not indexed, or no more frequent here than anywhere
			}
			gain = pr * math.Log(pr/pc)
		}
		ts = append(ts, term{t, p, gain})
	}
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].gain != ts[j].gain {
			return ts[i].gain > ts[j].gain
		}
		return ts[i].tok < ts[j].tok
	})
	ts = ts[:min(len(ts), feedbackTerms)]
	sum := 0.0
	for _, t := range ts {
		sum += t.p
	}
	if sum <= 0 {
		return nil
	}
	scale := (1 - feedbackLambda) / feedbackLambda * float64(len(inQuery))
	out := make([]bm25.Weighted, len(ts))
	for i, t := range ts {
		out[i] = bm25.Weighted{Tok: t.tok, W: scale * t.p / sum}
	}
	return out
}
