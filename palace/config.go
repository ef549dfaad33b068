package palace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ConfigFile is the name of the optional settings file in the data dir.
const ConfigFile = "config.json"

// Defaults of the settings.
const (
	DefaultFactHorizon = 180 * 24 * time.Hour
	DefaultTopK        = 5
	MaxTopK            = 50
)

// Settings are the user's tunables for the memory faces. They come from
// the optional file <data dir>/config.json, then environment variables,
// which win:
//
//	{"autopromote": false, "fact_horizon": "180d", "top_k": 5}
//
//	LOCI_AUTOPROMOTE   true|false   promote tier-1 facts without review
//	LOCI_FACT_HORIZON  180d|26w|4320h|off  facts unconfirmed for longer go stale
//	LOCI_TOPK          1..50        default result count of mem_search
//
// Keys the file does not know are ignored, so other faces can keep their
// own settings in the same file. An empty variable counts as unset.
type Settings struct {
	AutoPromote bool          `json:"autopromote"`
	FactHorizon time.Duration `json:"-"` // 0 means facts never go stale
	TopK        int           `json:"top_k"`
	// File is the config file consulted ("" when the data dir is unknown)
	// and Loaded whether it existed.
	File   string `json:"file"`
	Loaded bool   `json:"loaded"`
}

// HorizonString renders FactHorizon the way the config file spells it.
func (s Settings) HorizonString() string { return FormatHorizon(s.FactHorizon) }

// MarshalJSON adds fact_horizon in the config file's notation.
func (s Settings) MarshalJSON() ([]byte, error) {
	type plain Settings
	return json.Marshal(struct {
		plain
		FactHorizon string `json:"fact_horizon"`
	}{plain(s), s.HorizonString()})
}

// DefaultSettings are the settings without a file or environment.
func DefaultSettings() Settings {
	return Settings{FactHorizon: DefaultFactHorizon, TopK: DefaultTopK}
}

// ParseHorizon reads a staleness horizon: a number of days ("180d"), weeks
// ("26w"), or any Go duration ("4320h"). "0", "off" and "never" disable
// staleness.
func ParseHorizon(s string) (time.Duration, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "0", "off", "never", "none":
		return 0, nil
	case "":
		return 0, fmt.Errorf("empty horizon")
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if num, ok := strings.CutSuffix(s, suffix); ok {
			n, err := strconv.ParseFloat(num, 64)
			if err != nil || n < 0 || math.IsInf(n, 0) || n > 100*365 {
				return 0, fmt.Errorf("horizon %q: want e.g. 180d, 26w, 4320h or off", s)
			}
			return time.Duration(n * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("horizon %q: want e.g. 180d, 26w, 4320h or off", s)
	}
	return d, nil
}

// FormatHorizon is the inverse of ParseHorizon for whole days.
func FormatHorizon(d time.Duration) string {
	if d <= 0 {
		return "off"
	}
	if d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off", "":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (want true or false)", s)
}

// fileSettings is the raw config file. Pointers tell "absent" from zero.
type fileSettings struct {
	AutoPromote *bool   `json:"autopromote"`
	FactHorizon *string `json:"fact_horizon"`
	TopK        *int    `json:"top_k"`
}

type cachedFile struct {
	mod  time.Time
	size int64
	fs   fileSettings
	err  error
}

var settingsCache = struct {
	sync.Mutex
	m map[string]cachedFile
}{m: map[string]cachedFile{}}

// readConfigFile parses dir/config.json, caching the result until the
// file's modification time or size changes. It reports whether the file
// exists.
func readConfigFile(path string) (fileSettings, bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileSettings{}, false, nil
	}
	if err != nil {
		return fileSettings{}, false, err
	}
	settingsCache.Lock()
	c, ok := settingsCache.m[path]
	settingsCache.Unlock()
	if ok && c.mod.Equal(st.ModTime()) && c.size == st.Size() {
		return c.fs, true, c.err
	}
	c = cachedFile{mod: st.ModTime(), size: st.Size()}
	b, err := os.ReadFile(path)
	if err != nil {
		return fileSettings{}, true, err
	}
	if err := json.Unmarshal(b, &c.fs); err != nil {
		c.err = fmt.Errorf("%s: %v", path, err)
	}
	settingsCache.Lock()
	settingsCache.m[path] = c
	settingsCache.Unlock()
	return c.fs, true, c.err
}

// LoadSettings reads dataDir/config.json (when dataDir is not empty and
// the file exists) and applies the LOCI_* environment variables over it. A
// malformed file or variable is a CodeInvalid error naming it.
func LoadSettings(dataDir string) (Settings, error) {
	s := DefaultSettings()
	if dataDir != "" {
		s.File = filepath.Join(dataDir, ConfigFile)
		f, ok, err := readConfigFile(s.File)
		if err != nil {
			return s, Invalidf("config file %s", err)
		}
		s.Loaded = ok
		if f.AutoPromote != nil {
			s.AutoPromote = *f.AutoPromote
		}
		if f.FactHorizon != nil {
			if s.FactHorizon, err = ParseHorizon(*f.FactHorizon); err != nil {
				return s, Invalidf("config file %s: fact_horizon: %v", s.File, err)
			}
		}
		if f.TopK != nil {
			if *f.TopK < 1 || *f.TopK > MaxTopK {
				return s, Invalidf("config file %s: top_k must be between 1 and %d, got %d", s.File, MaxTopK, *f.TopK)
			}
			s.TopK = *f.TopK
		}
	}
	var err error
	if v, ok := os.LookupEnv("LOCI_AUTOPROMOTE"); ok && strings.TrimSpace(v) != "" {
		if s.AutoPromote, err = parseBool(v); err != nil {
			return s, Invalidf("LOCI_AUTOPROMOTE: %v", err)
		}
	}
	if v, ok := os.LookupEnv("LOCI_FACT_HORIZON"); ok && strings.TrimSpace(v) != "" {
		if s.FactHorizon, err = ParseHorizon(v); err != nil {
			return s, Invalidf("LOCI_FACT_HORIZON: %v", err)
		}
	}
	if v, ok := os.LookupEnv("LOCI_TOPK"); ok && strings.TrimSpace(v) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > MaxTopK {
			return s, Invalidf("LOCI_TOPK must be an integer between 1 and %d, got %q", MaxTopK, v)
		}
		s.TopK = n
	}
	return s, nil
}

// Settings loads the settings of the registry's data dir (see LoadSettings).
func (r *Registry) Settings() (Settings, error) { return LoadSettings(r.DataDir()) }
