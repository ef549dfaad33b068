package palace

import (
	"testing"
)

// The expansion favours the words the best-scored documents share, leaves
// out the query's own and the stopwords, and a short document's words do
// not outweigh a long one's merely for its shortness (the μ smoothing).
func TestExpansionTerms(t *testing.T) {
	t.Parallel()
	long := "Caroline joined the clinic downtown as a nurse; the clinic nurse rota has Caroline on nights at the clinic."
	texts := []string{long, "Caroline clinic nurse shifts", "A recipe for lemon cake"}
	scores := []float64{0.09, 0.08, 0.01}
	got := expansionTerms(texts, scores, []string{"carolin", "work"})
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
		t.Errorf("the short document's word outweighs the long one's repeated word: %v", weights)
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
	if expansionTerms(nil, nil, []string{"x"}) != nil || expansionTerms(texts, []float64{0, 0, 0}, []string{"x"}) != nil {
		t.Error("no documents or no scores should give no expansion")
	}
}
