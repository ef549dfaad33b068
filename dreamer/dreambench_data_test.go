//go:build dreambench

package dreamer

// LoCoMo loading and a deterministic light paraphraser for the dreamer's
// figure runs (see README.md). The data set is read from
// ../shared/data/locomo10.json (or $LOCI_LOCOMO) and never copied.

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

type lturn struct {
	conv, session, dia, speaker, text string
	ts                                time.Time
}

// doc is the drawer text of a turn, as loci's ingestion writes turns.
func (t lturn) doc() string { return t.speaker + ": " + t.text }

func locomoPath(tb testing.TB) string {
	if p := os.Getenv("LOCI_LOCOMO"); p != "" {
		return p
	}
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "data", "locomo10.json")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// loadLoCoMo returns every turn of every conversation, or skips the test
// when the data set is absent.
func loadLoCoMo(tb testing.TB) []lturn {
	path := locomoPath(tb)
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Skipf("LoCoMo not available (%v): put locomo10.json in ../shared/data or set LOCI_LOCOMO", err)
	}
	var convs []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(b, &convs); err != nil {
		tb.Fatalf("parse %s: %v", path, err)
	}
	var out []lturn
	for _, c := range convs {
		var keys []string
		for k := range c.Conversation {
			if sessionKey.MatchString(k) {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool {
			return len(keys[i]) < len(keys[j]) || len(keys[i]) == len(keys[j]) && keys[i] < keys[j]
		})
		for _, k := range keys {
			var turns []struct {
				Speaker string `json:"speaker"`
				DiaID   string `json:"dia_id"`
				Text    string `json:"text"`
			}
			if err := json.Unmarshal(c.Conversation[k], &turns); err != nil {
				continue
			}
			var when string
			_ = json.Unmarshal(c.Conversation[k+"_date_time"], &when)
			ts, err := time.Parse("3:04 pm on 2 January, 2006", when)
			if err != nil {
				ts = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
			}
			for i, t := range turns {
				if strings.TrimSpace(t.Text) == "" {
					continue
				}
				out = append(out, lturn{conv: c.SampleID, session: c.SampleID + "/" + k, dia: t.DiaID,
					speaker: t.Speaker, text: t.Text, ts: ts.Add(time.Duration(i) * time.Second)})
			}
		}
	}
	return out
}

// synonyms swap in both directions; each entry is a whole word.
var synonyms = [][2]string{
	{"great", "awesome"}, {"happy", "glad"}, {"amazing", "incredible"}, {"picture", "photo"},
	{"kids", "children"}, {"big", "large"}, {"think", "believe"}, {"love", "adore"},
	{"beautiful", "lovely"}, {"awesome", "fantastic"}, {"started", "began"}, {"hard", "tough"},
	{"help", "assist"}, {"friends", "pals"}, {"job", "work"}, {"trip", "journey"},
	{"nice", "pleasant"}, {"fun", "enjoyable"}, {"glad", "pleased"}, {"wonderful", "marvelous"},
	{"recently", "lately"}, {"maybe", "perhaps"}, {"also", "too"}, {"talk", "chat"},
	{"idea", "notion"}, {"cool", "neat"}, {"excited", "thrilled"}, {"tough", "difficult"},
	{"mom", "mother"}, {"dad", "father"}, {"buy", "purchase"}, {"want", "wish"},
}

var contractions = [][2]string{
	{"I am", "I'm"}, {"it is", "it's"}, {"do not", "don't"}, {"that is", "that's"},
	{"you are", "you're"}, {"we are", "we're"}, {"they are", "they're"}, {"I have", "I've"},
	{"I will", "I'll"}, {"did not", "didn't"}, {"is not", "isn't"}, {"can not", "can't"},
	{"what is", "what's"}, {"I would", "I'd"}, {"let us", "let's"},
}

var fillers = []string{"Wow, ", "Oh, ", "Hey, ", "Yeah, ", "Haha, ", "Well, ", "Oh wow, "}

var wordRE = regexp.MustCompile(`[A-Za-z']+`)

// paraphrase rewrites a turn lightly and deterministically for a given
// rand: a synonym or two, contractions toggled, a leading filler dropped
// or added, punctuation changed, an intensifier dropped. Numbers and
// negations are kept, as a paraphrase keeps the meaning.
func paraphrase(text string, r *rand.Rand) string {
	out := text
	// synonyms: at most two swaps
	swaps := 0
	out = wordRE.ReplaceAllStringFunc(out, func(w string) string {
		if swaps >= 2 {
			return w
		}
		lw := strings.ToLower(w)
		for _, p := range synonyms {
			for k := 0; k < 2; k++ {
				if lw == p[k] && r.Intn(3) > 0 {
					swaps++
					rep := p[1-k]
					if w[0] >= 'A' && w[0] <= 'Z' {
						rep = strings.ToUpper(rep[:1]) + rep[1:]
					}
					return rep
				}
			}
		}
		return w
	})
	for _, c := range contractions {
		if r.Intn(2) == 0 {
			out = strings.Replace(out, c[0], c[1], 1)
		} else {
			out = strings.Replace(out, c[1], c[0], 1)
		}
	}
	trimmed := false
	for _, f := range fillers {
		if strings.HasPrefix(out, f) && len(out) > len(f)+2 {
			out = strings.ToUpper(out[len(f):len(f)+1]) + out[len(f)+1:]
			trimmed = true
			break
		}
	}
	if !trimmed && r.Intn(3) == 0 && len(out) > 1 {
		out = fillers[r.Intn(len(fillers))] + strings.ToLower(out[:1]) + out[1:]
	}
	for _, w := range []string{"really ", "so ", "very ", "just ", "totally "} {
		if r.Intn(2) == 0 {
			out = strings.Replace(out, w, "", 1)
		}
	}
	switch r.Intn(3) {
	case 0:
		out = strings.ReplaceAll(out, "!", ".")
	case 1:
		out = strings.TrimRight(out, ".!") + "!"
	}
	return out
}
