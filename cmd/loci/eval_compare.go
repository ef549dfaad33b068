package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/loci-mem/loci/cmd/loci/locomo"
)

// evalCompare is `loci eval compare BEFORE.json AFTER.json [--k 10]`: two
// runs' per-question results (`loci eval locomo --json`) on the same
// questions, compared question by question. A difference of a few
// thousandths on one half of LoCoMo is often churn (questions gained and
// lost in equal measure), and the two runs share their questions, so the
// comparison is paired:
//   - a 95% interval for the difference of the means, from a paired
//     bootstrap (the questions resampled with replacement,
//     compareResamples times, with a fixed seed so that a rerun prints the
//     same interval; Efron and Tibshirani 1993);
//   - the questions each run alone finds (any@k), and the exact two-sided
//     sign test on them: how likely so uneven a split would be if neither
//     run were better.
func evalCompare(env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("eval compare", flag.ContinueOnError)
	fs.String("format", "auto", "output format: auto, text, json or yaml")
	k := fs.Int("k", 10, "the cut-off to compare at")
	reworded := fs.Bool("reworded", false, "the second run asks the first's questions in other words (--casual-questions, --question-typos, --request-frames, --unseen-names, against the questions as written): pair them by their order, conversation and evidence instead of their wording")
	files, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	if len(files) != 2 {
		return nil, invalidArgs(fmt.Sprintf("eval compare takes two files, got %d", len(files)),
			"Use `loci eval compare BEFORE.json AFTER.json`, two files written by `loci eval locomo --json`")
	}
	if *k < 1 || *k > 100 {
		return nil, invalidArgs(fmt.Sprintf("bad --k %d", *k), "Use a cut-off in 1..100")
	}
	var runs [2][]locomo.Row
	for i, f := range files {
		if runs[i], err = readEvalRows(f); err != nil {
			return nil, err
		}
	}
	if err := samePairs(runs[0], runs[1], *reworded); err != nil {
		return nil, err
	}
	for i, r := range runs {
		// A run's lists are as long as its largest --k (or the palace).
		top := 0
		for _, row := range r {
			top = max(top, len(row.Top))
		}
		if top < *k {
			return nil, invalidArgs(fmt.Sprintf("%s holds at most %d results a question, fewer than --k %d", files[i], top, *k),
				"Compare at a k the runs were asked for (their --k), or rerun them with it")
		}
	}
	groups := []comparison{compareRows("overall", runs[0], runs[1], *k)}
	for c := 1; c <= 5; c++ {
		var a, b []locomo.Row
		for i := range runs[0] {
			if runs[0][i].Category == c {
				a, b = append(a, runs[0][i]), append(b, runs[1][i])
			}
		}
		if len(a) > 0 {
			groups = append(groups, compareRows(fmt.Sprintf("%d %s", c, locomo.Categories[c]), a, b, *k))
		}
	}
	// By whether the question shares a word with its evidence, where the
	// first run's file records it (the rewrite and questions are checked
	// to be the same above).
	for _, g := range []struct {
		name   string
		shares bool
	}{{locomo.GroupSharesWord, true}, {locomo.GroupSharesNoWord, false}} {
		var a, b []locomo.Row
		for i, r := range runs[0] {
			if r.SharesWord != nil && *r.SharesWord == g.shares {
				a, b = append(a, r), append(b, runs[1][i])
			}
		}
		if len(a) > 0 {
			groups = append(groups, compareRows(g.name, a, b, *k))
		}
	}
	// By who said the evidence, where the first run's file records it.
	for _, g := range locomo.EvidenceGroups {
		var a, b []locomo.Row
		for i, r := range runs[0] {
			if r.EvidenceBy == g.By {
				a, b = append(a, r), append(b, runs[1][i])
			}
		}
		if len(a) > 0 {
			groups = append(groups, compareRows(g.Name, a, b, *k))
		}
	}
	data := map[string]any{"before": files[0], "after": files[1], "k": *k, "questions": len(runs[0]),
		"resamples": compareResamples, "groups": groups}
	return &result{data: data, text: func(w io.Writer) { printComparison(w, files, *k, groups) }}, nil
}

// compareResamples is the bootstrap's number of resamples: enough that the
// interval's ends move by well under a thousandth between seeds at a
// thousand questions.
const compareResamples = 10000

// comparison is one group of questions compared at k.
type comparison struct {
	Group string `json:"group"`
	N     int    `json:"n"`
	Any   shift  `json:"any"`
	Frac  shift  `json:"frac"`
	// Gained and Lost count the questions only the second run, or only the
	// first, finds any evidence of; SignP is the sign test on them.
	Gained int     `json:"gained"`
	Lost   int     `json:"lost"`
	SignP  float64 `json:"sign_test_p"`
	// FracUp and FracDown count the questions whose share of evidence
	// found rose or fell.
	FracUp   int `json:"frac_up"`
	FracDown int `json:"frac_down"`
}

// shift is a metric's mean in both runs, their difference and its 95%
// bootstrap interval.
type shift struct {
	Before float64    `json:"before"`
	After  float64    `json:"after"`
	Diff   float64    `json:"diff"`
	CI95   [2]float64 `json:"ci95"`
}

