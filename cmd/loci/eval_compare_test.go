package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-mem/loci/cmd/loci/locomo"
)

// writeRows writes per-question results as `loci eval locomo --json` does.
func writeRows(t *testing.T, path string, rows []locomo.Row) {
	t.Helper()
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Twenty questions, two evidence turns each. The first run finds one of
// the two for questions 0–9; the second finds both for 0–9 and one for
// 10–15, and nothing it found before is lost.
func TestEvalCompareIsPaired(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var before, after []locomo.Row
	for i := range 20 {
		q := locomo.Row{Sample: 1, Category: 1 + i%2, Question: fmt.Sprintf("question %d?", i), Gold: []string{"D1:1", "D1:2"}}
		b, a := q, q
		b.Top = []string{"D2:1", "D2:2"}
		a.Top = []string{"D2:1", "D2:2"}
		if i < 10 {
			b.Top = []string{"D1:1", "D2:2"}
			a.Top = []string{"D1:1", "D1:2"}
		} else if i < 16 {
			a.Top = []string{"D2:1", "D1:2"}
		}
		before, after = append(before, b), append(after, a)
	}
	pb, pa := filepath.Join(dir, "before.json"), filepath.Join(dir, "after.json")
	writeRows(t, pb, before)
	writeRows(t, pa, after)

	o := runCLI(t, t.TempDir(), "json", "eval", "compare", pb, pa, "--k", "2")
	if o.code != 0 {
		t.Fatalf("exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
	var data struct {
		Questions int          `json:"questions"`
		Groups    []comparison `json:"groups"`
	}
	b, _ := json.Marshal(o.env.Data)
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	if data.Questions != 20 || len(data.Groups) != 3 || data.Groups[0].Group != "overall" || data.Groups[1].N != 10 {
		t.Fatalf("groups: %+v", data)
	}
	g := data.Groups[0]
	// any@2: .5 → .8; frac@2: (10 × ½) / 20 = .25 → (10 × 1 + 6 × ½) / 20 = .65.
	if g.Any.Before != 0.5 || g.Any.After != 0.8 || g.Any.Diff != 0.3 || g.Frac.Before != 0.25 || g.Frac.After != 0.65 {
		t.Fatalf("means: %+v", g)
	}
	if g.Gained != 6 || g.Lost != 0 || g.FracUp != 16 || g.FracDown != 0 {
		t.Fatalf("counts: %+v", g)
	}
	if g.SignP != 0.0313 { // 2 × ½⁶, to four places
		t.Fatalf("sign test p = %v, want 0.0313", g.SignP)
	}
	// The interval holds the difference; the questions only ever gain, so
	// no resample can fall below zero.
	for _, s := range []shift{g.Any, g.Frac} {
		if s.CI95[0] > s.Diff || s.CI95[1] < s.Diff || s.CI95[0] <= 0 {
			t.Fatalf("interval %v for a difference of %v", s.CI95, s.Diff)
		}
	}
	// A rerun prints the same interval (the resampling has a fixed seed).
	again := runCLI(t, t.TempDir(), "json", "eval", "compare", pb, pa, "--k", "2")
	if b2, _ := json.Marshal(again.env.Data); string(b2) != string(b) {
		t.Fatalf("two runs differ:\n%s\n%s", b, b2)
	}
	// Compared with itself, a run shows no difference at all.
	self := runCLI(t, t.TempDir(), "text", "eval", "compare", pb, pb, "--k", "2")
	if self.code != 0 || !strings.Contains(self.stdout, "+0.000 [+0.000, +0.000]") {
		t.Fatalf("a run against itself: exit %d\n%s%s", self.code, self.stdout, self.stderr)
	}
}

// Files that cannot be compared question by question are bad input.
func TestEvalCompareBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	row := func(q string) locomo.Row {
		return locomo.Row{Sample: 1, Category: 4, Question: q, Gold: []string{"D1:1"}, Top: []string{"D1:1", "D1:2"}}
	}
	a, b, short := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "short.json")
	writeRows(t, a, []locomo.Row{row("one?"), row("two?")})
	writeRows(t, b, []locomo.Row{row("one?"), row("three?")})
	writeRows(t, short, []locomo.Row{row("one?")})
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte(`{"not": "rows"`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		typ  string
	}{
		{[]string{a}, "invalid_args"},                                  // one file
		{[]string{a, b}, "invalid_args"},                               // another question
		{[]string{a, short}, "invalid_args"},                           // fewer questions
		{[]string{a, junk}, "invalid_args"},                            // not such a file
		{[]string{a, a, "--k", "5"}, "invalid_args"},                   // lists of two results
		{[]string{a, a, "--k", "0"}, "invalid_args"},                   // no cut-off
		{[]string{a, filepath.Join(dir, "missing.json")}, "not_found"}, // no file
		{[]string{a, short, "--reworded"}, "invalid_args"},             // reworded, but fewer questions
	} {
		o := runCLI(t, t.TempDir(), "json", append([]string{"eval", "compare"}, c.args...)...)
		want := 2
		if c.typ == "not_found" {
			want = 1
		}
		if o.code != want || o.env.Error == nil || o.env.Error.Type != c.typ {
			t.Errorf("%v: exit %d %s", c.args, o.code, o.stdout)
		}
	}
}

// A run of the questions in other words pairs with the run as written
// under --reworded, by order, conversation and evidence; evidence that
// differs still refuses.
func TestEvalCompareReworded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	row := func(q string, gold ...string) locomo.Row {
		return locomo.Row{Sample: 1, Category: 4, Question: q, Gold: gold, Top: []string{"D1:1", "D1:2"}}
	}
	a, b, other := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "other.json")
	writeRows(t, a, []locomo.Row{row("What did Ann's mom say?", "D1:1"), row("Where did Ann go?", "D1:3")})
	writeRows(t, b, []locomo.Row{row("what did anns mom say", "D1:1"), row("where did ann go", "D1:3")})
	writeRows(t, other, []locomo.Row{row("what did anns mom say", "D1:1"), row("where did ann go", "D1:4")})
	if o := runCLI(t, t.TempDir(), "json", "eval", "compare", a, b, "--k", "2"); o.code != 2 {
		t.Errorf("reworded questions compared without --reworded: exit %d", o.code)
	}
	o := runCLI(t, t.TempDir(), "json", "eval", "compare", a, b, "--k", "2", "--reworded")
	if o.code != 0 {
		t.Fatalf("--reworded: exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
	var data struct {
		Questions int `json:"questions"`
	}
	raw, _ := json.Marshal(o.env.Data)
	if err := json.Unmarshal(raw, &data); err != nil || data.Questions != 2 {
		t.Errorf("--reworded: %d questions compared (%v): %s", data.Questions, err, o.stdout)
	}
	if o := runCLI(t, t.TempDir(), "json", "eval", "compare", a, other, "--k", "2", "--reworded"); o.code != 2 {
		t.Errorf("other evidence compared under --reworded: exit %d", o.code)
	}
}

func TestSignTest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		gained, lost int
		want         float64
	}{
		{0, 0, 1},
		{6, 0, 2 * math.Pow(0.5, 6)},
		{0, 6, 2 * math.Pow(0.5, 6)},
		{5, 5, 1},
		{10, 2, 2 * (1 + 12 + 66) / 4096.0},
		{500, 400, 0}, // far in the tail: checked only as small and finite below
	} {
		got := signTest(c.gained, c.lost)
		if c.gained == 500 {
			if !(got > 0 && got < 0.002) {
				t.Errorf("signTest(500, 400) = %v", got)
			}
			continue
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("signTest(%d, %d) = %v, want %v", c.gained, c.lost, got, c.want)
		}
	}
}

