//go:build dreambench

package dreamer

// Measures the near-duplicate thresholds (README.md, "Thresholds"):
//
//	go test -tags "sqlite_fts5 dreambench" -run XXX -bench DreamBenchThresholds -benchtime 1x -v -timeout 60m ./dreamer/
//
// Positives: every LoCoMo turn and its light paraphrase. Negatives: every
// pair of different turns of one session that passes the text check
// (excluding exact repeats, which are duplicates by design), plus
// hand-made pairs that differ in one detail. For each embedder the table
// gives, per cosine threshold, the recall on positives and the negatives
// let through.

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/embed"
	_ "github.com/loci-mem/loci/palace/embed/builtin"
)

// handNegatives differ in one detail that matters.
var handNegatives = [][2]string{
	{"Caroline: I adopted two cats last spring", "Caroline: I adopted three cats last spring"},
	{"Melanie: The meeting is at 3pm on Friday", "Melanie: The meeting is at 4pm on Friday"},
	{"Alice paid Bob for the concert tickets", "Bob paid Alice for the concert tickets"},
	{"I like running in the morning before work", "I don't like running in the morning before work"},
	{"We moved to Boston in 2019", "We moved to Boston in 2021"},
	{"The staging database listens on port 5432", "The staging database listens on port 5433"},
	{"My sister lives in Denver with her husband", "My brother lives in Denver with his husband"},
	{"The project uses pnpm instead of npm", "The project uses npm instead of pnpm"},
	{"Melanie: I painted a sunset over the lake", "Melanie: I painted a sunrise over the lake"},
	{"Caroline: I went to the LGBTQ support group yesterday", "Caroline: I went to the LGBTQ support group last year"},
	{"Use tabs for indentation in Go files", "Use spaces for indentation in Go files"},
	{"The API key rotates every 30 days", "The API key rotates every 90 days"},
	{"John: my dog Max loves the beach", "John: my cat Max loves the beach"},
	{"Deploys happen on Tuesdays after standup", "Deploys never happen on Tuesdays after standup"},
	{"The tests run against Postgres 15", "The tests run against Postgres 16"},
	{"Gina: I opened my clothing store in Paris", "Gina: I closed my clothing store in Paris"},
	{"Jon: I lost my job as a banker", "Jon: I quit my job as a banker"},
	{"Prefer dark mode in the editor", "Prefer light mode in the editor"},
	{"Caroline: the adoption agency approved our application", "Caroline: the adoption agency rejected our application"},
	{"Melanie: my kids love camping in the mountains", "Melanie: my kids hate camping in the mountains"},
	// Longer texts with one decisive change.
	{"Caroline: I went to a really moving LGBTQ support group meeting last week and the stories people shared about coming out inspired me",
		"Caroline: I went to a really moving LGBTQ support group meeting last week and the stories people shared about coming out depressed me"},
	{"Melanie: We took the kids camping near the lake this weekend, they roasted marshmallows and saw a deer at sunrise",
		"Melanie: We took the kids camping near the lake this weekend, they roasted marshmallows and saw a bear at sunrise"},
	{"The release pipeline builds the Docker image, runs the integration tests and then pushes the image to the staging registry",
		"The release pipeline builds the Docker image, runs the integration tests and then pushes the image to the production registry"},
	{"Jon: my dance studio finally has enough students to pay the rent, and I am thinking about hiring another teacher",
		"Jon: my dance studio finally has enough students to pay the rent, and I am thinking about firing another teacher"},
	{"Gina: I ordered the fabric from the supplier in Milan because their silk is softer and ships faster",
		"Gina: I ordered the fabric from the supplier in Lyon because their silk is softer and ships faster"},
}

type benchEmbedder struct {
	name string
	emb  embed.Embedder
}

