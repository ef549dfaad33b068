package locomo

import (
	"fmt"

	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/words"
)

// Returned says how much a face gave back for a set of questions: how
// many got anything, and how many items a question on average.
type Returned struct {
	Questions int     `json:"questions"`
	Answered  int     `json:"answered"`
	Share     float64 `json:"answered_share"`
	Mean      float64 `json:"mean_returned"`
}

// CountReturned counts what rows got back.
func CountReturned(rows []Row) Returned {
	var r Returned
	total := 0
	for _, row := range rows {
		r.Questions++
		if len(row.Top) > 0 {
			r.Answered++
		}
		total += len(row.Top)
	}
	if r.Questions > 0 {
		r.Share = float64(r.Answered) / float64(r.Questions)
		r.Mean = float64(total) / float64(r.Questions)
	}
	return r
}

// Row is one question's outcome.
type Row struct {
	Sample   int
	Variant  int // index in Options.Variants
	Category int
	Question string
	Gold     []string
	Top      []string
	// SharesWord says whether the question shares a content word with
	// any of its evidence turns (sharesWord); nil in a file written
	// before it was recorded.
	SharesWord *bool `json:",omitempty"`
	// EvidenceBy says who said the question's evidence: EvidenceFirst
	// (all of it the conversation's first speaker, speaker_a), or
	// EvidenceSecond, or EvidenceBoth; "" where turns name no speaker, and
	// in a file written before it was recorded.
	EvidenceBy string `json:",omitempty"`
}

// Who said a question's evidence (Row.EvidenceBy). In a chat between a
// person and an assistant the person is the first speaker, and most of
// what is asked is what they said themselves (../shared/RETRIEVAL.md), so
// the report gives these questions apart.
const (
	EvidenceFirst  = "first"
	EvidenceSecond = "second"
	EvidenceBoth   = "both"
)

// evidenceBy is who said the evidence turns (their speakers, spoke) against
// the conversation's first speaker.
func evidenceBy(gold []string, spoke map[string]string, first string) string {
	firsts, seconds := 0, 0
	for _, g := range gold {
		switch sp := spoke[g]; {
		case sp == "" || first == "":
			return ""
		case sp == first:
			firsts++
		default:
			seconds++
		}
	}
	switch {
	case seconds == 0:
		return EvidenceFirst
	case firsts == 0:
		return EvidenceSecond
	}
	return EvidenceBoth
}

// contentTokens are the BM25 tokens (lower-cased, Porter-stemmed) of
// text's words of three letters or more that are not stopwords, less
// those in drop.
func contentTokens(text string, drop map[string]bool) map[string]bool {
	out := map[string]bool{}
	var toks []string
	for _, w := range words.Lower(text, words.Underscores) {
		if len(w) < 3 || words.IsStopword(w) {
			continue
		}
		toks = bm25.AppendTokens(toks[:0], w)
		for _, t := range toks {
			if !words.IsStopword(t) && !drop[t] {
				out[t] = true
			}
		}
	}
	return out
}

// sharesWord reports whether the question shares a content word
// (contentTokens) with any of its evidence texts, the speakers' names not
// counted: the question names whom it asks about, and every turn of that
// speaker carries the name. A question that shares none can be found only
// through meaning, context or expansion, never by its own words; on the
// held-out person-to-person chats 72% of loci's misses were such
// questions, so the evaluation reports them apart.
func sharesWord(question string, evidence []string, names map[string]bool) bool {
	q := contentTokens(question, names)
	for _, e := range evidence {
		for t := range contentTokens(e, names) {
			if q[t] {
				return true
			}
		}
	}
	return false
}

type Group struct {
	Name    string             `json:"name"`
	N       int                `json:"n"`
	Metrics map[string]float64 `json:"metrics"`
}

func Aggregate(name string, rows []Row, ks []int) Group {
	g := Group{Name: name, N: len(rows), Metrics: map[string]float64{}}
	for _, k := range ks {
		var anyS, allS, fracS float64
		for _, r := range rows {
			found := r.Found(k)
			if found > 0 {
				anyS++
			}
			if found == len(r.Gold) {
				allS++
			}
			fracS += float64(found) / float64(len(r.Gold))
		}
		n := float64(max(len(rows), 1))
		g.Metrics[fmt.Sprintf("any@%d", k)] = round4(anyS / n)
		g.Metrics[fmt.Sprintf("all@%d", k)] = round4(allS / n)
		g.Metrics[fmt.Sprintf("frac@%d", k)] = round4(fracS / n)
	}
	return g
}

