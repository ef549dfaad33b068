package palace

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace/words"
)

// Closets are the dreamer's per-room keyword and summary indexes (see
// store.Closet). They are derived data: losing them loses nothing, and L2
// recall only uses them to break near-ties (see closetBoost). The dreamer
// refreshes them through its journal (package dreamlog).

// MaxClosetKeywords bounds the keywords stored per closet.
const MaxClosetKeywords = 32

// Closets returns the palace's closets ordered by room.
func (p *Palace) Closets(ctx context.Context) ([]Closet, error) {
	cs, err := p.st.Dream().Closets(ctx)
	return cs, storeErr("read closets", err)
}

// closetBonusMax bounds the closet boost. Scores are fused reciprocal
// ranks scaled so the best possible is 1; neighbouring ranks near the top
// differ by about 0.008 (both rankers) to 0.016 (one ranker), so a bonus of
// at most 0.004 can only reorder hits whose relevance is already nearly
// equal. It never adds a hit and never changes a hit's Score.
const closetBonusMax = 0.004

// closetBoost is L2 recall's closet hook: a hit whose room's closet
// keywords cover many of the query's terms gets a bonus of up to
// closetBonusMax for ordering only. Without closets, or with fewer than two
// hits, hits come back unchanged.
func (p *Palace) closetBoost(ctx context.Context, query string, hits []Hit) []Hit {
	if len(hits) < 2 {
		return hits
	}
	terms := searchedTerms(queryTerms(query), nil)
	if len(terms) == 0 {
		return hits
	}
	closets, err := p.closetsForRecall(ctx)
	if err != nil || len(closets) == 0 {
		return hits
	}
	bonus := map[string]float64{}
	for _, c := range closets {
		kw := make(map[string]bool, len(c.Keywords))
		for _, k := range c.Keywords {
			kw[closetStem(k)] = true
		}
		matched := 0
		for _, t := range terms {
			if kw[closetStem(t)] {
				matched++
			}
		}
		if matched > 0 {
			bonus[c.Room] = closetBonusMax * float64(matched) / float64(len(terms))
		}
	}
	if len(bonus) == 0 {
		return hits
	}
	out := append([]Hit(nil), hits...)
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Score+bonus[out[i].Drawer.Room] > out[j].Score+bonus[out[j].Drawer.Room]+1e-12
	})
	return out
}

// closetStem folds a word the way closet keywords and query terms are
// compared (words.Fold).
func closetStem(w string) string { return words.Fold(w) }

// closetTTL is how long recall reuses the closets it read: they change
// only when the dreamer refreshes them, and they only break near-ties, so
// a few seconds' staleness costs nothing, while reading them for every
// recall is a round trip to a store server. A write this process commits
// drops them at once (the dreamer's refresh is one); another process's
// refresh counts within closetTTL.
const closetTTL = 5 * time.Second

// closetCache holds the closets recall read last.
type closetCache struct {
	mu sync.Mutex
	at time.Time
	cs []Closet
}

// closetsForRecall is Closets, reused for closetTTL.
func (p *Palace) closetsForRecall(ctx context.Context) ([]Closet, error) {
	c := &p.closets
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < closetTTL {
		return c.cs, nil
	}
	cs, err := p.Closets(ctx)
	if err != nil {
		return nil, err
	}
	c.at, c.cs = time.Now(), cs
	return cs, nil
}

// forget drops the cached closets.
func (c *closetCache) forget() {
	c.mu.Lock()
	c.at, c.cs = time.Time{}, nil
	c.mu.Unlock()
}
