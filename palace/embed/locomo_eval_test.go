//go:build eval

package embed_test

// Vector-only retrieval on LoCoMo, used to choose embed.Default:
//
//	go test -tags eval -run LoCoMo -v -timeout 30m ./palace/embed/
//
// One document per turn ("speaker: text", plus " [shares image: caption]"
// when the turn has one), each question ranked against the turns of its
// own conversation, evidence normalised as ../shared/eval/locomo_bm25.py
// does. Parameters are chosen on conversations 1-5 only; 6-10 are
// reported separately as held-out figures.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/embed/builtin"
	"github.com/loci-mem/loci/palace/embed/glove"
	"github.com/loci-mem/loci/palace/embed/use"
)

type lcTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

type lcConv struct {
	ids   []string
	texts []string
	qs    []lcQuestion
}

type lcQuestion struct {
	text     string
	category int
	gold     []int // document indexes
}

var (
	evidRE  = regexp.MustCompile(`D:?(\d+):(\d+)`)
	rangeRE = regexp.MustCompile(`D(\d+):(\d+)\s*-\s*D(\d+):(\d+)`)
)

func normEvidence(ev []any) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, e := range ev {
		s := fmt.Sprint(e)
		for _, m := range rangeRE.FindAllStringSubmatch(s, -1) {
			if m[1] == m[3] {
				a, _ := strconv.Atoi(m[2])
				b, _ := strconv.Atoi(m[4])
				sn, _ := strconv.Atoi(m[1])
				for t := a; t <= b; t++ {
					add(fmt.Sprintf("D%d:%d", sn, t))
				}
			}
		}
		for _, m := range evidRE.FindAllStringSubmatch(s, -1) {
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			add(fmt.Sprintf("D%d:%d", a, b))
		}
	}
	return out
}