// Found is how many of the question's evidence turns are among its first
// k results.
func (r Row) Found(k int) int {
	top := map[string]bool{}
	for _, id := range r.Top[:min(k, len(r.Top))] {
		top[id] = true
	}
	found := 0
	for _, gd := range r.Gold {
		if top[gd] {
			found++
		}
	}
	return found
}

// LegSplit sets a hybrid ranking's questions against its two legs run
// alone, at one cut-off: whether the fusion (with what only a hybrid
// search does: relevance feedback, the lifts, neighbours) finds more
// than either leg, and which leg's finds it loses. On a set where hybrid
// ranks below a leg, it tells whether that leg's finds are pushed out by
// the other's list (LostVector or LostKeyword) or never reached by
// either (MissedByAll). A question counts as found when any of its
// evidence is among the first k (any@k).
type LegSplit struct {
	N int `json:"n"`
	// Hybrid and EitherLeg count the questions hybrid finds and those
	// keyword only or vector only finds.
	Hybrid    int `json:"hybrid"`
	EitherLeg int `json:"either_leg"`
	// HybridOnly counts those hybrid finds and neither leg does.
	HybridOnly int `json:"hybrid_only"`
	// LostKeyword, LostVector and LostBoth count those hybrid misses that
	// keyword only, vector only, or each of them finds.
	LostKeyword int `json:"lost_keyword_only"`
	LostVector  int `json:"lost_vector_only"`
	LostBoth    int `json:"lost_both"`
	// MissedByAll counts those no ranking finds.
	MissedByAll int `json:"missed_by_all"`
}

// SplitByLeg sets hybrid's rows against keyword's and vector's, question
// by question: the rows of one ingestion asked in the same order (as
// --matrix asks them). ok is false when the three do not hold the same
// questions.
func SplitByLeg(hybrid, keyword, vector []Row, k int) (s LegSplit, ok bool) {
	if len(keyword) != len(hybrid) || len(vector) != len(hybrid) {
		return LegSplit{}, false
	}
	for i, h := range hybrid {
		kw, ve := keyword[i], vector[i]
		if kw.Sample != h.Sample || ve.Sample != h.Sample || kw.Question != h.Question || ve.Question != h.Question {
			return LegSplit{}, false
		}
		hf, kf, vf := h.Found(k) > 0, kw.Found(k) > 0, ve.Found(k) > 0
		s.N++
		switch {
		case hf:
			s.Hybrid++
			if !kf && !vf {
				s.HybridOnly++
			}
		case kf && vf:
			s.LostBoth++
		case kf:
			s.LostKeyword++
		case vf:
			s.LostVector++
		default:
			s.MissedByAll++
		}
		if kf || vf {
			s.EitherLeg++
		}
	}
	return s, true
}

func round4(f float64) float64 { return float64(int64(f*10000+0.5)) / 10000 }

// Groups computes the report: per category and overall (1-5 and 1-4).
func Groups(rows []Row, ks []int) []Group {
	var out []Group
	for c := 1; c <= 5; c++ {
		var sel []Row
		for _, r := range rows {
			if r.Category == c {
				sel = append(sel, r)
			}
		}
		out = append(out, Aggregate(fmt.Sprintf("%d %s", c, Categories[c]), sel, ks))
	}
	var no5 []Row
	for _, r := range rows {
		if r.Category != 5 {
			no5 = append(no5, r)
		}
	}
	out = append(out, Aggregate("overall 1-4", no5, ks), Aggregate("overall 1-5", rows, ks))
	// Questions by whether they share a word with their evidence (rows
	// read from an older file may not say).
	var shares, none []Row
	for _, r := range rows {
		switch {
		case r.SharesWord == nil:
		case *r.SharesWord:
			shares = append(shares, r)
		default:
			none = append(none, r)
		}
	}
	if len(shares)+len(none) > 0 {
		out = append(out, Aggregate(GroupSharesWord, shares, ks), Aggregate(GroupSharesNoWord, none, ks))
	}
	// Questions by who said their evidence, where the rows say.
	for _, g := range EvidenceGroups {
		var sel []Row
		for _, r := range rows {
			if r.EvidenceBy == g.By {
				sel = append(sel, r)
			}
		}
		if len(sel) > 0 {
			out = append(out, Aggregate(g.Name, sel, ks))
		}
	}
	return out
}

// EvidenceGroups name the report's groups of questions by who said their
// evidence (Row.EvidenceBy).
var EvidenceGroups = []struct{ Name, By string }{
	{"evidence by 1st", EvidenceFirst},
	{"evidence by 2nd", EvidenceSecond},
	{"evidence by both", EvidenceBoth},
}

// The groups of questions by whether they share a content word with their
// evidence (Row.SharesWord).
const (
	GroupSharesWord   = "shares a word"
	GroupSharesNoWord = "shares no word"
)
