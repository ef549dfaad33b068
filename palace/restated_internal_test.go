package palace

import (
	"reflect"
	"strings"
	"testing"
)

// A sentence restates an earlier text when all but one word in five of
// its words were said in that one text; formulas of fewer than three
// words and sentences that only share a topic do not.
func TestRestatedSentences(t *testing.T) {
	window := []string{
		"Great question about logging.",
		"I'm deploying the gateway on a Raspberry Pi 4 with four gigabytes of memory.",
	}
	own := "Thanks for the details! " + // a formula
		"You mentioned deploying the gateway on a Raspberry Pi 4 with four gigabytes of memory. " + // all but one word
		"The gateway needs more memory than that.\n" + // shares a topic, not a statement
		"Keep the worker pool small."
	got := restatedSentences(own, window)
	want := []string{"You mentioned deploying the gateway on a Raspberry Pi 4 with four gigabytes of memory."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("restatedSentences = %q, want %q", got, want)
	}
	if got := restatedSentences(own, nil); got != nil {
		t.Errorf("with nothing before it, %q restate", got)
	}
	// Bounded: a long paste that repeats an earlier one keeps at most
	// restatedMaxBytes of restated sentences.
	line := "The handler retries the upload three times before it gives up.\n"
	paste := strings.Repeat(line, 2*restatedMaxBytes/len(line))
	got = restatedSentences(paste, []string{line})
	size := 0
	for _, s := range got {
		size += len(s) + 1
	}
	if size > restatedMaxBytes || size < restatedMaxBytes/2 {
		t.Errorf("a long paste kept %d bytes of restated sentences, want at most %d (and most of it)", size, restatedMaxBytes)
	}
}

// The keywords keep what was borrowed and the restated sentences apart,
// and the index counts a restated sentence with the keywords, in the
// passage that holds it.
func TestRestatedKeywords(t *testing.T) {
	kw := withRestated("user: which port?", []string{"It listens on 8443.", "Behind the balancer."})
	borrowed, restated := splitRestated(kw)
	if borrowed != "user: which port?" || !reflect.DeepEqual(restated, []string{"It listens on 8443.", "Behind the balancer."}) {
		t.Errorf("split %q into %q and %q", kw, borrowed, restated)
	}
	if got := withRestated("a"+restatedMark+"b", []string{"c"}); strings.Count(got, restatedMark) != 1 {
		t.Errorf("withRestated kept a borrowed separator: %q", got)
	}
	if got := withRestated("plain", nil); got != "plain" {
		t.Errorf("withRestated without sentences = %q", got)
	}
	if got := withRestated("a"+restatedMark+"b", nil); strings.Contains(got, restatedMark) {
		t.Errorf("withRestated without sentences kept a borrowed separator: %q", got)
	}
	content := "It listens on 8443. Then it reloads. Behind the balancer."
	ranges := restatedRanges(content, restated)
	if !reflect.DeepEqual(ranges, [][2]int{{0, 19}, {37, 57}}) {
		t.Fatalf("ranges = %v", ranges)
	}
	own, moved := splitOff(content, 0, len(content), ranges)
	if strings.TrimSpace(own) != "Then it reloads." || moved != "It listens on 8443.\nBehind the balancer." {
		t.Errorf("splitOff = %q and %q", own, moved)
	}
	// A passage holds only the ranges wholly inside it.
	own, moved = splitOff(content, 20, len(content), ranges)
	if strings.TrimSpace(own) != "Then it reloads." || moved != "Behind the balancer." {
		t.Errorf("splitOff of a passage = %q and %q", own, moved)
	}
	if own, moved := splitOff(content, 5, 30, ranges); own != content[5:30] || moved != "" {
		t.Errorf("a passage holding no whole range = %q and %q", own, moved)
	}
}

// A drawer's vector is made from what it adds: its restated sentences are
// left out, unless nothing else is left.
func TestEmbedTextLeavesRestatedOut(t *testing.T) {
	d := &Drawer{
		Content:  "assistant: You run the gateway on a Raspberry Pi. Turn on swap.",
		Keywords: withRestated("user: what now?", []string{"You run the gateway on a Raspberry Pi."}),
	}
	if got := embedText(d, nil); strings.Contains(got, "Raspberry") || !strings.Contains(got, "Turn on swap.") || !strings.HasSuffix(got, "\nuser: what now?") {
		t.Errorf("embedText = %q, want the reply's own sentence and what it borrowed", got)
	}
	d = &Drawer{Content: "You run the gateway on a Raspberry Pi.", Keywords: withRestated("", []string{"You run the gateway on a Raspberry Pi."})}
	if got := embedText(d, nil); got != d.Content {
		t.Errorf("embedText of a text that only restates = %q, want the text", got)
	}
}
