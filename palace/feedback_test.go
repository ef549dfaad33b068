package palace

import (
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/bm25"
)

// The expansion favours the words the best-scored documents share, leaves
// out the query's own and the stopwords, and a short document's words do
// not outweigh a long one's merely for its shortness (the μ smoothing).
func TestExpansionTerms(t *testing.T) {
	t.Parallel()
	long := "Caroline joined the clinic downtown as a nurse; the clinic nurse rota has Caroline on nights at the clinic."
	texts := []string{long, "Caroline clinic nurse shifts", "A recipe for lemon cake"}
	scores := []float64{0.09, 0.08, 0.01}
	got := expansionTerms(tokenized(texts), scores, []string{"carolin", "work"}, nil)
	if len(got) == 0 || len(got) > feedbackTerms {
		t.Fatalf("%d expansion terms", len(got))
	}
	weights := map[string]float64{}
	for _, w := range got {
		weights[w.Tok] = w.W
		if w.Tok == "carolin" || w.Tok == "the" || w.Tok == "a" {
			t.Errorf("expanded with %q", w.Tok)
		}
	}
	if weights["clinic"] == 0 || weights["nurs"] == 0 {
		t.Fatalf("the shared words are missing: %v", weights)
	}
	if weights["clinic"] <= weights["lemon"] || weights["nurs"] <= weights["cake"] {
		t.Errorf("a low-scored document's words outweigh the best ones: %v", weights)
	}
	if weights["clinic"] <= weights["shift"] {
		t.Errorf("the short document's word outweighs a word of the long one and the short one both: %v", weights)
	}
	sum := 0.0
	for _, w := range got {
		sum += w.W
	}
	// RM3 with λ = 0.5 and two query tokens: the expansion weighs as much
	// as the query, 2 in all.
	if sum < 1.999 || sum > 2.001 {
		t.Errorf("expansion weights sum to %v, want 2", sum)
	}
	if expansionTerms(nil, nil, []string{"x"}, nil) != nil || expansionTerms(tokenized(texts), []float64{0, 0, 0}, []string{"x"}, nil) != nil {
		t.Error("no documents or no scores should give no expansion")
	}
}

// A document counts each of its words once: a pasted log that repeats
// its identifiers on every line does not outweigh the words the other
// best hits share, as counting occurrences let it.
func TestExpansionTermsCountADocumentsWordsOnce(t *testing.T) {
	t.Parallel()
	paste := strings.Repeat("resp, err := client.Do(req); if err != nil { return resp.StatusCode, err } ", 8)
	texts := []string{
		"Caroline: I'm single again since the breakup in May",
		"Caroline: after the breakup my friends kept me going",
		paste,
		"Melanie: sorry about the breakup, Caroline, you deserve someone kind",
	}
	got := expansionTerms(tokenized(texts), []float64{0.1, 0.09, 0.09, 0.08}, []string{"relationship", "status"}, nil)
	if len(got) == 0 || got[0].Tok != "breakup" {
		t.Fatalf("expansion %v: want the word three of the four hits share first", got)
	}
	w := map[string]float64{}
	for _, e := range got {
		w[e.Tok] = e.W
	}
	for _, tok := range []string{"err", "resp"} {
		if w[tok] >= w["breakup"]/2 {
			t.Errorf("the paste's repeated %q weighs %.3f against the shared word's %.3f", tok, w[tok], w["breakup"])
		}
	}
}

// Terms are chosen by what distinguishes the feedback documents from the
// palace (KL divergence): a word the whole palace uses as often as these
// documents do (a speaker's name) is left out however often it appears
// here, and one they use far more than the palace does is kept.
func TestExpansionTermsLeaveOutWhatThePalaceAlwaysSays(t *testing.T) {
	t.Parallel()
	texts := []string{
		"Melanie: the clinic night shift, Melanie says, is where the nurse rota starts",
		"Melanie: Melanie took the clinic nurse job",
	}
	share := func(tok string) float64 {
		switch tok {
		case "melani":
			return 0.3 // as common everywhere as in these two
		case "clinic", "nurs":
			return 1e-5
		}
		return 1e-4
	}
	got := expansionTerms(tokenized(texts), []float64{0.6, 0.4}, []string{"job"}, share)
	w := map[string]float64{}
	for _, e := range got {
		w[e.Tok] = e.W
	}
	if _, ok := w["melani"]; ok {
		t.Errorf("expanded with the palace's most common word: %v", w)
	}
	if w["clinic"] == 0 || w["nurs"] == 0 {
		t.Errorf("the documents' own subject is missing: %v", w)
	}
	// Without collection statistics the name, in both documents, weighs
	// as much as any word: P(t|R) alone cannot tell it from the subject.
	plain := expansionTerms(tokenized(texts), []float64{0.6, 0.4}, []string{"job"}, nil)
	top := map[string]bool{}
	for _, e := range plain {
		if e.W >= plain[0].W-1e-12 {
			top[e.Tok] = true
		}
	}
	if !top["melani"] {
		t.Errorf("by P(t|R) alone: %v", plain)
	}
}

