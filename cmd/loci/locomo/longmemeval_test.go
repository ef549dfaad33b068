package locomo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
)

// Two LongMemEval instances as its files write them (longmemeval_s.json's
// fields), each with its own haystack of sessions between a user and an
// assistant, with a turn and a session that cannot be read.
const longMemEvalFile = `[
 {"question_id": "a1b2c3", "question_type": "single-session-user",
  "question": "What breed is my dog?", "answer": "a whippet",
  "question_date": "2023/06/02 (Fri) 10:00",
  "haystack_session_ids": ["s_1", "s_2"],
  "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/28 (Sun) 18:40"],
  "haystack_sessions": [
   [{"role": "user", "content": "Can you suggest a weekly walking plan? My whippet Juno gets restless in the evenings."},
    {"role": "assistant", "content": "Sure! For an active dog, plan two walks a day: a brisk morning walk of thirty minutes and an evening walk with some off-lead running in a fenced field. Dogs that get restless in the evenings often need more running, not longer walks."}],
   [{"role": "user", "content": "What should I cook for a dinner party of six?", "has_answer": false},
    {"role": "assistant", "content": "A slow-roasted shoulder of lamb with white beans is easy to scale for six and leaves you free to talk to your guests."},
    "a turn that is not an object"]
  ]},
 {"question_id": "d4e5f6_abs", "question_type": "knowledge-update",
  "question": "Which city did I move to last month?", "answer": "The chats do not say.",
  "haystack_dates": ["2023/07/01 (Sat) 09:00"],
  "haystack_sessions": [
   [{"role": "user", "content": "I moved to Lisbon in June and I am looking for a climbing gym.", "has_answer": true},
    {"role": "assistant", "content": "Lisbon has several bouldering gyms; one near the river is popular with newcomers."}],
   {"not": "a session"}
  ]}
]`

func writeLongMemEval(t *testing.T, raw string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "longmemeval_s.json")
	if err := os.WriteFile(file, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// A LongMemEval file is read as it is: an instance is a conversation of
// its own, its haystack sessions LoCoMo's sessions with their dates, its
// turns spoken by their roles, its marked turns the question's evidence,
// its question type a category, and what cannot be read is noted.
func TestLoadReadsLongMemEval(t *testing.T) {
	// The first instance marks its evidence turn too.
	var items []map[string]any
	if err := json.Unmarshal([]byte(longMemEvalFile), &items); err != nil {
		t.Fatal(err)
	}
	items[0]["haystack_sessions"].([]any)[0].([]any)[0].(map[string]any)["has_answer"] = true
	marked, _ := json.Marshal(items)
	samples, err := Load(writeLongMemEval(t, string(marked)))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 2 {
		t.Fatalf("%d conversations, want one an instance", len(samples))
	}
	a, b := samples[0], samples[1]
	if a.SampleID != "a1b2c3" || a.speaker("speaker_a") != RoleUser || a.speaker("speaker_b") != RoleAssistant {
		t.Errorf("first instance: id %q, speakers %q and %q", a.SampleID, a.speaker("speaker_a"), a.speaker("speaker_b"))
	}
	if got := sessionNumbers(a.Conversation); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("sessions %v, want 1 and 2", got)
	}
	var turns []Turn
	if err := json.Unmarshal(a.Conversation["session_2"], &turns); err != nil || len(turns) != 2 ||
		!reflect.DeepEqual(turns[1], Turn{Speaker: "assistant", DiaID: "D2:2", Text: "A slow-roasted shoulder of lamb with white beans is easy to scale for six and leaves you free to talk to your guests."}) {
		t.Errorf("session 2 = %+v (%v)", turns, err)
	}
	var date string
	json.Unmarshal(a.Conversation["session_2_date_time"], &date)
	if when := readDate(date, palace.OrderUnknown); !when.Equal(time.Date(2023, 5, 28, 18, 40, 0, 0, time.UTC)) {
		t.Errorf("session 2 dated %q, read as %v", date, when)
	}
	if len(a.QA) != 1 || a.QA[0].Question != "What breed is my dog?" || a.QA[0].Category != 4 ||
		!reflect.DeepEqual(normEvidence(a.QA[0].Evidence), []string{"D1:1"}) {
		t.Errorf("first question %+v", a.QA)
	}
	if !reflect.DeepEqual(a.Dropped, []string{"haystack session 2, turn 3: not an object"}) {
		t.Errorf("first instance dropped %q", a.Dropped)
	}
	if len(b.QA) != 1 || b.QA[0].Category != 5 || !reflect.DeepEqual(normEvidence(b.QA[0].Evidence), []string{"D1:1"}) {
		t.Errorf("an abstention question %+v, want category 5 with its marked turn", b.QA)
	}
	if !reflect.DeepEqual(b.Dropped, []string{"haystack session 2: not a list of turns"}) {
		t.Errorf("second instance dropped %q", b.Dropped)
	}
	// --write-data writes the instances in LoCoMo's schema, for the
	// reference script, and reading that back gives the same conversations.
	out := filepath.Join(t.TempDir(), "as-locomo.json")
	if err := writeSamples(out, samples, nil); err != nil {
		t.Fatal(err)
	}
	back, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		back[i].Dropped, samples[i].Dropped = nil, nil
	}
	if !reflect.DeepEqual(back, samples) {
		t.Errorf("written in LoCoMo's schema and read back:\n%+v\nwant\n%+v", back, samples)
	}
}

