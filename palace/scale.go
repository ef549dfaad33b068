package palace

import (
	"context"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/loci-mem/loci/palace/embed"
)

// A cosine threshold is chosen with one embedder, and embedders place
// their cosines differently (embed.Scale). The faces that keep or drop a
// hit by its cosine (the facts' and the mem_* tools' floors, the prompt
// hook's relevance) state the scale they were chosen on and carry the
// palace's cosines onto it; the dreamer carries its near-duplicate
// threshold on the scale of restatements. A built-in encoder's scales are
// known; another embedder's (a model behind an engine) are measured the
// first time they are needed, with one or two calls of the embedder, and
// recorded in the palace's metadata ("<embedder id> <mean> <sd>"), so that
// a hook, a process a prompt, does not measure them again.

// scaleRetry is how long a failed measurement stands before the next
// need of the scale measures again (the engine may be back).
const scaleRetry = time.Minute

// A scaleKind is one of the scales a palace knows of its embedder.
type scaleKind struct {
	meta    string // the metadata key its measurement is recorded under
	what    string // its name in logs
	without string // what is done without it, for the log
	known   func(id string) (embed.Scale, bool)
	measure func(context.Context, embed.Embedder) (embed.Scale, error)
}

var (
	cosineScale = scaleKind{"cosine_scale", "cosine scale",
		"cosine floors compare raw cosines", embed.KnownScale, embed.MeasureScale}
	restatementScale = scaleKind{"restatement_scale", "scale of restatements",
		"the dreamer links no near-duplicates", embed.KnownRestatements, embed.MeasureRestatements}
)

// scaleState caches one scale of the palace's embedder.
type scaleState struct {
	mu     sync.Mutex
	id     string // the embedder the scale is of
	scale  embed.Scale
	failed time.Time // when a measurement last failed
}

// CosineScale returns the scale of the palace's embedder, and false when
// it is not known and could not be measured (the embedder failed; the
// warning is logged): the caller then compares cosines as they are, as
// loci did before scales.
func (p *Palace) CosineScale(ctx context.Context) (embed.Scale, bool) {
	return p.scaleOf(ctx, &p.scale, cosineScale)
}

// RestatementScale returns where the palace's embedder places the cosines
// of a text and a light restatement of it (embed.MeasureRestatements),
// and false when it is not known and could not be measured.
func (p *Palace) RestatementScale(ctx context.Context) (embed.Scale, bool) {
	return p.scaleOf(ctx, &p.restated, restatementScale)
}

// scaleOf returns the palace embedder's scale of kind k: known, recorded,
// or measured and recorded; c caches it. LOCI_COSINE_SCALE=0 makes every
// scale unknown.
func (p *Palace) scaleOf(ctx context.Context, c *scaleState, k scaleKind) (embed.Scale, bool) {
	if !scalesOn() {
		return embed.Scale{}, false
	}
	id := p.emb.ID()
	if s, ok := k.known(id); ok {
		return s, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id == id && c.scale.Valid() {
		return c.scale, true
	}
	if c.id == id && time.Since(c.failed) < scaleRetry {
		return embed.Scale{}, false
	}
	c.id, c.scale, c.failed = id, embed.Scale{}, time.Time{}
	if rec, ok, err := p.st.Meta().Get(ctx, k.meta); err == nil && ok {
		if recID, text, cut := strings.Cut(rec, " "); cut && recID == id {
			if s, err := embed.ParseScale(text); err == nil {
				c.scale = s
				return s, true
			}
		}
	}
	s, err := k.measure(ctx, p.emb)
	if err != nil {
		c.failed = time.Now()
		p.log.Warn().Err(err).Str("embedder", id).Msg("cannot measure the embedder's " + k.what + "; " + k.without)
		return embed.Scale{}, false
	}
	c.scale = s
	err = p.Write(ctx, func(t *Tx) error {
		return storeErr("record the embedder's "+k.what, t.st.Meta().Set(ctx, k.meta, id+" "+s.String()))
	})
	if err != nil {
		p.log.Debug().Err(err).Msg("record the embedder's " + k.what) // read-only: measured again by the next process
	}
	p.log.Info().Str("embedder", id).Float64("mean", s.Mean).Float64("sd", s.SD).Msg("measured the embedder's " + k.what)
	return s, true
}

// CosineOn returns a function carrying the palace's cosines onto scale
// on: the identity when the palace's scale is on, or is not known.
func (p *Palace) CosineOn(ctx context.Context, on embed.Scale) func(float64) float64 {
	s, ok := p.CosineScale(ctx)
	if !ok || s == on {
		return func(c float64) float64 { return c }
	}
	return func(c float64) float64 { return embed.Translate(c, s, on) }
}

// CosineFloor carries a threshold chosen on scale on to the palace's
// scale: the cosine that stands as far above what unrelated texts score
// with this palace's embedder. Without a known scale it is t. With a
// lexical embedder (embed.Lexical) no cosine reaches it: a hit that shares
// no word with the query shares nothing such a cosine could show.
func (p *Palace) CosineFloor(ctx context.Context, t float64, on embed.Scale) float64 {
	if !scalesOn() {
		return t
	}
	if embed.Lexical(p.emb) {
		return math.Inf(1)
	}
	s, ok := p.CosineScale(ctx)
	if !ok {
		return t
	}
	return embed.Translate(t, on, s)
}

// scalesOn reports whether cosines are carried between scales
// (LOCI_COSINE_SCALE=0 compares them as they are, as before scales, for
// comparisons).
func scalesOn() bool { return os.Getenv("LOCI_COSINE_SCALE") != "0" }