// Where the runs record whether each question shares a word with its
// evidence, the comparison reports the two groups apart as well.
func TestEvalCompareSplitsBySharedWord(t *testing.T) {
	t.Parallel()
	var before, after []locomo.Row
	for i := range 6 {
		shares := i < 2
		q := locomo.Row{Sample: 1, Category: 4, Question: fmt.Sprintf("question %d?", i), Gold: []string{"D1:1"}, SharesWord: &shares}
		b, a := q, q
		b.Top, a.Top = []string{"D1:1"}, []string{"D1:1"}
		if !shares {
			b.Top = []string{"D1:2"} // the second run finds what shares no word
		}
		before, after = append(before, b), append(after, a)
	}
	got := map[string]comparison{}
	for _, g := range compareRuns(t, before, after, 1) {
		got[g.Group] = g
	}
	if g := got[locomo.GroupSharesWord]; g.N != 2 || g.Any.Diff != 0 {
		t.Errorf("%s: %+v", locomo.GroupSharesWord, g)
	}
	if g := got[locomo.GroupSharesNoWord]; g.N != 4 || g.Any.Before != 0 || g.Any.After != 1 || g.Gained != 4 {
		t.Errorf("%s: %+v", locomo.GroupSharesNoWord, g)
	}
}

// Where the runs record who said each question's evidence, the
// comparison reports those groups apart too.
func TestEvalCompareSplitsByWhoSaidTheEvidence(t *testing.T) {
	t.Parallel()
	var before, after []locomo.Row
	for i, by := range []string{locomo.EvidenceFirst, locomo.EvidenceFirst, locomo.EvidenceSecond} {
		q := locomo.Row{Sample: 1, Category: 4, Question: fmt.Sprintf("question %d?", i), Gold: []string{"D1:1"}, EvidenceBy: by}
		b, a := q, q
		b.Top, a.Top = []string{"D1:2"}, []string{"D1:1"}
		if by == locomo.EvidenceSecond {
			a.Top = []string{"D1:2"}
		}
		before, after = append(before, b), append(after, a)
	}
	got := map[string]comparison{}
	for _, g := range compareRuns(t, before, after, 1) {
		got[g.Group] = g
	}
	if g := got[locomo.EvidenceGroups[0].Name]; g.N != 2 || g.Gained != 2 {
		t.Errorf("%s: %+v", locomo.EvidenceGroups[0].Name, g)
	}
	if g := got[locomo.EvidenceGroups[1].Name]; g.N != 1 || g.Gained != 0 {
		t.Errorf("%s: %+v", locomo.EvidenceGroups[1].Name, g)
	}
	if _, ok := got[locomo.EvidenceGroups[2].Name]; ok {
		t.Errorf("a group with no question: %+v", got)
	}
}

// compareRuns writes two runs' rows and returns `loci eval compare`'s
// groups for them at k.
func compareRuns(t *testing.T, before, after []locomo.Row, k int) []comparison {
	t.Helper()
	dir := t.TempDir()
	pb, pa := filepath.Join(dir, "before.json"), filepath.Join(dir, "after.json")
	writeRows(t, pb, before)
	writeRows(t, pa, after)
	o := runCLI(t, t.TempDir(), "json", "eval", "compare", pb, pa, "--k", fmt.Sprint(k))
	if o.code != 0 {
		t.Fatalf("exit %d: %s%s", o.code, o.stdout, o.stderr)
	}
	var data struct {
		Groups []comparison `json:"groups"`
	}
	b, _ := json.Marshal(o.env.Data)
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	return data.Groups
}