func compareRows(name string, a, b []locomo.Row, k int) comparison {
	c := comparison{Group: name, N: len(a)}
	anyA, anyB := make([]float64, len(a)), make([]float64, len(a))
	fracA, fracB := make([]float64, len(a)), make([]float64, len(a))
	for i := range a {
		fa, fb := a[i].Found(k), b[i].Found(k)
		if fa > 0 {
			anyA[i] = 1
		}
		if fb > 0 {
			anyB[i] = 1
		}
		fracA[i] = float64(fa) / float64(len(a[i].Gold))
		fracB[i] = float64(fb) / float64(len(b[i].Gold))
		switch {
		case fa == 0 && fb > 0:
			c.Gained++
		case fa > 0 && fb == 0:
			c.Lost++
		}
		switch {
		case fracB[i] > fracA[i]:
			c.FracUp++
		case fracB[i] < fracA[i]:
			c.FracDown++
		}
	}
	c.Any = pairedShift(anyA, anyB)
	c.Frac = pairedShift(fracA, fracB)
	c.SignP = round4(signTest(c.Gained, c.Lost))
	return c
}

// pairedShift is the difference of the means of b and a, with the 2.5th
// and 97.5th percentiles of that difference over compareResamples
// resamples of the pairs.
func pairedShift(a, b []float64) shift {
	n := len(a)
	if n == 0 {
		return shift{}
	}
	d := make([]float64, n)
	var sa, sb float64
	for i := range a {
		d[i] = b[i] - a[i]
		sa += a[i]
		sb += b[i]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	means := make([]float64, compareResamples)
	for r := range means {
		var s float64
		for range n {
			s += d[rng.IntN(n)]
		}
		means[r] = s / float64(n)
	}
	slices.Sort(means)
	lo := means[int(0.025*float64(compareResamples))]
	hi := means[int(0.975*float64(compareResamples))-1]
	return shift{Before: round4(sa / float64(n)), After: round4(sb / float64(n)),
		Diff: round4((sb - sa) / float64(n)), CI95: [2]float64{round4(lo), round4(hi)}}
}

// signTest is the exact two-sided p-value of a split of gained against
// lost questions under even odds: twice the chance of a split at least as
// uneven, at most 1.
func signTest(gained, lost int) float64 {
	n := gained + lost
	if n == 0 {
		return 1
	}
	m := min(gained, lost)
	// P(X ≤ m) for X ~ Binomial(n, ½), summed in log space.
	lgN, _ := math.Lgamma(float64(n + 1))
	var p float64
	for i := 0; i <= m; i++ {
		li, _ := math.Lgamma(float64(i + 1))
		lr, _ := math.Lgamma(float64(n - i + 1))
		p += math.Exp(lgN - li - lr - float64(n)*math.Ln2)
	}
	return min(1, 2*p)
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

// readEvalRows reads a `loci eval locomo --json` file.
func readEvalRows(path string) ([]locomo.Row, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, &cliError{Type: "not_found", Message: "no such file: " + path,
				Hint: "Write per-question results with `loci eval locomo --json FILE`"}
		}
		return nil, &cliError{Type: "io", Message: err.Error()}
	}
	var rows []locomo.Row
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, invalidArgs(fmt.Sprintf("%s is not a `loci eval locomo --json` file: %v", path, err),
			"Write per-question results with `loci eval locomo --json FILE`")
	}
	for i, r := range rows {
		if len(r.Gold) == 0 {
			return nil, invalidArgs(fmt.Sprintf("%s: question %d (%q) has no evidence", path, i+1, r.Question),
				"Compare files written by `loci eval locomo --json`, which hold only questions with evidence")
		}
	}
	return rows, nil
}

// samePairs checks that two runs hold the same questions in the same
// order, so that each question is compared with itself; reworded, that
// they hold the same conversations and evidence in the same order,
// whatever the questions' words.
func samePairs(a, b []locomo.Row, reworded bool) error {
	hint := "Compare two runs of the same questions: the same data, rewrite (--short-messages, --chat-roles, --long-replies, --echo-replies, --echo-reworded, --topic-replies) and --conversations; a run of the questions in other words (--casual-questions, --question-typos, --request-frames, --unseen-names) against one as written with --reworded"
	if len(a) != len(b) {
		return invalidArgs(fmt.Sprintf("the files hold %d and %d questions", len(a), len(b)), hint)
	}
	for i := range a {
		if a[i].Sample != b[i].Sample || !reworded && a[i].Question != b[i].Question || !slices.Equal(a[i].Gold, b[i].Gold) {
			return invalidArgs(fmt.Sprintf("question %d differs: conversation %d %q against conversation %d %q",
				i+1, a[i].Sample, a[i].Question, b[i].Sample, b[i].Question), hint)
		}
	}
	return nil
}

func printComparison(w io.Writer, files []string, k int, groups []comparison) {
	fmt.Fprintf(w, "paired comparison at k=%d: %s (before) and %s (after)\n", k, files[0], files[1])
	col := func(metric string) string {
		return fmt.Sprintf("%-6s %-6s %-6s %-17s", metric, "after", "diff", "95% interval")
	}
	fmt.Fprintf(w, "%-16s %5s  %s  %s  %6s %5s %7s\n", "group", "n",
		col(fmt.Sprintf("any@%d", k)), col(fmt.Sprintf("frac@%d", k)), "gained", "lost", "sign p")
	for _, g := range groups {
		fmt.Fprintf(w, "%-16s %5d  %s  %s  %6d %5d %7.4f\n", g.Group, g.N, g.Any, g.Frac, g.Gained, g.Lost, g.SignP)
	}
}

// String is a shift as printComparison's columns: before, after, the
// difference and its interval.
func (s shift) String() string {
	return fmt.Sprintf("%-6.3f %-6.3f %+-6.3f [%+.3f, %+.3f]", s.Before, s.After, s.Diff, s.CI95[0], s.CI95[1])
}
