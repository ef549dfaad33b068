package locomo

import "testing"

// A question shares a word with its evidence when a content word of it,
// stemmed as BM25 stems it, is in an evidence turn; stopwords, short words
// and the speakers' names do not count.
func TestSharesWord(t *testing.T) {
	names := contentTokens("Caroline Melanie", nil)
	for _, c := range []struct {
		question string
		evidence []string
		want     bool
	}{
		{"When did Caroline go to the LGBTQ support group?", []string{"Caroline: I went to a LGBTQ support group yesterday."}, true},
		{"Where is Melanie moving?", []string{"Melanie: We moved to Denver in May."}, true}, // "moving" and "moved" stem alike
		{"What is Caroline's relationship status?", []string{"Caroline: It'll be tough as a single parent."}, false},
		{"What did you do?", []string{"Melanie: I did it all by myself."}, false}, // stopwords only
		{"What is Caroline's relationship status?", []string{"Melanie: no", "Caroline: my relationship ended"}, true},
		{"Is it ok?", []string{"Caroline: ok"}, false}, // words under three letters
	} {
		if got := sharesWord(c.question, c.evidence, names); got != c.want {
			t.Errorf("sharesWord(%q, %q) = %v, want %v", c.question, c.evidence, got, c.want)
		}
	}
}

// Groups reports the questions that share a word with their evidence and
// those that do not, when the rows say; rows read from an older file,
// which do not, give neither group.
func TestGroupsBySharedWord(t *testing.T) {
	yes, no := true, false
	rows := []Row{
		{Category: 1, Gold: []string{"D1:1"}, Top: []string{"D1:1"}, SharesWord: &yes},
		{Category: 1, Gold: []string{"D1:2"}, Top: []string{"D1:3"}, SharesWord: &no},
		{Category: 4, Gold: []string{"D1:4", "D1:5"}, Top: []string{"D1:5"}, SharesWord: &no},
	}
	byName := map[string]Group{}
	for _, g := range Groups(rows, []int{10}) {
		byName[g.Name] = g
	}
	if g := byName[GroupSharesWord]; g.N != 1 || g.Metrics["any@10"] != 1 {
		t.Errorf("%s: %+v", GroupSharesWord, g)
	}
	if g := byName[GroupSharesNoWord]; g.N != 2 || g.Metrics["any@10"] != 0.5 || g.Metrics["frac@10"] != 0.25 {
		t.Errorf("%s: %+v", GroupSharesNoWord, g)
	}
	for i := range rows {
		rows[i].SharesWord = nil
	}
	for _, g := range Groups(rows, []int{10}) {
		if g.Name == GroupSharesWord || g.Name == GroupSharesNoWord {
			t.Errorf("rows that do not say gave the group %q", g.Name)
		}
	}
}

// Who said a question's evidence is read against the conversation's first
// speaker; a turn without a speaker, or no first speaker, says nothing.
func TestEvidenceBy(t *testing.T) {
	spoke := map[string]string{"D1:1": "user", "D1:2": "assistant", "D1:3": "user", "D1:4": ""}
	for _, c := range []struct {
		gold  []string
		first string
		want  string
	}{
		{[]string{"D1:1", "D1:3"}, "user", EvidenceFirst},
		{[]string{"D1:2"}, "user", EvidenceSecond},
		{[]string{"D1:1", "D1:2"}, "user", EvidenceBoth},
		{[]string{"D1:1", "D1:4"}, "user", ""},
		{[]string{"D1:1"}, "", ""},
	} {
		if got := evidenceBy(c.gold, spoke, c.first); got != c.want {
			t.Errorf("evidenceBy(%v, first %q) = %q, want %q", c.gold, c.first, got, c.want)
		}
	}
	rows := []Row{
		{Category: 4, Gold: []string{"D1:1"}, Top: []string{"D1:1"}, EvidenceBy: EvidenceFirst},
		{Category: 4, Gold: []string{"D1:2"}, Top: []string{"D1:9"}, EvidenceBy: EvidenceSecond},
		{Category: 4, Gold: []string{"D1:3"}, Top: []string{"D1:3"}, EvidenceBy: EvidenceSecond},
		{Category: 4, Gold: []string{"D1:4"}, Top: []string{"D1:4"}},
	}
	byName := map[string]Group{}
	for _, g := range Groups(rows, []int{10}) {
		byName[g.Name] = g
	}
	for _, g := range EvidenceGroups {
		want := map[string]int{EvidenceFirst: 1, EvidenceSecond: 2, EvidenceBoth: 0}[g.By]
		if got, ok := byName[g.Name]; got.N != want || ok != (want > 0) {
			t.Errorf("%s: %+v, want %d questions", g.Name, got, want)
		}
	}
	if g := byName[EvidenceGroups[1].Name]; g.Metrics["any@10"] != 0.5 {
		t.Errorf("%s: %+v", EvidenceGroups[1].Name, g)
	}
}

// SplitByLeg counts each question once, by whether hybrid and each leg
// find it, and refuses rows that are not the same questions in order.
func TestSplitByLeg(t *testing.T) {
	row := func(q string, found bool) Row {
		r := Row{Sample: 1, Question: q, Gold: []string{"D1:1"}, Top: []string{"D1:9", "D1:8"}}
		if found {
			r.Top = []string{"D1:9", "D1:1"}
		}
		return r
	}
	// hybrid, keyword, vector for each question
	cases := []struct {
		q       string
		h, k, v bool
	}{
		{"a", true, true, true}, {"b", true, false, false}, {"c", false, true, false},
		{"d", false, false, true}, {"e", false, true, true}, {"f", false, false, false}, {"g", true, false, true},
	}
	var h, k, v []Row
	for _, c := range cases {
		h, k, v = append(h, row(c.q, c.h)), append(k, row(c.q, c.k)), append(v, row(c.q, c.v))
	}
	got, ok := SplitByLeg(h, k, v, 2)
	want := LegSplit{N: 7, Hybrid: 3, EitherLeg: 5, HybridOnly: 1, LostKeyword: 1, LostVector: 1, LostBoth: 1, MissedByAll: 1}
	if !ok || got != want {
		t.Errorf("SplitByLeg = %+v, %v; want %+v", got, ok, want)
	}
	// At k = 1 the evidence, second in every list, is found by none.
	if got, _ := SplitByLeg(h, k, v, 1); got.MissedByAll != 7 || got.Hybrid != 0 {
		t.Errorf("at k=1: %+v", got)
	}
	if _, ok := SplitByLeg(h, k[:6], v, 2); ok {
		t.Error("rows of another length were set against each other")
	}
	k[2].Question = "another"
	if _, ok := SplitByLeg(h, k, v, 2); ok {
		t.Error("rows of another question were set against each other")
	}
}