func benchEmbedders(tb testing.TB) []benchEmbedder {
	names := []string{"hash", "glove", "use-lite", "hybrid"}
	if v := os.Getenv("LOCI_BENCH_EMBEDDERS"); v != "" {
		names = strings.Split(v, ",")
	}
	var out []benchEmbedder
	for _, n := range names {
		e, err := embed.Lookup(n)
		if err != nil {
			tb.Logf("embedder %s unavailable: %v", n, err)
			continue
		}
		out = append(out, benchEmbedder{n, e})
	}
	return out
}

func embedAll(tb testing.TB, e embed.Embedder, texts []string) [][]float32 {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += 256 {
		vs, err := e.Embed(context.Background(), texts[lo:min(lo+256, len(texts))])
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, vs...)
	}
	return out
}

func figureDreamBenchThresholds(t testing.TB) {
	turns := loadLoCoMo(t)
	r := rand.New(rand.NewSource(1))
	orig := make([]string, len(turns))
	para := make([]string, len(turns))
	for i, tu := range turns {
		orig[i] = tu.doc()
		para[i] = tu.speaker + ": " + paraphrase(tu.text, r)
	}
	const tText = 0.6
	voc := newVocab()
	sigO := make([]sigText, len(turns))
	sigP := make([]sigText, len(turns))
	for i := range turns {
		sigO[i], sigP[i] = voc.encode(orig[i], false), voc.encode(para[i], false)
	}
	handSig := make([][2]sigText, len(handNegatives))
	for k, h := range handNegatives {
		handSig[k] = [2]sigText{voc.encode(h[0], false), voc.encode(h[1], false)}
	}
	// Text check on positives and hand negatives, at several settings.
	saved := maxDiffPer
	for _, per := range []int{0, 4, 5, 6, 8} {
		maxDiffPer = per
		for _, tt := range []float64{0.5, 0.6, 0.7, 0.8} {
			ok := 0
			for i := range turns {
				if pass, _ := voc.check(&sigO[i], &sigP[i], tt); pass {
					ok++
				}
			}
			hand := 0
			for k := range handSig {
				if pass, _ := voc.check(&handSig[k][0], &handSig[k][1], tt); pass {
					hand++
				}
			}
			t.Logf("text check alone, overlap %.1f, one unmatched word per %d: %d/%d positives pass (%.4f); hand negatives passing %d/%d",
				tt, per, ok, len(turns), float64(ok)/float64(len(turns)), hand, len(handNegatives))
		}
	}
	maxDiffPer = saved
	// Hard negatives: different turns of one session passing the text check.
	type pair struct{ a, b int }
	var negs []pair
	for i := range turns {
		for j := i + 1; j < len(turns) && turns[j].session == turns[i].session; j++ {
			if sigO[i].norm == sigO[j].norm {
				continue
			}
			if ok, _ := voc.check(&sigO[i], &sigO[j], tText); ok {
				negs = append(negs, pair{i, j})
			}
		}
	}
	t.Logf("%d turns; %d same-session pairs of different turns pass the text check at %.1f", len(turns), len(negs), tText)
	for _, n := range negs[:min(len(negs), 10)] {
		t.Logf("  neg: %q | %q", orig[n.a], orig[n.b])
	}
	handOK := 0
	for k, h := range handNegatives {
		if ok, _ := voc.check(&handSig[k][0], &handSig[k][1], tText); ok {
			handOK++
			t.Logf("  hand negative passes the text check: %q | %q", h[0], h[1])
		}
	}
	t.Logf("hand negatives passing the text check: %d/%d", handOK, len(handNegatives))
	missed := 0
	for i := range turns {
		if ok, ov := voc.check(&sigO[i], &sigP[i], tText); !ok && missed < 8 {
			missed++
			t.Logf("  positive failing the text check (%.2f): %q | %q", ov, orig[i], para[i])
		}
	}

	for _, be := range benchEmbedders(t) {
		start := time.Now()
		vo := embedAll(t, be.emb, orig)
		vp := embedAll(t, be.emb, para)
		t.Logf("== %s (%s): embedded %d texts in %v", be.name, be.emb.ID(), 2*len(turns), time.Since(start).Round(time.Millisecond))
		posCos := make([]float64, 0, len(turns))
		posText := 0
		for i := range turns {
			if ok, _ := voc.check(&sigO[i], &sigP[i], tText); ok {
				posText++
				posCos = append(posCos, float64(embed.Dot(vo[i], vp[i])))
			}
		}
		negCos := make([]float64, len(negs))
		for k, n := range negs {
			negCos[k] = float64(embed.Dot(vo[n.a], vo[n.b]))
		}
		handCos := make([]float64, len(handNegatives))
		hv := embedAll(t, be.emb, func() []string {
			var s []string
			for _, h := range handNegatives {
				s = append(s, h[0], h[1])
			}
			return s
		}())
		for k := range handNegatives {
			handCos[k] = float64(embed.Dot(hv[2*k], hv[2*k+1]))
		}
		var b strings.Builder
		fmt.Fprintf(&b, "  tau   recall(all)  hard-neg FP  precision  hand-neg cos>=tau (ignoring text check)\n")
		for _, tau := range []float64{0.5, 0.6, 0.7, 0.75, 0.8, 0.82, 0.84, 0.86, 0.88, 0.9, 0.92, 0.94, 0.96, 0.98} {
			tp := 0
			for _, c := range posCos {
				if c >= tau {
					tp++
				}
			}
			fp := 0
			for _, c := range negCos {
				if c >= tau {
					fp++
				}
			}
			hand := 0
			for _, c := range handCos {
				if c >= tau {
					hand++
				}
			}
			prec := 1.0
			if tp+fp > 0 {
				prec = float64(tp) / float64(tp+fp)
			}
			fmt.Fprintf(&b, "  %.2f  %.4f       %5d        %.4f     %d/%d\n", tau, float64(tp)/float64(len(turns)), fp, prec, hand, len(handNegatives))
		}
		// The measured threshold: the highest cosine (0.01 steps) that keeps
		// 99% of the positives the text check lets through.
		chosen := 0.0
		for tau := 0.99; tau >= 0.5; tau -= 0.01 {
			kept := 0
			for _, c := range posCos {
				if c >= tau {
					kept++
				}
			}
			if float64(kept) >= 0.99*float64(len(posCos)) {
				chosen = tau
				break
			}
		}
		fp, tp, hand := 0, 0, 0
		for _, c := range negCos {
			if c >= chosen {
				fp++
			}
		}
		for _, c := range posCos {
			if c >= chosen {
				tp++
			}
		}
		for _, c := range handCos {
			if c >= chosen {
				hand++
			}
		}
		t.Logf("%s: text check passes %d/%d positives; chosen threshold %.2f (keeps 99%% of them): pair recall %.4f, %d hard negatives and %d/%d hand negatives (ignoring the text check) above it\n%s",
			be.name, posText, len(turns), chosen, float64(tp)/float64(len(turns)), fp, hand, len(handNegatives), b.String())
		// The threshold an embedder none was measured for would get: the
		// default's carried on its scale of restatements (pass_dedup.go).
		if rs, ok := embed.KnownRestatements(be.emb.ID()); ok {
			carried := embed.Translate(defaultDedupCosine, embed.HybridRestatements, rs)
			kept, fpc := 0, 0
			for _, c := range posCos {
				if c >= carried {
					kept++
				}
			}
			for _, c := range negCos {
				if c >= carried {
					fpc++
				}
			}
			t.Logf("%s: the default's %.2f carried on the scale of restatements is %.3f: it keeps %.4f of the positives the text check passes, with %d hard negatives above it",
				be.name, defaultDedupCosine, carried, float64(kept)/float64(len(posCos)), fpc)
		}
	}
}

// BenchmarkDreamBenchThresholds runs figureDreamBenchThresholds once per iteration; run it with
// -benchtime 1x (it measures a whole workload and logs its figures).
func BenchmarkDreamBenchThresholds(b *testing.B) {
	for range b.N {
		figureDreamBenchThresholds(b)
	}
}
