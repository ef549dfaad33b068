package index

import (
	"cmp"
	"math"
	"slices"
)

// topK keeps the k best results seen so far in a min-heap on Score, so the
// worst kept result is at h[0] and a candidate is compared with it once.
type topK struct {
	k int
	h []Result
}

func newTopK(k int) topK { return topK{k: k, h: make([]Result, 0, k)} }

// full reports whether k results are held; then min is meaningful.
func (t *topK) full() bool { return len(t.h) == t.k }

// min is the worst kept score. Only valid when full.
func (t *topK) min() float32 { return t.h[0].Score }

// floor is the score a result needs to be kept: the worst kept score
// once full, and minus infinity before. A scan holds it in a local and
// reads it again only after a push.
func (t *topK) floor() float32 {
	if len(t.h) < t.k {
		return float32(math.Inf(-1))
	}
	return t.h[0].Score
}

// push offers a result.
func (t *topK) push(key uint64, score float32) {
	if len(t.h) < t.k {
		t.h = append(t.h, Result{Key: key, Score: score})
		t.up(len(t.h) - 1)
		return
	}
	if !worse(t.h[0], Result{Key: key, Score: score}) {
		return
	}
	t.h[0] = Result{Key: key, Score: score}
	t.down(0)
}

// worse orders results: lower score is worse; on a tie the larger key is
// worse, so equal scores give a deterministic order.
func worse(a, b Result) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Key > b.Key
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !worse(t.h[i], t.h[p]) {
			return
		}
		t.h[i], t.h[p] = t.h[p], t.h[i]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && worse(t.h[r], t.h[l]) {
			m = r
		}
		if !worse(t.h[m], t.h[i]) {
			return
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

// sorted returns the kept results best first.
func (t *topK) sorted() []Result {
	out := t.h
	sortResults(out)
	return out
}

// sortResults orders results best first (score descending, key ascending).
func sortResults(rs []Result) {
	slices.SortFunc(rs, func(a, b Result) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
}
