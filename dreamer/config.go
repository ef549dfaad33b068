package dreamer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Settings tune the passes. The zero value of a field means its default
// (see DefaultSettings); Run fills them in.
type Settings struct {
	// Budget bounds a run's wall time: a pass that reaches it stops
	// planning and commits what it has planned; later passes are skipped.
	Budget time.Duration

	// HalfLife and Floor shape importance decay: an unaccessed drawer's
	// importance halves every HalfLife towards Floor (never below it, and
	// never below its own base when that is lower). AccessBoost (0..1) is
	// how much of the decay frequent access wins back.
	HalfLife    time.Duration
	Floor       float64
	AccessBoost float64

	// FactHorizon overrides the palace's staleness horizon for facts
	// (LOCI_FACT_HORIZON or the config file); 0 keeps the palace's,
	// negative disables staleness.
	FactHorizon time.Duration

	// DedupThresholds maps an embedder id to the cosine similarity above
	// which two drawers may be near-duplicates (the text check must agree
	// too). An embedder with no entry is not deduplicated.
	DedupThresholds map[string]float64
	// DedupThreshold, when above 0, overrides the map for every embedder.
	DedupThreshold float64
	// TextOverlap is the text check's minimum share of content words in
	// common, relative to the longer text.
	TextOverlap float64

	// SkillCosine is the similarity between a case and a cluster's
	// centroid needed to join it; SkillMinCases the cases a skill needs.
	SkillCosines  map[string]float64
	SkillMinCases int

	// TombstoneRatio is the share of dead index entries above which the
	// index pass rebuilds the vector index.
	TombstoneRatio float64
	// ReembedBatch is the index pass's re-embedding batch size.
	ReembedBatch int

	// ChurnWindow and ChurnMin select the knowledge-graph subjects the kg
	// pass reports: at least ChurnMin object changes within ChurnWindow.
	ChurnWindow time.Duration
	ChurnMin    int

	// LockTTL is the dreamer lock's lease; a killed holder blocks other
	// processes for at most this long. The holder renews it every TTL/3.
	LockTTL time.Duration

	// PassDelay and ApplyDelay slow passes down for tests of shutdown and
	// locking: PassDelay before each pass, ApplyDelay in the middle of
	// applying a pass's changes (inside its transaction). Both stop at
	// once when the run is cancelled.
	PassDelay  time.Duration
	ApplyDelay time.Duration
}

// hybridID is the id of embed.Default() ("hybrid") when these thresholds
// were measured.
const hybridID = "concat(hash-v1*0.15,glove-100d-sif-v1*0.7,use-lite-v1*0.15)"

// Measured near-duplicate thresholds (cosine) per embedder id; see
// README.md for how they were measured and the commands to re-measure. An
// unlisted concatenation of listed embedders gets the weighted mean of its
// parts' thresholds (its cosine is the weighted mean of theirs).
var defaultDedupThresholds = map[string]float64{
	"hash-v1":           0.81,
	"glove-100d-sif-v1": 0.95,
	"use-lite-v1":       0.89,
	hybridID:            defaultDedupCosine,
}

// defaultDedupCosine is the default encoder's near-duplicate threshold,
// which an unmeasured embedder gets carried to its own scale of
// restatements (embed.MeasureRestatements): as many standard deviations
// below what a text and its light restatement score with it on average.
// Carried so, it comes within 0.007, 0.015 and 0.007 of what was measured
// for hash, USE-lite and GloVe (0.817, 0.905 and 0.943 against 0.81, 0.89
// and 0.95). On the scale of unrelated texts it does not carry (hash 0.60,
// USE-lite 0.77).
const defaultDedupCosine = 0.93

// Clustering thresholds (average pairwise cosine) for agent skills per
// embedder id, measured like the above on a small hand-written set (see
// README.md): the most cases clustered with skills at least 90% pure.
var defaultSkillCosines = map[string]float64{
	"hash-v1":           0.40,
	"glove-100d-sif-v1": 0.88,
	"use-lite-v1":       0.65,
	hybridID:            defaultSkillCosine,
}

