package bm25

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	lociwords "github.com/loci-mem/loci/palace/words"
)

// locomoPath is where LoCoMo is (LOCOMO_JSON overrides it).
func locomoPath() string {
	if p := os.Getenv("LOCOMO_JSON"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "..", "shared", "data", "locomo10.json")
}

// readLoCoMo reads LoCoMo, skipping the test (failing it when CI is set)
// when the data is not on this machine.
func readLoCoMo(tb testing.TB) []byte {
	tb.Helper()
	data, err := os.ReadFile(locomoPath())
	if errors.Is(err, fs.ErrNotExist) {
		if os.Getenv("CI") != "" {
			tb.Fatalf("LoCoMo data not found at %s (set LOCOMO_JSON to its path)", locomoPath())
		}
		tb.Skipf("LoCoMo data not found at %s (set LOCOMO_JSON to its path); skipping", locomoPath())
	}
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// locomo is LoCoMo as drawers: every turn, in order, with its speaker and
// the turn before it in its session (the palace indexes that one as the
// turn's keywords), and every question.
type locomo struct {
	turns     []locomoTurn
	questions []string
	tokens    []string // every lower-cased word of every turn, in order
}

type locomoTurn struct {
	speaker, text, prev string
}

func loadLoCoMo(tb testing.TB) *locomo {
	tb.Helper()
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string `json:"question"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(readLoCoMo(tb), &samples); err != nil {
		tb.Fatal(err)
	}
	c := &locomo{}
	for _, s := range samples {
		var sessions []int
		for key := range s.Conversation {
			if n, ok := strings.CutPrefix(key, "session_"); ok && !strings.HasSuffix(n, "_date_time") {
				i, err := strconv.Atoi(n)
				if err != nil {
					tb.Fatalf("session key %q", key)
				}
				sessions = append(sessions, i)
			}
		}
		sort.Ints(sessions)
		for _, i := range sessions {
			var turns []struct {
				Speaker string `json:"speaker"`
				Text    string `json:"text"`
			}
			if err := json.Unmarshal(s.Conversation["session_"+strconv.Itoa(i)], &turns); err != nil {
				tb.Fatal(err)
			}
			prev := ""
			for _, t := range turns {
				c.turns = append(c.turns, locomoTurn{speaker: t.Speaker, text: t.Text, prev: prev})
				prev = t.Text
				c.tokens = append(c.tokens, strings.FieldsFunc(strings.ToLower(t.Text), notWordChar)...)
			}
		}
		for _, qa := range s.QA {
			c.questions = append(c.questions, qa.Question)
		}
	}
	if len(c.turns) < 5000 || len(c.questions) < 1000 {
		tb.Fatalf("LoCoMo at %s: %d turns and %d questions, too few", locomoPath(), len(c.turns), len(c.questions))
	}
	return c
}

func notWordChar(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// heapsBeta is the exponent of Heaps' law (distinct words ~ tokens^beta)
// measured on LoCoMo's turns: 0.53–0.60 between 1k and 100k tokens.
const heapsBeta = 0.55

// synth generates LoCoMo-like drawers without end: a random LoCoMo turn
// ("Speaker: text", with the previous turn of its session as keywords), a
// quarter of whose words are substituted. A substitute is a new word with
// the probability that makes the vocabulary grow as Heaps' law with
// LoCoMo's exponent (a mutation of a LoCoMo word: a letter changed or
// added, or two words joined, so the Porter stemmer sees word-like
// strings); otherwise a random earlier occurrence, among LoCoMo's words
// and the new words drawn so far (a Simon process: new words acquire a
// Zipf-like frequency as LoCoMo's own words have).
type synth struct {
	c       *locomo
	r       *rand.Rand
	novel   []string // every new word, and again each time it is drawn
	emitted float64  // words produced so far, LoCoMo's own counted first
	vocab0  float64  // LoCoMo's distinct words
	b       strings.Builder
}

const substRate = 0.25

func newSynth(c *locomo, seed uint64) *synth {
	seen := map[string]bool{}
	for _, w := range c.tokens {
		seen[w] = true
	}
	return &synth{c: c, r: rand.New(rand.NewPCG(seed, 1)), emitted: float64(len(c.tokens)), vocab0: float64(len(seen))}
}

// doc returns the next drawer's content and keywords.
func (s *synth) doc() (content, keywords string) {
	t := s.c.turns[s.r.IntN(len(s.c.turns))]
	return s.rewrite(t.speaker + ": " + t.text), s.rewrite(t.prev)
}

func (s *synth) rewrite(text string) string {
	s.b.Reset()
	for i, w := range strings.Fields(text) {
		if i > 0 {
			s.b.WriteByte(' ')
		}
		s.emitted++
		if s.r.Float64() < substRate {
			w = s.substitute()
		}
		s.b.WriteString(w)
	}
	return s.b.String()
}

func (s *synth) substitute() string {
	// V(n) = V0 (n/n0)^beta; a new word comes at rate dV/dn per word, so
	// at rate dV/dn / substRate per substitution.
	n0 := float64(len(s.c.tokens))
	rate := heapsBeta * s.vocab0 / n0 * math.Pow(s.emitted/n0, heapsBeta-1) / substRate
	if s.r.Float64() < rate {
		w := s.mutate()
		s.novel = append(s.novel, w)
		return w
	}
	i := s.r.IntN(len(s.c.tokens) + len(s.novel))
	if i < len(s.c.tokens) {
		return s.c.tokens[i]
	}
	w := s.novel[i-len(s.c.tokens)]
	s.novel = append(s.novel, w)
	return w
}

func (s *synth) mutate() string {
	word := func() string {
		for {
			if w := s.c.tokens[s.r.IntN(len(s.c.tokens))]; len(w) >= 3 {
				return w
			}
		}
	}
	w := []byte(word())
	letter := byte('a' + s.r.IntN(26))
	switch s.r.IntN(3) {
	case 0:
		w[s.r.IntN(len(w))] = letter
	case 1:
		i := s.r.IntN(len(w) + 1)
		w = append(w[:i], append([]byte{letter}, w[i:]...)...)
	default:
		w = append(w, word()...)
	}
	return string(w)
}

// queryWords splits a question as the palace does (palace.queryTerms):
// lower-cased words, stopwords and repeats dropped.
func queryWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return notWordChar(r) && r != '_' }) {
		w = strings.Trim(w, "_")
		if w != "" && !seen[w] && !lociwords.IsStopword(w) {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