// A text restates another when at least half of the shorter one's words
// are the other's; texts of fewer than three words are never judged.
func TestRestates(t *testing.T) {
	t.Parallel()
	set := func(ws ...string) map[string]bool {
		m := map[string]bool{}
		for _, w := range ws {
			m[w] = true
		}
		return m
	}
	statement := set("move", "inventori", "app", "postgr")
	reply := set("great", "choic", "move", "inventori", "app", "postgr", "backup", "migrat", "plan")
	for _, c := range []struct {
		name  string
		own   map[string]bool
		taken []map[string]bool
		want  bool
	}{
		{"a reply holding the statement", reply, []map[string]bool{statement}, true},
		{"the statement after its reply", statement, []map[string]bool{reply}, true},
		{"half of the shorter", set("move", "app", "garden", "tulip"), []map[string]bool{reply}, true},
		{"less than half", set("move", "garden", "tulip", "spring"), []map[string]bool{reply}, false},
		{"too short to judge", set("move", "app"), []map[string]bool{reply}, false},
		{"nothing taken", reply, nil, false},
		{"one of several taken", statement, []map[string]bool{set("garden", "tulip", "spring"), reply}, true},
	} {
		if got := restates(c.own, c.taken); got != c.want {
			t.Errorf("%s: restates = %v, want %v", c.name, got, c.want)
		}
	}
}

// Restatements are judged on what texts say: two texts an agent wrote in
// one conversation share their headers' words ("d1", "may", "2023",
// "caroline"), which would make any two short ones look alike.
func TestSpokenWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"[D1:3] (8 May, 2023) Caroline: I went to the support group": "I went to the support group",
		"2024-03-02 — user: we moved the app to Postgres":            "we moved the app to Postgres",
		"I went to the support group":                                "I went to the support group",
		"long passage from the middle of a reply":                    "long passage from the middle of a reply",
		// A speaker recorded in lower case: after a header, or by its sender.
		"[D1:3] (8 May, 2023) jenny_k: pottery class today": "pottery class today",
		"caroline: pottery class today":                     "pottery class today",
		"fyi: pottery class today":                          "fyi: pottery class today",
	} {
		d := &Drawer{SenderIDs: []string{"Caroline"}}
		if got := spokenWords(in, d); got != want {
			t.Errorf("spokenWords(%q) = %q, want %q", in, got, want)
		}
	}
	a := map[string]bool{}
	for _, tok := range bm25.AppendTokens(nil, spokenWords("[D1:3] (8 May, 2023) Caroline: Pottery class today", &Drawer{})) {
		a[tok] = true
	}
	b := map[string]bool{}
	for _, tok := range bm25.AppendTokens(nil, spokenWords("[D1:5] (8 May, 2023) Caroline: Heading to the beach", &Drawer{})) {
		b[tok] = true
	}
	if restates(a, []map[string]bool{b}) {
		t.Errorf("two texts that share only their header restate each other: %v %v", a, b)
	}
}

// tokenized is each text as BM25 tokens, as feedbackDocuments gives them.
func tokenized(texts []string) [][]string {
	docs := make([][]string, len(texts))
	for i, text := range texts {
		docs[i] = bm25.AppendTokens(nil, text)
	}
	return docs
}

// Stopwords are left out as the tokens the index holds, stemmed: "they",
// "this" and "was" are "thei", "thi" and "wa" there, and a word the
// feedback drawers say more often than the palace does is no subject of
// theirs when it is one of these.
func TestExpansionTermsLeaveOutStemmedStopwords(t *testing.T) {
	t.Parallel()
	texts := []string{
		"they said this was the adoption agency they liked, and they were very happy",
		"they think this was a good agency; they were very sure it was",
	}
	share := func(tok string) float64 { return 1e-5 } // every word rarer in the palace than here
	got := expansionTerms(tokenized(texts), []float64{0.5, 0.5}, []string{"adopt"}, share)
	if len(got) == 0 {
		t.Fatal("no expansion")
	}
	for _, e := range got {
		switch e.Tok {
		case "thei", "thi", "wa", "veri":
			t.Errorf("expanded with the stopword token %q: %v", e.Tok, got)
		}
	}
	if got[0].Tok != "agenc" {
		t.Errorf("expansion %v: want the word both documents share first", got)
	}
}
