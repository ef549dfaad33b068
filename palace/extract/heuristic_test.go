package extract_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/extract"
)

var t0 = time.Date(2025, 1, 6, 9, 30, 0, 0, time.UTC)

func convo() []extract.Message {
	return []extract.Message{
		{Role: "user", SenderID: "alice", Text: "I prefer pnpm over npm. My name is Alice. I live in Lisbon. Can you set up the repo today?", Timestamp: t0},
		{Role: "assistant", Text: "Sure, I will set it up with pnpm. The fix was to pin the version because npm resolved differently.", Timestamp: t0.Add(time.Minute),
			ToolCalls: []extract.ToolCall{{ID: "c1", Name: "shell", Arguments: "{}"}}},
		{Role: "tool", ToolCallID: "c1", Text: "ok", Timestamp: t0.Add(2 * time.Minute)},
		{Role: "user", Text: "Thanks, works great. I'm allergic to shellfish.", Timestamp: t0.Add(3 * time.Minute)},
	}
}

func TestHeuristicEpisode(t *testing.T) {
	r, err := extract.Heuristic().Extract(context.Background(), "alice", false, convo())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(r.Episodes), 1; got != want {
		t.Fatalf("episodes = %d, want %d", got, want)
	}
	ep := r.Episodes[0]
	if got, want := ep.Subject, "Can you set up the repo today?"; got != want {
		t.Errorf("subject = %q, want %q", got, want)
	}
	if len(ep.Summary) > 200 || !strings.Contains(ep.Summary, "January 6, 2025") {
		t.Errorf("summary %q: want <=200 bytes with the absolute date", ep.Summary)
	}
	if !strings.Contains(ep.Narrative, "On Monday, January 6, 2025") || strings.Contains(ep.Narrative, " I prefer") && !strings.Contains(ep.Narrative, "alice said") {
		t.Errorf("narrative not third person with absolute date: %q", ep.Narrative)
	}
	wantFacts := []string{"Alice prefers pnpm over npm.", "Alice's name is Alice.", "Alice lives in Lisbon.", "Alice is allergic to shellfish."}
	if !reflect.DeepEqual(ep.Facts, wantFacts) {
		t.Errorf("facts = %q, want %q", ep.Facts, wantFacts)
	}
	if got := r.Profile["location"]; got != "Lisbon" {
		t.Errorf("profile location = %v", got)
	}
	if got := r.Profile["name"]; got != "Alice" {
		t.Errorf("profile name = %v", got)
	}
	if !ep.Timestamp.Equal(t0) || !reflect.DeepEqual(ep.SenderIDs, []string{"alice"}) {
		t.Errorf("timestamp %v senders %v", ep.Timestamp, ep.SenderIDs)
	}
}

func TestHeuristicDeterministic(t *testing.T) {
	h := extract.Heuristic()
	a, _ := h.Extract(context.Background(), "alice", false, convo())
	b, _ := h.Extract(context.Background(), "alice", false, convo())
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs differ")
	}
}

func TestHeuristicAgentCase(t *testing.T) {
	r, err := extract.Heuristic().Extract(context.Background(), "bot", true, convo())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Episodes) != 0 || len(r.Cases) != 1 {
		t.Fatalf("episodes %d cases %d", len(r.Episodes), len(r.Cases))
	}
	c := r.Cases[0]
	if got, want := c.TaskIntent, "Can you set up the repo today?"; got != want {
		t.Errorf("intent = %q, want %q", got, want)
	}
	if !strings.Contains(c.Approach, "shell") {
		t.Errorf("approach %q lacks the tool", c.Approach)
	}
	if c.QualityScore < 0 || c.QualityScore > 1 || c.QualityScore != 0.8 {
		t.Errorf("quality = %v, want 0.8", c.QualityScore)
	}
	if !strings.Contains(c.KeyInsight, "because") {
		t.Errorf("insight = %q", c.KeyInsight)
	}
}

func TestHeuristicFacts(t *testing.T) {
	fs, err := extract.Heuristic().Facts(context.Background(), convo())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, f := range fs {
		kinds[f.Text] = f.Kind
		if f.Confidence <= 0 || f.Confidence > 1 {
			t.Errorf("%q confidence %v", f.Text, f.Confidence)
		}
	}
	for text, kind := range map[string]string{
		"I prefer pnpm over npm.":    "tooling",
		"My name is Alice.":          "identity",
		"I live in Lisbon.":          "location",
		"I'm allergic to shellfish.": "health",
	} {
		if got := kinds[text]; got != kind {
			t.Errorf("%q kind = %q, want %q (all: %v)", text, got, kind, kinds)
		}
	}
	if _, ok := kinds["Can you set up the repo today?"]; ok {
		t.Error("a question was proposed as a fact")
	}
}

func TestHeuristicEmpty(t *testing.T) {
	r, err := extract.Heuristic().Extract(context.Background(), "u", false, nil)
	if err != nil || len(r.Episodes) != 0 || r.Episodes == nil {
		t.Fatalf("empty input: %+v %v", r, err)
	}
}

func TestThirdPerson(t *testing.T) {
	for in, want := range map[string]string{
		"I prefer tabs":             "Bob prefers tabs.",
		"I am a nurse.":             "Bob is a nurse.",
		"My dog is called Rex":      "Bob's dog is called Rex.",
		"I've moved to Berlin":      "Bob has moved to Berlin.",
		"I usually watch my weight": "Bob usually watches their weight.",
		"I don't like coffee":       "Bob doesn't like coffee.",
		"I totally agree":           "Bob totally agrees.",
		"I recently started yoga":   "Bob recently started yoga.",
		"I went to the lake":        "Bob went to the lake.",
		"I finally got the job":     "Bob finally got the job.",
		"I sometimes paint":         "Bob sometimes paints.",
		"I reply to every email":    "Bob replies to every email.",
	} {
		if got := extract.ThirdPerson(in, "Bob"); got != want {
			t.Errorf("ThirdPerson(%q) = %q, want %q", in, got, want)
		}
	}
}