// Each instance is asked against its own haystack. The first marks no
// turn, so its question has no evidence and is reported, not scored; the
// second's marked turn comes first.
func TestRunAsksLongMemEvalQuestions(t *testing.T) {
	var warned []string
	rows, _, _, err := Run(context.Background(), Options{Data: []string{writeLongMemEval(t, longMemEvalFile)},
		Method: palace.ModeHybrid, Embedder: embed.Default(), Ks: []int{1},
		Warn: func(format string, a ...any) { warned = append(warned, fmt.Sprintf(format, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Sample != 2 || rows[0].Category != 5 || len(rows[0].Top) == 0 || rows[0].Top[0] != "D1:1" {
		t.Fatalf("rows %+v, want the second instance's question only, its marked turn first", rows)
	}
	var noEvidence bool
	for _, w := range warned {
		noEvidence = noEvidence || strings.HasPrefix(w, "conversation 1: 1 questions not scored: they name no evidence")
	}
	if !noEvidence {
		t.Errorf("warnings %q, want the first instance's unmarked question reported", warned)
	}
}

// A question is asked at its question_date: "last month" is the month
// before it, not the month before the haystack's last session.
func TestLongMemEvalQuestionsAreAskedAtTheirDate(t *testing.T) {
	months := []string{"January", "February", "March", "April", "May", "June",
		"July", "August", "September", "October", "November", "December"}
	var sessions [][]map[string]any
	var dates []string
	for i, m := range months {
		dates = append(dates, fmt.Sprintf("2021/%02d/05 (Mon) 13:00", i+1))
		sessions = append(sessions, []map[string]any{
			{"role": "user", "content": fmt.Sprintf("I went hiking with my sister in %s, walk number %d", m, i+1), "has_answer": m == "June"},
			{"role": "assistant", "content": "Sounds lovely, say hi to her"},
		})
	}
	for _, c := range []struct{ asked, first string }{{"2021/07/10 (Sat) 09:00", "D6:1"}, {"", "D11:1"}} {
		data, _ := json.Marshal([]map[string]any{{"question_id": "hikes", "question_type": "temporal-reasoning",
			"question": "Where did I go hiking last month?", "question_date": c.asked,
			"haystack_dates": dates, "haystack_sessions": sessions}})
		rows, _, _, err := Run(context.Background(), Options{Data: []string{writeLongMemEval(t, string(data))},
			Method: palace.ModeHybrid, Embedder: embed.Default(), Ks: []int{1}, Warn: func(string, ...any) {}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || len(rows[0].Top) == 0 || rows[0].Top[0] != c.first {
			t.Errorf("asked on %q, the first hit is %v; want %s", c.asked, rows, c.first)
		}
	}
}