func loadLoCoMo(t *testing.T) []lcConv {
	path := os.Getenv("LOCOMO")
	if path == "" {
		dir, _ := os.Getwd()
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			if filepath.Dir(dir) == dir {
				t.Skip("go.mod not found; set LOCOMO=/path/to/locomo10.json")
			}
			dir = filepath.Dir(dir)
		}
		path = filepath.Join(dir, "..", "shared", "data", "locomo10.json")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("LoCoMo data absent (%v): skipping the evaluation", err)
	}
	var data []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string `json:"question"`
			Category int    `json:"category"`
			Evidence []any  `json:"evidence"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	sessRE := regexp.MustCompile(`^session_(\d+)$`)
	var convs []lcConv
	for _, d := range data {
		var keys []int
		for k := range d.Conversation {
			if m := sessRE.FindStringSubmatch(k); m != nil {
				n, _ := strconv.Atoi(m[1])
				keys = append(keys, n)
			}
		}
		sort.Ints(keys)
		var c lcConv
		index := map[string]int{}
		for _, n := range keys {
			var turns []lcTurn
			if err := json.Unmarshal(d.Conversation[fmt.Sprintf("session_%d", n)], &turns); err != nil {
				t.Fatal(err)
			}
			for _, tr := range turns {
				txt := tr.Text
				if tr.BlipCaption != "" {
					txt += " [shares image: " + tr.BlipCaption + "]"
				}
				id := tr.DiaID
				if m := evidRE.FindStringSubmatch(id); m != nil && m[0] == id {
					a, _ := strconv.Atoi(m[1])
					b, _ := strconv.Atoi(m[2])
					id = fmt.Sprintf("D%d:%d", a, b)
				}
				index[id] = len(c.ids)
				c.ids = append(c.ids, id)
				c.texts = append(c.texts, tr.Speaker+": "+txt)
			}
		}
		for _, q := range d.QA {
			var gold []int
			for _, e := range normEvidence(q.Evidence) {
				if i, ok := index[e]; ok {
					gold = append(gold, i)
				}
			}
			if len(gold) > 0 {
				c.qs = append(c.qs, lcQuestion{text: q.Question, category: q.Category, gold: gold})
			}
		}
		convs = append(convs, c)
	}
	return convs
}

// vecs holds one embedder's vectors for every conversation.
type vecs struct {
	name     string
	docs, qs [][][]float32 // [conv][i]
	perTurn  time.Duration
	perQuery time.Duration
}

func embedAll(t *testing.T, name string, e embed.Embedder, convs []lcConv) *vecs {
	t.Helper()
	ctx := context.Background()
	v := &vecs{name: name}
	var docT, qT time.Duration
	var nd, nq int
	for _, c := range convs {
		t0 := time.Now()
		d, err := e.Embed(ctx, c.texts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docT += time.Since(t0)
		nd += len(c.texts)
		qtexts := make([]string, len(c.qs))
		for i, q := range c.qs {
			qtexts[i] = q.text
		}
		qv := make([][]float32, len(qtexts))
		t0 = time.Now()
		for i, q := range qtexts { // one at a time, as a query arrives
			r, err := e.Embed(ctx, []string{q})
			if err != nil {
				t.Fatal(err)
			}
			qv[i] = r[0]
		}
		qT += time.Since(t0)
		nq += len(qtexts)
		v.docs = append(v.docs, d)
		v.qs = append(v.qs, qv)
	}
	v.perTurn = docT / time.Duration(nd)
	v.perQuery = qT / time.Duration(nq)
	return v
}

// scorer gives the score of document d for question q of conversation c.
type scorer func(c, q, d int) float32

func cosOf(v *vecs) scorer {
	return func(c, q, d int) float32 { return embed.Dot(v.qs[c][q], v.docs[c][d]) }
}

func fused(parts []*vecs, w []float64) scorer {
	return func(c, q, d int) float32 {
		var s float32
		for i, p := range parts {
			s += float32(w[i]) * embed.Dot(p.qs[c][q], p.docs[c][d])
		}
		return s
	}
}

type metrics struct{ n, any, frac float64 }

// evaluate ranks every question's conversation by s and returns any@10
// and frac@10 over categories 1-5, for convs [lo, hi).
func evaluate(convs []lcConv, s scorer, lo, hi int) metrics {
	var m metrics
	for c := lo; c < hi; c++ {
		docs := len(convs[c].texts)
		order := make([]int, docs)
		sc := make([]float32, docs)
		for qi, q := range convs[c].qs {
			for d := range order {
				order[d] = d
				sc[d] = s(c, qi, d)
			}
			sort.SliceStable(order, func(i, j int) bool { return sc[order[i]] > sc[order[j]] })
			top := map[int]bool{}
			for _, d := range order[:min(10, docs)] {
				top[d] = true
			}
			found := 0
			for _, g := range q.gold {
				if top[g] {
					found++
				}
			}
			m.n++
			if found > 0 {
				m.any++
			}
			m.frac += float64(found) / float64(len(q.gold))
		}
	}
	m.any /= m.n
	m.frac /= m.n
	return m
}

func report(t *testing.T, convs []lcConv, name string, s scorer, cost string) metrics {
	dev := evaluate(convs, s, 0, 5)
	held := evaluate(convs, s, 5, 10)
	all := evaluate(convs, s, 0, 10)
	t.Logf("%-34s conv1-5 any@10 %.3f frac@10 %.3f | conv6-10 any@10 %.3f frac@10 %.3f | all any@10 %.3f frac@10 %.3f (n=%d) %s",
		name, dev.any, dev.frac, held.any, held.frac, all.any, all.frac, int(all.n), cost)
	return dev
}

func TestLoCoMoVectorOnly(t *testing.T) {
	convs := loadLoCoMo(t)
	cost := func(v *vecs) string {
		return fmt.Sprintf("[%v/turn batched, %v/query]", v.perTurn.Round(time.Microsecond), v.perQuery.Round(time.Microsecond))
	}

	hash := embedAll(t, "hash", embed.NewHash(embed.HashDim), convs)
	report(t, convs, "hash-v1 (384)", cosOf(hash), cost(hash))

	// GloVe: the SIF parameter and the vocabulary size, chosen on 1-5.
	var gl *vecs
	bestA, bestDev := 0.0, -1.0
	for _, a := range []float64{1e-3, 3e-4, 1e-4, 3e-5, 1e-5} {
		v := embedAll(t, "glove", glove.NewWith(a, 0), convs)
		dev := report(t, convs, fmt.Sprintf("glove a=%g", a), cosOf(v), cost(v))
		if dev.frac > bestDev {
			bestA, bestDev, gl = a, dev.frac, v
		}
	}
	t.Logf("best SIF a on conv1-5: %g (shipped default %g)", bestA, glove.DefaultSIF)
	for _, n := range []int{25000, 50000, 75000} {
		v := embedAll(t, "glove", glove.NewWith(glove.DefaultSIF, n), convs)
		report(t, convs, fmt.Sprintf("glove a=%g top %dk words", glove.DefaultSIF, n/1000), cosOf(v), cost(v))
	}
	gl = embedAll(t, "glove", glove.New(), convs)
	report(t, convs, "glove (shipped)", cosOf(gl), cost(gl))

	us := embedAll(t, "use-lite", use.New(), convs)
	report(t, convs, "use-lite", cosOf(us), cost(us))

	// Fused cosines: w*glove + (1-w)*use, and with hash as a third part.
	bestW, bestDev := 0.0, -1.0
	for _, w := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6} {
		dev := report(t, convs, fmt.Sprintf("fuse glove %.1f + use %.1f", w, 1-w), fused([]*vecs{gl, us}, []float64{w, 1 - w}), "")
		if dev.frac > bestDev {
			bestW, bestDev = w, dev.frac
		}
	}
	t.Logf("best glove weight on conv1-5: %.1f (shipped %v)", bestW, builtin.HybridWeights)
	for _, w := range [][]float64{{0.1, 0.3, 0.6}, {0.2, 0.2, 0.6}, {0.15, 0.25, 0.6}, {0.2, 0.3, 0.5}} {
		report(t, convs, fmt.Sprintf("fuse hash %.2f glove %.2f use %.2f", w[0], w[1], w[2]), fused([]*vecs{hash, gl, us}, w), "")
	}
	for _, w := range []float64{0.2, 0.3} {
		report(t, convs, fmt.Sprintf("fuse hash %.1f + use %.1f", w, 1-w), fused([]*vecs{hash, us}, []float64{w, 1 - w}), "")
	}

	// The shipped default, end to end through embed.Default.
	def := embed.Default()
	dv := embedAll(t, "default", def, convs)
	report(t, convs, "Default() = "+def.ID(), cosOf(dv), cost(dv))
}