// DefaultSettings returns the settings used for zero fields.
func DefaultSettings() Settings {
	return Settings{
		Budget:          60 * time.Second,
		HalfLife:        90 * 24 * time.Hour,
		Floor:           0.1,
		AccessBoost:     0.5,
		DedupThresholds: copyMap(defaultDedupThresholds),
		TextOverlap:     0.6,
		SkillCosines:    copyMap(defaultSkillCosines),
		SkillMinCases:   3,
		TombstoneRatio:  0.2,
		ReembedBatch:    64,
		ChurnWindow:     30 * 24 * time.Hour,
		ChurnMin:        3,
		LockTTL:         60 * time.Second,
	}
}

func copyMap(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// withDefaults fills zero fields from DefaultSettings.
func (s Settings) withDefaults() Settings {
	d := DefaultSettings()
	if s.Budget <= 0 {
		s.Budget = d.Budget
	}
	if s.HalfLife <= 0 {
		s.HalfLife = d.HalfLife
	}
	if s.Floor <= 0 {
		s.Floor = d.Floor
	}
	if s.AccessBoost <= 0 {
		s.AccessBoost = d.AccessBoost
	}
	if s.DedupThresholds == nil {
		s.DedupThresholds = d.DedupThresholds
	}
	if s.TextOverlap <= 0 {
		s.TextOverlap = d.TextOverlap
	}
	if s.SkillCosines == nil {
		s.SkillCosines = d.SkillCosines
	}
	if s.SkillMinCases <= 0 {
		s.SkillMinCases = d.SkillMinCases
	}
	if s.TombstoneRatio <= 0 {
		s.TombstoneRatio = d.TombstoneRatio
	}
	if s.ReembedBatch <= 0 {
		s.ReembedBatch = d.ReembedBatch
	}
	if s.ChurnWindow <= 0 {
		s.ChurnWindow = d.ChurnWindow
	}
	if s.ChurnMin <= 0 {
		s.ChurnMin = d.ChurnMin
	}
	if s.LockTTL <= 0 {
		s.LockTTL = d.LockTTL
	}
	return s
}

// dedupThreshold returns the near-duplicate cosine for an embedder, and
// whether there is one.
func (s Settings) dedupThreshold(model string) (float64, bool) {
	if s.DedupThreshold > 0 {
		return s.DedupThreshold, true
	}
	return lookupThreshold(s.DedupThresholds, model)
}

// skillCosine returns the clustering threshold for an embedder, and
// whether it was measured for it.
func (s Settings) skillCosine(model string) (float64, bool) {
	return lookupThreshold(s.SkillCosines, model)
}

// defaultSkillCosine is the default encoder's clustering threshold, which
// an unmeasured embedder gets carried to its own cosine scale
// (embed.Translate): as far above what unrelated texts score. Carried so,
// it comes within 0.03, 0.11 and 0.09 of what was measured for hash,
// USE-lite and GloVe (0.43, 0.54 and 0.97 against 0.40, 0.65 and 0.88),
// where the default's 0.75 as it is was 0.35, 0.10 and 0.13 off.
// (Near-duplicate thresholds are carried on another scale:
// defaultDedupCosine.)
const defaultSkillCosine = 0.75

// lookupThreshold finds model in m, or, for "concat(id*w,...)" whose parts
// are all in m, the w-weighted mean of theirs.
func lookupThreshold(m map[string]float64, model string) (float64, bool) {
	if t, ok := m[model]; ok && t > 0 {
		return t, true
	}
	inner, ok := strings.CutPrefix(model, "concat(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return 0, false
	}
	var sum, wsum float64
	for _, part := range strings.Split(strings.TrimSuffix(inner, ")"), ",") {
		i := strings.LastIndexByte(part, '*')
		if i < 0 {
			return 0, false
		}
		w, err := strconv.ParseFloat(part[i+1:], 64)
		t, known := m[part[:i]]
		if err != nil || !known || !(w > 0) {
			return 0, false
		}
		sum += w * t
		wsum += w
	}
	if wsum == 0 {
		return 0, false
	}
	return math.Round(sum/wsum*100) / 100, true
}

// Schedule defaults.
const (
	DefaultIdle  = 5 * time.Minute
	DefaultEvery = 6 * time.Hour
)

// ConfigFromEnv reads the dreamer's environment variables through getenv
// (os.Getenv in loci; a map in tests) into a Config with the given base.
// Unset variables keep base's values. The variables are documented in
// README.md.
func ConfigFromEnv(base Config, getenv func(string) string) (Config, error) {
	c := base
	if v := strings.TrimSpace(getenv("LOCI_DREAM")); v != "" {
		switch strings.ToLower(v) {
		case "on", "1", "true", "yes":
			c.Disabled = false
		case "off", "0", "false", "no":
			c.Disabled = true
		default:
			return c, fmt.Errorf("LOCI_DREAM=%q: want on or off", v)
		}
	}
	durations := []struct {
		name string
		dst  *time.Duration
		zero bool // 0 is allowed
	}{
		{"LOCI_DREAM_IDLE", &c.Idle, true},
		{"LOCI_DREAM_EVERY", &c.Every, false},
		{"LOCI_DREAM_TICK", &c.Tick, false},
		{"LOCI_DREAM_BUDGET", &c.Settings.Budget, false},
		{"LOCI_DREAM_LOCK_TTL", &c.Settings.LockTTL, false},
		{"LOCI_DECAY_HALF_LIFE", &c.Settings.HalfLife, false},
	}
	for _, d := range durations {
		v := strings.TrimSpace(getenv(d.name))
		if v == "" {
			continue
		}
		x, err := ParseDuration(v)
		if err != nil || (x == 0 && !d.zero) {
			return c, fmt.Errorf("%s=%q: want a duration such as 90s, 10m, 12h or 30d", d.name, v)
		}
		if x == 0 {
			x = -1 // a zero idle period means "do not wait"; Config's zero means the default
		}
		*d.dst = x
	}
	floats := []struct {
		name   string
		dst    *float64
		lo, hi float64
	}{
		{"LOCI_DECAY_FLOOR", &c.Settings.Floor, 0, 1},
		{"LOCI_DEDUP_THRESHOLD", &c.Settings.DedupThreshold, 0, 1},
	}
	for _, f := range floats {
		v := strings.TrimSpace(getenv(f.name))
		if v == "" {
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || x <= f.lo || x > f.hi {
			return c, fmt.Errorf("%s=%q: want a number in (%g, %g]", f.name, v, f.lo, f.hi)
		}
		*f.dst = x
	}
	if v := strings.TrimSpace(getenv("LOCI_DEBUG_DREAM_DELAY_MS")); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return c, fmt.Errorf("LOCI_DEBUG_DREAM_DELAY_MS=%q: want milliseconds", v)
		}
		c.Settings.ApplyDelay = time.Duration(ms) * time.Millisecond
	}
	if v := strings.TrimSpace(getenv("LOCI_DEBUG_DREAM_PASS_DELAY_MS")); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return c, fmt.Errorf("LOCI_DEBUG_DREAM_PASS_DELAY_MS=%q: want milliseconds", v)
		}
		c.Settings.PassDelay = time.Duration(ms) * time.Millisecond
	}
	return c, nil
}

// ParseDuration reads a duration: a Go duration ("90s", "12h"), or a
// number of days ("30d") or weeks ("2w").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if num, ok := strings.CutSuffix(s, suffix); ok {
			n, err := strconv.ParseFloat(num, 64)
			if err != nil || n < 0 || n > 100*365 || math.IsNaN(n) {
				return 0, fmt.Errorf("bad duration %q", s)
			}
			return time.Duration(n * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return d, nil
}
