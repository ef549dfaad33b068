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
	"math"
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

func loadLoCoMo(t testing.TB) []lcConv {
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

func embedAll(t testing.TB, name string, e embed.Embedder, convs []lcConv) *vecs {
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

// scores precomputes every question-document cosine of v.
func scores(convs []lcConv, v *vecs) [][][]float32 {
	out := make([][][]float32, len(convs))
	for c := range convs {
		out[c] = make([][]float32, len(convs[c].qs))
		for q := range convs[c].qs {
			row := make([]float32, len(convs[c].texts))
			for d := range row {
				row[d] = embed.Dot(v.qs[c][q], v.docs[c][d])
			}
			out[c][q] = row
		}
	}
	return out
}

func cosOf(m [][][]float32) scorer {
	return func(c, q, d int) float32 { return m[c][q][d] }
}

// fused is the weighted sum of the parts' cosines, which is the cosine of
// their weighted concatenation (embed.Concat).
func fused(parts [][][][]float32, w []float64) scorer {
	return func(c, q, d int) float32 {
		var s float32
		for i, p := range parts {
			s += float32(w[i]) * p[c][q][d]
		}
		return s
	}
}

// rerank takes the top n documents by first and orders them by second.
func rerank(convs []lcConv, first, second [][][]float32, n int) scorer {
	cand := make([][]map[int]bool, len(convs))
	for c := range convs {
		cand[c] = make([]map[int]bool, len(convs[c].qs))
		for q := range convs[c].qs {
			order := make([]int, len(convs[c].texts))
			for d := range order {
				order[d] = d
			}
			row := first[c][q]
			sort.SliceStable(order, func(i, j int) bool { return row[order[i]] > row[order[j]] })
			cand[c][q] = map[int]bool{}
			for _, d := range order[:min(n, len(order))] {
				cand[c][q][d] = true
			}
		}
	}
	return func(c, q, d int) float32 {
		if cand[c][q][d] {
			return 10 + second[c][q][d]
		}
		return first[c][q][d]
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

func report(t testing.TB, convs []lcConv, name string, s scorer, cost string) (dev, all metrics) {
	t.Helper()
	dev = evaluate(convs, s, 0, 5)
	held := evaluate(convs, s, 5, 10)
	all = evaluate(convs, s, 0, 10)
	t.Logf("%-44s conv1-5 any@10 %.3f frac@10 %.3f | conv6-10 any@10 %.3f frac@10 %.3f | all any@10 %.3f frac@10 %.3f (n=%d/%d/%d) %s",
		name, dev.any, dev.frac, held.any, held.frac, all.any, all.frac, int(dev.n), int(held.n), int(all.n), cost)
	return dev, all
}

func costOf(v *vecs) string {
	return fmt.Sprintf("[%v/turn in batches of a conversation, %v/query alone]",
		v.perTurn.Round(time.Microsecond), v.perQuery.Round(time.Microsecond))
}

func figureLoCoMoVectorOnly(t testing.TB) {
	convs := loadLoCoMo(t)

	hash := embedAll(t, "hash", embed.NewHash(embed.HashDim), convs)
	hashS := scores(convs, hash)
	report(t, convs, "hash-v1 (384-d)", cosOf(hashS), costOf(hash))

	// GloVe: the SIF parameter a, chosen on conversations 1-5.
	bestA, bestDev := 0.0, -1.0
	for _, a := range []float64{1e-2, 3e-3, 1e-3, 3e-4, 1e-4} {
		v := embedAll(t, "glove", glove.NewWith(a, 0), convs)
		dev, _ := report(t, convs, fmt.Sprintf("glove a=%g", a), cosOf(scores(convs, v)), costOf(v))
		if dev.any+dev.frac > bestDev {
			bestA, bestDev = a, dev.any+dev.frac
		}
	}
	t.Logf("best SIF a on conv1-5: %g; shipped glove.DefaultSIF = %g", bestA, glove.DefaultSIF)
	if bestA != glove.DefaultSIF {
		t.Errorf("glove.DefaultSIF = %g is not the best on conversations 1-5 (%g)", glove.DefaultSIF, bestA)
	}
	// What a smaller vocabulary costs (the shipped one is 90k words).
	for _, n := range []int{25000, 50000, 75000} {
		v := embedAll(t, "glove", glove.NewWith(glove.DefaultSIF, n), convs)
		report(t, convs, fmt.Sprintf("glove a=%g, top %dk words only", glove.DefaultSIF, n/1000), cosOf(scores(convs, v)), costOf(v))
	}
	gl := embedAll(t, "glove", glove.New(), convs)
	glS := scores(convs, gl)
	report(t, convs, "glove (shipped: 90k words)", cosOf(glS), costOf(gl))

	us := embedAll(t, "use-lite", use.New(), convs)
	usS := scores(convs, us)
	report(t, convs, "use-lite", cosOf(usS), costOf(us))

	// Fusion: weights on a 0.05 grid, chosen on conversations 1-5.
	parts := [][][][]float32{hashS, glS, usS}
	var best, bestNoUSE []float64
	bestDev, bestNoUSEDev := -1.0, -1.0
	for wh := 0; wh <= 20; wh++ {
		for wg := 0; wg+wh <= 20; wg++ {
			w := []float64{float64(wh) / 20, float64(wg) / 20, float64(20-wh-wg) / 20}
			m := evaluate(convs, fused(parts, w), 0, 5)
			if m.any+m.frac > bestDev+1e-9 {
				best, bestDev = w, m.any+m.frac
			}
			if w[2] == 0 && m.any+m.frac > bestNoUSEDev+1e-9 {
				bestNoUSE, bestNoUSEDev = w, m.any+m.frac
			}
		}
	}
	report(t, convs, fmt.Sprintf("best fusion on 1-5: hash %.2f glove %.2f use %.2f", best[0], best[1], best[2]), fused(parts, best), "")
	report(t, convs, fmt.Sprintf("best without USE: hash %.2f glove %.2f", bestNoUSE[0], bestNoUSE[1]), fused(parts, bestNoUSE), "")
	report(t, convs, "glove 0.5 + use 0.5", fused(parts, []float64{0, 0.5, 0.5}), "")
	report(t, convs, "glove top 50 re-ranked by use-lite", rerank(convs, glS, usS, 50), "")
	w := builtin.HybridWeights[:]
	shipped, _ := report(t, convs, fmt.Sprintf("shipped hybrid weights %v", w), fused(parts, w), "")
	if shipped.any+shipped.frac < bestDev-0.01 {
		t.Errorf("shipped hybrid weights %v score %.3f on conv1-5, the grid's best %v scores %.3f", w, shipped.any+shipped.frac, best, bestDev)
	}

	// The shipped default, end to end through embed.Default.
	def := embed.Default()
	dv := embedAll(t, "default", def, convs)
	got, _ := report(t, convs, "Default() = "+def.ID(), cosOf(scores(convs, dv)), costOf(dv))
	if math.Abs(got.frac-shipped.frac) > 0.005 {
		t.Errorf("Default() frac@10 %.3f differs from the fused scores' %.3f", got.frac, shipped.frac)
	}
}

// BenchmarkLoCoMoVectorOnly runs figureLoCoMoVectorOnly once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkLoCoMoVectorOnly(b *testing.B) {
	for range b.N {
		figureLoCoMoVectorOnly(b)
	}
}
