package locomo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	_ "github.com/loci-mem/loci/palace/embed/builtin" // the default embedder, as loci links it
	"github.com/loci-mem/loci/palace/embed/glove"
	"github.com/rs/zerolog"
)

// TestLocomoHybridBeatsKeyword runs the evaluation on LoCoMo's first
// conversation with the built-in default encoder: hybrid ranking must find
// more evidence than BM25 alone (any@10 higher, frac@10 no lower; measured
// .833/.777 against .817/.777). The data lives outside the repository
// (../shared/data); without it the test skips, except in CI.
func TestLocomoHybridBeatsKeyword(t *testing.T) {
	data := locomoData(t)
	ks := []int{10}
	run := func(mode palace.Mode) map[string]float64 {
		rows, _, turns, err := Run(context.Background(), Options{
			Data: []string{data}, Method: mode, Embedder: embed.Default(), Ks: ks, Samples: []int{1},
		})
		if err != nil {
			t.Fatal(err)
		}
		if turns != 419 || len(rows) < 190 {
			t.Fatalf("conversation 1: %d turns, %d questions; want 419 turns and ~197 questions", turns, len(rows))
		}
		g := Aggregate("overall 1-5", rows, ks)
		t.Logf("%s: any@10 %.3f frac@10 %.3f (n=%d)", mode, g.Metrics["any@10"], g.Metrics["frac@10"], g.N)
		for _, g := range Groups(rows, ks) {
			if g.Name == GroupSharesNoWord {
				// 39 of conversation 1's 197 questions when this was written.
				if g.N < 10 || g.N > len(rows)/2 {
					t.Fatalf("%d of %d questions share no word with their evidence", g.N, len(rows))
				}
				t.Logf("%s, sharing no word with their evidence: any@10 %.3f frac@10 %.3f (n=%d)", mode, g.Metrics["any@10"], g.Metrics["frac@10"], g.N)
			}
		}
		return g.Metrics
	}
	kw := run(palace.ModeKeyword)
	hy := run(palace.ModeHybrid)
	if hy["any@10"] <= kw["any@10"] || hy["frac@10"] < kw["frac@10"] {
		t.Fatalf("hybrid (any@10 %.3f, frac@10 %.3f) does not beat BM25 alone (%.3f, %.3f)",
			hy["any@10"], hy["frac@10"], kw["any@10"], kw["frac@10"])
	}
}

// Plain BM25 (../shared/eval/locomo_bm25.py --stopwords --k 10) on LoCoMo's
// first conversation: any@10 .640, frac@10 .593.
const plainBM25Conv1Any, plainBM25Conv1Frac = 0.640, 0.593

// TestLocomoAgentPathBeatsPlainBM25 stores LoCoMo's first conversation the
// way an agent does — one standalone text at a time through the path of
// memory_remember, each LoCoMo session through its own connection — and
// asks every question through memory_recall's path. Recall must beat plain
// BM25 on the same turns clearly (by .10 any@10 and frac@10; measured
// figures are logged).
func TestLocomoAgentPathBeatsPlainBM25(t *testing.T) {
	beatsPlainBM25(t, PathAgent, plainBM25Conv1Any, plainBM25Conv1Frac, 0.10)
}

// TestLocomoWhatsAppPathBeatsPlainBM25 writes LoCoMo's first conversation
// as WhatsApp exports a chat and imports it as `loci import` does: one
// session, each message with its own time. Recall must beat plain BM25 on
// the same turns as the recorded session does.
func TestLocomoWhatsAppPathBeatsPlainBM25(t *testing.T) {
	beatsPlainBM25(t, PathWhatsApp, plainBM25Conv1Any, plainBM25Conv1Frac, 0.10)
}

// Plain BM25 on LoCoMo's first conversation with its speakers the user
// and the assistant (--chat-roles): any@10 .645, frac@10 .599.
const plainBM25RolesConv1Any, plainBM25RolesConv1Frac = 0.645, 0.599

// TestLocomoChatGPTPathBeatsPlainBM25 writes LoCoMo's first conversation,
// between a user and an assistant, as ChatGPT's data export and imports
// it as `loci import` does: each session a conversation. Recall must beat
// plain BM25 on the same turns by .10.
func TestLocomoChatGPTPathBeatsPlainBM25(t *testing.T) {
	ks := []int{10}
	rows, _, turns, err := Run(context.Background(), Options{Data: []string{locomoData(t)}, Path: PathChatGPT, ChatRoles: true,
		Method: palace.ModeHybrid, Embedder: embed.Default(), Ks: ks, Samples: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	g := Aggregate("overall 1-5", rows, ks).Metrics
	t.Logf("chatgpt path, hybrid: any@10 %.3f frac@10 %.3f (%d turns)", g["any@10"], g["frac@10"], turns)
	if turns != 419 || g["any@10"] < plainBM25RolesConv1Any+0.10 || g["frac@10"] < plainBM25RolesConv1Frac+0.10 {
		t.Fatalf("chatgpt path: %d turns, any@10 %.3f frac@10 %.3f; want 419 and .10 above plain BM25 (%.3f, %.3f)",
			turns, g["any@10"], g["frac@10"], plainBM25RolesConv1Any, plainBM25RolesConv1Frac)
	}
	_, _, _, err = Run(context.Background(), Options{Data: []string{locomoData(t)}, Path: PathChatGPT,
		Method: palace.ModeHybrid, Embedder: embed.Default(), Ks: ks, Samples: []int{1}})
	var de *DataError
	if !errors.As(err, &de) || !strings.Contains(de.Hint, "--chat-roles") {
		t.Fatalf("without --chat-roles: %v, want a DataError naming --chat-roles", err)
	}
}

// Two conversations held at once (--interleave: LoCoMo's sessions two at
// a time, their turns alternating) cost loci's reading of order, which
// borrows the message before a turn and lifts a hit's neighbours in time:
// the recorded session, blind to which conversation a turn belongs to,
// falls. An export that says so gets it back: Slack's threads, each a
// session of its own, and Telegram's replies that name the message they
// answer, borrowed and lifted in place of the message before; and so do
// an agent's texts that name their conversation (memory_remember's
// session) or what they answer (reply_to), against the agent path's texts
// that name neither. Measured on LoCoMo's first conversation (hybrid
// any@10): the session path .782, the Slack path .893, the Telegram path
// .898; the agent path .777, with sessions named .898, with replies named
// .868. Each must stay .04 above the path blind to them.
func TestInterleavedConversationsReadByThreadsAndReplies(t *testing.T) {
	ks := []int{10}
	run := func(path string) float64 {
		t.Helper()
		rows, _, turns, err := Run(context.Background(), Options{Data: []string{locomoData(t)}, Path: path, Interleave: true,
			Method: palace.ModeHybrid, Embedder: embed.Default(), Ks: ks, Samples: []int{1}})
		if err != nil {
			t.Fatal(err)
		}
		g := Aggregate("overall 1-5", rows, ks).Metrics
		t.Logf("--interleave, %s path: any@10 %.3f frac@10 %.3f (%d turns)", path, g["any@10"], g["frac@10"], turns)
		if turns != 419 {
			t.Fatalf("%s path: %d turns, want 419", path, turns)
		}
		return g["any@10"]
	}
	for blindPath, paths := range map[string][]string{PathSession: {PathSlack, PathTelegram}, PathAgent: {PathAgentSession, PathAgentReply}} {
		blind := run(blindPath)
		for _, path := range paths {
			if got := run(path); got < blind+0.04 {
				t.Errorf("%s path: any@10 %.3f, want .04 above the %s path's %.3f", path, got, blindPath, blind)
			}
		}
	}
}

// A conversation without dates cannot be written as an export, whose
// every message is dated: the run says so instead of inventing dates.
func TestWhatsAppPathNeedsDates(t *testing.T) {
	_, _, _, err := Run(context.Background(), Options{Data: []string{locomoData(t)}, Path: PathWhatsApp, NoDates: true,
		Method: palace.ModeHybrid, Embedder: embed.Default(), Ks: []int{10}, Samples: []int{1}})
	var de *DataError
	if !errors.As(err, &de) || !strings.Contains(de.Hint, "--no-dates") {
		t.Fatalf("error %v, want a DataError naming --no-dates", err)
	}
}

// Plain BM25 over LoCoMo's observations of its first conversation, one
// document a fact, scored by the turns the first ten facts cite (the
// reference script's tokenizer, stopwords and parameters): any@10 .558,
// frac@10 .518.
const plainBM25FactsConv1Any, plainBM25FactsConv1Frac = 0.558, 0.518

// TestLocomoFactsPathBeatsPlainBM25 stores the observations of LoCoMo's
// first conversation as facts the way the remember tool does and asks
// every question as the recall tool does. Recall must beat plain BM25 over
// the same facts clearly (by .05 any@10 and frac@10; measured .634 / .596).
func TestLocomoFactsPathBeatsPlainBM25(t *testing.T) {
	beatsPlainBM25(t, PathFacts, plainBM25FactsConv1Any, plainBM25FactsConv1Frac, 0.05)
}

// beatsPlainBM25 runs LoCoMo's first conversation along path, asking every
// question with hybrid ranking, and fails unless any@10 and frac@10 are
// both at least margin above plain BM25's figures on the same texts.
func beatsPlainBM25(t *testing.T, path string, bm25Any, bm25Frac, margin float64) {
	t.Helper()
	ks := []int{10}
	rows, _, turns, err := Run(context.Background(), Options{
		Data: []string{locomoData(t)}, Path: path, Method: palace.ModeHybrid, Embedder: embed.Default(), Ks: ks, Samples: []int{1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if turns != 419 || len(rows) < 190 {
		t.Fatalf("conversation 1: %d turns, %d questions; want 419 turns and ~197 questions", turns, len(rows))
	}
	g := Aggregate("overall 1-5", rows, ks).Metrics
	t.Logf("%s path, hybrid: any@10 %.3f frac@10 %.3f; plain BM25 %.3f / %.3f", path, g["any@10"], g["frac@10"], bm25Any, bm25Frac)
	if g["any@10"] < bm25Any+margin || g["frac@10"] < bm25Frac+margin {
		t.Fatalf("%s path any@10 %.3f frac@10 %.3f: not %.2f above plain BM25 (%.3f, %.3f)",
			path, g["any@10"], g["frac@10"], margin, bm25Any, bm25Frac)
	}
}

// locomoData returns the LoCoMo file's path. The data lives outside the
// repository (../shared/data): without it a test skips, except in CI, where
// it fails.
func locomoData(t *testing.T) string {
	t.Helper()
	data := DefaultDataPath()
	if _, err := os.Stat(data); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("LoCoMo data missing at %s", data)
		}
		t.Skipf("LoCoMo data not found at %s", data)
	}
	return data
}

// LongReplies folds each turn of the second speaker and the turns after it
// into one reply under the first one's dia_id, keeps the first speaker's
// other turns, and moves evidence along.
func TestLongReplies(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1_date_time":"1:00 pm on 8 May, 2023",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"},
			{"speaker":"Bo","dia_id":"D1:2","text":"hello"},
			{"speaker":"Ann","dia_id":"D1:3","text":"how was the trip?"},
			{"speaker":"Bo","dia_id":"D1:4","text":"great","blip_caption":"a lake"},
			{"speaker":"Ann","dia_id":"D1:5","text":"nice"}]},
		"qa":[{"question":"q","category":4,"evidence":["D1:4","D1:5; D1:1"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := LongReplies(&s, 3); err != nil {
		t.Fatal(err)
	}
	var turns []Turn
	if err := json.Unmarshal(s.Conversation["session_1"], &turns); err != nil {
		t.Fatal(err)
	}
	want := []Turn{{Speaker: "Ann", DiaID: "D1:1", Text: "hi"},
		{Speaker: "Bo", DiaID: "D1:2", Text: "hello\n\nhow was the trip?\n\ngreat [shares image: a lake]"},
		{Speaker: "Ann", DiaID: "D1:5", Text: "nice"}}
	if !reflect.DeepEqual(turns, want) {
		t.Fatalf("turns %+v, want %+v", turns, want)
	}
	if got := fmt.Sprint(s.QA[0].Evidence); got != "[D1:2 D1:5 D1:1]" {
		t.Fatalf("evidence %s, want [D1:2 D1:5 D1:1]", got)
	}
}

// ShortMessages sends each turn as its sentences and a shared image as a
// message of its own, numbers the messages afresh, and makes a question's
// evidence the messages of its evidence turns that hold the most words of
// its answer (all of them when none holds any).
func TestShortMessages(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1_date_time":"1:00 pm on 8 May, 2023",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"Hi Bo! How was the trip?"},
			{"speaker":"Bo","dia_id":"D1:2","text":"Great, thanks. We hiked to the lake.\nIt was freezing!","blip_caption":"a lake"},
			{"speaker":"Ann","dia_id":"D1:3","text":"nice"}]},
		"qa":[{"question":"Where did Bo hike?","answer":"to a lake","category":4,"evidence":["D1:2"]},
			{"question":"What did Ann say?","adversarial_answer":"nothing much","category":5,"evidence":["D1:3"]},
			{"question":"How did Ann greet Bo?","answer":"warmly","category":4,"evidence":["D:1:1"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := ShortMessages(&s); err != nil {
		t.Fatal(err)
	}
	var turns []Turn
	if err := json.Unmarshal(s.Conversation["session_1"], &turns); err != nil {
		t.Fatal(err)
	}
	want := []Turn{{Speaker: "Ann", DiaID: "D1:1", Text: "Hi Bo!"},
		{Speaker: "Ann", DiaID: "D1:2", Text: "How was the trip?"},
		{Speaker: "Bo", DiaID: "D1:3", Text: "Great, thanks."},
		{Speaker: "Bo", DiaID: "D1:4", Text: "We hiked to the lake."},
		{Speaker: "Bo", DiaID: "D1:5", Text: "It was freezing!"},
		{Speaker: "Bo", DiaID: "D1:6", Text: "[shares image: a lake]"},
		{Speaker: "Ann", DiaID: "D1:7", Text: "nice"}}
	if !reflect.DeepEqual(turns, want) {
		t.Fatalf("messages %+v, want %+v", turns, want)
	}
	for i, ev := range []string{"[D1:4 D1:6]", "[D1:7]", "[D1:1 D1:2]"} {
		if got := fmt.Sprint(s.QA[i].Evidence); got != ev {
			t.Errorf("question %d: evidence %s, want %s", i, got, ev)
		}
	}
}

// Session dates in other datasets' forms are read as well as LoCoMo's own.
func TestDrawersReadOtherDateForms(t *testing.T) {
	conv := map[string]json.RawMessage{
		"session_1_date_time": json.RawMessage(`"1:56 pm on 8 May, 2023"`),
		"session_1":           json.RawMessage(`[{"speaker":"Ann","dia_id":"D1:1","text":"hi"}]`),
		"session_2_date_time": json.RawMessage(`"2024-03-02T09:15:00Z"`),
		"session_2":           json.RawMessage(`[{"speaker":"Ann","dia_id":"D2:1","text":"hi"},{"speaker":"Bo","dia_id":"D2:2","text":"yo"}]`),
		"session_3_date_time": json.RawMessage(`"March 3, 2024"`),
		"session_3":           json.RawMessage(`[{"speaker":"Bo","dia_id":"D3:1","text":"bye"}]`),
		// Turns with their own times, as a chat export's messages have.
		"session_4_date_time": json.RawMessage(`"March 4, 2024"`),
		"session_4": json.RawMessage(`[{"speaker":"Ann","dia_id":"D4:1","text":"up?","timestamp":"2024-03-04T23:50:00+01:00"},
			{"speaker":"Bo","dia_id":"D4:2","text":"now I am","created_at":1709600400000},
			{"speaker":"Ann","dia_id":"D4:3","text":"ok","time":"later"}]`),
		// Unix seconds written as a string.
		"session_5_date_time": json.RawMessage(`"1683554160"`),
		"session_5": json.RawMessage(`[{"speaker":"Bo","dia_id":"D5:1","text":"back"},
			{"speaker":"Ann","dia_id":"D5:2","text":"ok","create_time":1683554170.5},
			{"speaker":"Bo","dia_id":"D5:3","text":"so","date":"2023-05-08T13:57:00"},
			{"speaker":"Ann","dia_id":"D5:4","text":"yes","time":13}]`),
	}
	turnTimes(t, conv,
		time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC),
		time.Date(2024, 3, 2, 9, 15, 0, 0, time.UTC),
		time.Date(2024, 3, 2, 9, 15, 1, 0, time.UTC),
		time.Date(2024, 3, 3, 12, 0, 0, 0, time.UTC),
		time.Date(2024, 3, 4, 22, 50, 0, 0, time.UTC),
		time.Date(2024, 3, 5, 1, 0, 0, 0, time.UTC),
		time.Date(2024, 3, 4, 12, 0, 2, 0, time.UTC), // "later" is no time: the session's
		time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC),
		time.Date(2023, 5, 8, 13, 56, 10, 0, time.UTC), // ChatGPT's create_time
		time.Date(2023, 5, 8, 13, 57, 0, 0, time.UTC),  // Telegram's date
		time.Date(2023, 5, 8, 13, 56, 3, 0, time.UTC),  // 13 is no time: the session's
	)
}

// turnTimes reads conv's turns and checks their times against want, in
// order; it returns the turns.
func turnTimes(t *testing.T, conv map[string]json.RawMessage, want ...time.Time) []*palace.Drawer {
	t.Helper()
	ds, err := Drawers(conv)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != len(want) {
		t.Fatalf("%d turns, want %d", len(ds), len(want))
	}
	for i, d := range ds {
		if !d.Timestamp.Equal(want[i]) {
			t.Errorf("turn %s at %v, want %v", d.Meta["dia_id"], d.Timestamp, want[i])
		}
	}
	return ds
}

// Dates in the forms other datasets and chat exports write them are read,
// a numeric date's order taken from the conversation's other dates; one
// whose order nothing shows is left unread and counted, never guessed.
func TestDrawersReadNumericAndExportDates(t *testing.T) {
	conv := map[string]json.RawMessage{
		// LongMemEval's form: a parenthesised weekday inside the date.
		"session_1_date_time": json.RawMessage(`"2023/05/30 (Tue) 13:53"`),
		"session_1":           json.RawMessage(`[{"speaker":"user","dia_id":"D1:1","text":"hi"}]`),
		// Ambiguous alone; the 30th below shows the day comes first.
		"session_2_date_time": json.RawMessage(`"03/06/2023, 09:15"`),
		"session_2":           json.RawMessage(`[{"speaker":"user","dia_id":"D2:1","text":"hi"}]`),
		"session_3":           json.RawMessage(`[{"speaker":"user","dia_id":"D3:1","text":"yo","timestamp":"30.06.2023 21:04:05"},{"speaker":"user","dia_id":"D3:2","text":"ok","timestamp":"30/06/2023, 21:05"}]`),
	}
	ds := turnTimes(t, conv,
		time.Date(2023, 5, 30, 13, 53, 0, 0, time.UTC),
		time.Date(2023, 6, 3, 9, 15, 0, 0, time.UTC),
		time.Date(2023, 6, 30, 21, 4, 5, 0, time.UTC),
		time.Date(2023, 6, 30, 21, 5, 0, 0, time.UTC),
	)
	// The agent path writes a date as the file does, unless its header
	// alone could not say which day it is.
	for i, want := range []string{"(2023/05/30 (Tue) 13:53) user: hi", "(3 June, 2023) user: hi", "(30.06.2023 21:04:05) user: yo", "(30/06/2023, 21:05) user: ok"} {
		if got := agentText(ds[i], ds[i].Meta["date"].(string), false); got != want {
			t.Errorf("agent text %q, want %q", got, want)
		}
	}

	// Nothing shows the order: the dates stay unread, and are counted.
	delete(conv, "session_3")
	ds = turnTimes(t, conv, time.Date(2023, 5, 30, 13, 53, 0, 0, time.UTC), time.Time{})
	if n, example := unreadDates(ds); n != 1 || example != "03/06/2023, 09:15" {
		t.Errorf("unreadDates = %d %q", n, example)
	}
	if got := agentText(ds[1], ds[1].Meta["date"].(string), false); got != "(03/06/2023, 09:15) user: hi" {
		t.Errorf("agent text of an unread date %q", got)
	}

	// A run says so on its warnings, and goes on.
	file := t.TempDir() + "/chat.json"
	data, _ := json.Marshal(map[string]any{"name": "chat", "session_1_date_time": "03/06/2023, 09:15",
		"session_1": []map[string]string{{"speaker": "user", "dia_id": "D1:1", "text": "I adopted a greyhound"}},
		"qa":        []map[string]any{{"question": "Which dog did I adopt?", "category": 1, "evidence": []string{"D1:1"}}}})
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var warned []string
	rows, _, _, err := Run(context.Background(), Options{Data: []string{file}, Method: palace.ModeKeyword, Embedder: embed.Default(), Ks: []int{1},
		Warn: func(format string, a ...any) { warned = append(warned, fmt.Sprintf(format, a...)) }})
	if err != nil || len(rows) != 1 || rows[0].Top[0] != "D1:1" {
		t.Fatalf("run: %v, %+v", err, rows)
	}
	if want := `conversation 1: the dates of 1 turns were not read (such as "03/06/2023, 09:15")`; len(warned) != 1 || !strings.HasPrefix(warned[0], want) {
		t.Errorf("warnings %q, want one starting %q", warned, want)
	}
}

// A question the palace refuses (an empty one) is reported and left out,
// and so are questions whose evidence names no turn (ids written another
// way); the run asks the others, as it stores the turns it can.
func TestRunSkipsAQuestionThePalaceRefuses(t *testing.T) {
	file := t.TempDir() + "/chat.json"
	data, _ := json.Marshal(map[string]any{"name": "chat",
		"session_1": []map[string]string{{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a greyhound named Pixel"}},
		"qa": []map[string]any{
			{"question": "  ", "category": 1, "evidence": []string{"D1:1"}},
			{"question": "What is Ann's dog called?", "category": 1, "evidence": []string{"D1:1"}},
			{"question": "Which breed is Pixel?", "category": 1, "evidence": []string{"1:1"}}, // not a dia_id
		}})
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var warned []string
	rows, _, _, err := Run(context.Background(), Options{Data: []string{file}, Method: palace.ModeKeyword, Embedder: embed.Default(), Ks: []int{1},
		Variants: []Variant{{Method: palace.ModeKeyword}, {Method: palace.ModeHybrid}},
		Warn:     func(format string, a ...any) { warned = append(warned, fmt.Sprintf(format, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Question != "What is Ann's dog called?" || rows[1].Variant != 1 {
		t.Errorf("rows %+v, want the second question once for each variant", rows)
	}
	if len(warned) != 2 || warned[0] != `conversation 1: did not ask "  " (query is empty)` ||
		!strings.HasPrefix(warned[1], `conversation 1: 1 questions not asked: their evidence names no turn of the conversation (such as "1:1"`) {
		t.Errorf("warnings %q", warned)
	}
}

// DateForm writes every date of a conversation in another form, and the
// turns are read at the same times as before.
func TestDateForm(t *testing.T) {
	conv := map[string]json.RawMessage{
		"session_1_date_time": json.RawMessage(`"1:56 pm on 8 May, 2023"`),
		"session_1":           json.RawMessage(`[{"speaker":"Ann","dia_id":"D1:1","text":"hi"},{"speaker":"Bo","dia_id":"D1:2","text":"yo","timestamp":"2023-05-30T21:04:00Z"}]`),
		"session_2_date_time": json.RawMessage(`"sometime"`),
		"session_2":           json.RawMessage(`[{"speaker":"Ann","dia_id":"D2:1","text":"bye"}]`),
	}
	s := Sample{Conversation: conv}
	if err := DateForm(&s, "02/01/2006, 15:04"); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"session_1_date_time": `"08/05/2023, 13:56"`, "session_2_date_time": `"sometime"`} {
		if got := string(s.Conversation[key]); got != want { // a date not read is left as it is
			t.Errorf("%s written %s, want %s", key, got, want)
		}
	}
	if !strings.Contains(string(s.Conversation["session_1"]), `"timestamp":"30/05/2023, 21:04"`) {
		t.Errorf("turns written %s", s.Conversation["session_1"])
	}
	turnTimes(t, s.Conversation,
		time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC),
		time.Date(2023, 5, 30, 21, 4, 0, 0, time.UTC),
		time.Time{},
	)
}

// A file converted from another dataset may hold items of the wrong shape.
// Each costs only itself: a turn or a question that is not an object, or a
// session that is not a list, is left out and reported; a field of the
// wrong type (a number for a text, null for a speaker, a list of content
// parts as chat APIs write a message) is read as well as it can be.
func TestLoadLeavesOutWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	list, one := dir+"/list.json", dir+"/one.json"
	for path, data := range map[string]string{
		list: `[{"sample_id":7,"conversation":{
			"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a greyhound named Pixel"},
				"a line of the export",{"speaker":null,"dia_id":"D1:2","text":42},
				{"speaker":"Bo","dia_id":"D1:3","text":[{"type":"text","text":"Pixel is a greyhound?"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"cute"}]}],
			"session_2":{"speaker":"Bo"}},
			"qa":["what?",{"question":"What is Ann's dog called?","category":1,"evidence":["D1:1"]},{"question":42,"evidence":["D1:2"]}]}]`,
		one: `{"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"},[],{"role":"assistant","dia_id":"D1:3","content":"hello"}],"session_1_date":1683554160,
			"qa":[{"question":"hi?","evidence":["D1:1"]},null]}`,
	} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	samples, err := Load(list, one)
	if err != nil {
		t.Fatal(err)
	}
	a, b := samples[0], samples[1]
	if a.SampleID != "7" || len(a.QA) != 2 || a.QA[1].Question != "42" || len(b.QA) != 1 {
		t.Errorf("read %q with questions %+v, and %+v", a.SampleID, a.QA, b.QA)
	}
	wantDropped := [][]string{
		{"question 1: not an object", "session_1, turn 2: not an object", "session_2: not a list of turns"},
		{"question 2: not an object", "session_1, turn 2: not an object"},
	}
	for i, s := range samples {
		if len(s.Dropped) != len(wantDropped[i]) {
			t.Errorf("conversation %d dropped %q, want %q", i+1, s.Dropped, wantDropped[i])
			continue
		}
		for j, w := range wantDropped[i] {
			if s.Dropped[j] != w {
				t.Errorf("conversation %d dropped %q, want %q", i+1, s.Dropped, wantDropped[i])
			}
		}
	}
	ds, err := Drawers(a.Conversation)
	if err != nil || len(ds) != 3 || ds[1].Content != ": 42" || ds[2].Content != "Bo: Pixel is a greyhound?\ncute" {
		t.Fatalf("turns %v, %v", ds, err)
	}

	// Turns named as a chat API names them, in a session whose date has
	// another key and is a number.
	if ds, err := Drawers(b.Conversation); err != nil || len(ds) != 2 || ds[1].Content != "assistant: hello" ||
		!ds[0].Timestamp.Equal(time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)) {
		t.Errorf("a chat API's turns read as %v, %v", ds, err)
	}

	var warned []string
	rows, _, _, err := Run(context.Background(), Options{Data: []string{list, one}, Method: palace.ModeKeyword, Embedder: embed.Default(), Ks: []int{1},
		Warn: func(format string, a ...any) { warned = append(warned, fmt.Sprintf(format, a...)) }})
	if err != nil || len(rows) != 3 {
		t.Fatalf("run: %d questions asked, %v", len(rows), err)
	}
	if len(warned) != 5 || warned[0] != "conversation 1: left out question 1: not an object" {
		t.Errorf("warnings %q", warned)
	}

	// Many bad items are named up to a few, and counted.
	many := dir + "/many.json"
	if err := os.WriteFile(many, []byte(`{"session_1":[1,2,3,4,5,6,7,{"speaker":"Ann","dia_id":"D1:8","text":"hi"}],"qa":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	warned = nil
	if _, _, _, err := Run(context.Background(), Options{Data: []string{many}, Method: palace.ModeKeyword, Embedder: embed.Default(), Ks: []int{1},
		Warn: func(format string, a ...any) { warned = append(warned, fmt.Sprintf(format, a...)) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != maxWarnings+1 || warned[maxWarnings] != "conversation 1: left out 2 more items" {
		t.Errorf("warnings %q", warned)
	}

	// A conversation whose turns are not where LoCoMo keeps them is said
	// to have none.
	other := dir + "/other.json"
	if err := os.WriteFile(other, []byte(`{"name":"x","sessions":[[{"speaker":"Ann","text":"hi"}]],"qa":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	warned = nil
	if _, _, _, err := Run(context.Background(), Options{Data: []string{other}, Method: palace.ModeKeyword, Embedder: embed.Default(), Ks: []int{1},
		Warn: func(format string, a ...any) { warned = append(warned, fmt.Sprintf(format, a...)) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "conversation 1 (x) has no turns") {
		t.Errorf("warnings %q", warned)
	}
}

// Load reads every form the reference script (../shared/eval/locomo_bm25.py)
// reads: a list of conversations, or one conversation whose sessions and
// questions are at the top level (or one item of the list on its own); a turn's clean_text where it has no
// text; evidence as a run of turns ("D1:1-D1:3"), as one string, or none;
// a category written as a string. Run then asks the questions of every
// file given.
func TestLoadReadsTheReferenceScriptsForms(t *testing.T) {
	dir := t.TempDir()
	list := dir + "/list.json"
	one := dir + "/one.json"
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(list, `[{"sample_id":"a","conversation":{
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a greyhound named Pixel"}]},
		"qa":[{"question":"What is the name of Ann's dog?","category":1,"evidence":["D1:1"]}]}]`)
	write(one, "\ufeff"+`{"name":"chat-7",
		"session_1_date_time":"2024-03-02T09:15:00Z",
		"session_1":[{"speaker":"user","dia_id":"D1:1","clean_text":"our service runs on postgres 16"},
			{"speaker":"assistant","dia_id":"D1:2","text":"Noted: postgres 16."},
			{"speaker":"user","dia_id":"D1:03","text":"and deploys go out on fridays"}],
		"qa":[{"question":"Which database does the service run on?","category":"4","evidence":["D1:1-D1:3"]},
			{"question":"When do deploys go out?","category":"temporal","evidence":"D1:3"},
			{"question":"What colour is the logo?","category":5,"evidence":null},
			{"question":"Who wrote the tests?","category":"other","evidence":["D1:2; D9:9"]}]}`)
	numbered := dir + "/numbered.json"
	write(numbered, `{"name":7,"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"}],"qa":[]}`)
	unnamed := dir + "/unnamed.json"
	write(unnamed, `{"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"}]}`)
	if s, err := Load(numbered, unnamed); err != nil || len(s) != 2 || s[0].SampleID != "7" || s[1].SampleID != unnamed {
		t.Fatalf("a numbered and an unnamed conversation: %+v, %v", s, err)
	}
	// One item of LoCoMo's list, written on its own.
	item, itemUnnamed := dir+"/item.json", dir+"/item-unnamed.json"
	write(item, `{"sample_id":"b","conversation":{"speaker_a":"Ann",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a greyhound named Pixel"}]},
		"qa":[{"question":"What is the name of Ann's dog?","category":1,"evidence":["D1:1"]}]}`)
	write(itemUnnamed, `{"conversation":{"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"}]}}`)
	if s, err := Load(item, itemUnnamed); err != nil || len(s) != 2 || s[0].SampleID != "b" || len(s[0].QA) != 1 ||
		s[1].SampleID != itemUnnamed || len(s[0].Conversation) != 2 {
		t.Fatalf("one item of LoCoMo's list: %+v, %v", s, err)
	} else if ds, err := Drawers(s[0].Conversation); err != nil || len(ds) != 1 || ds[0].Content != "Ann: I adopted a greyhound named Pixel" {
		t.Fatalf("its turns: %v, %v", ds, err)
	}
	// JSON Lines: a conversation a line, in any form; one unnamed is
	// named by the file and its line.
	lines := dir + "/chats.jsonl"
	write(lines, `{"sample_id":"c","conversation":{"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"}]},"qa":[]}
{"session_1":[{"speaker":"Bo","dia_id":"D1:1","text":"hey"}],"qa":[]}
`)
	if s, err := Load(lines); err != nil || len(s) != 2 || s[0].SampleID != "c" || s[1].SampleID != lines+"#2" {
		t.Fatalf("JSON Lines: %+v, %v", s, err)
	}
	broken := dir + "/broken.jsonl"
	write(broken, `{"sample_id":"c","conversation":{},"qa":[]}
{"session_1":[`)
	if _, err := Load(broken); err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("a broken line: %v, want an error naming the file", err)
	}
	samples, err := Load(list, one)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 2 || samples[0].SampleID != "a" || samples[1].SampleID != "chat-7" {
		t.Fatalf("loaded %d conversations %+v", len(samples), samples)
	}
	qa := samples[1].QA
	var got []string
	for _, q := range qa {
		got = append(got, fmt.Sprintf("%d %v", q.Category, normEvidence(q.Evidence)))
	}
	want := []string{"4 [D1:1 D1:2 D1:3]", "2 [D1:3]", "5 []", "0 [D1:2 D9:9]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("questions read as %q, want %q", got, want)
	}
	ds, err := Drawers(samples[1].Conversation)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 3 || ds[0].Content != "user: our service runs on postgres 16" || ds[2].Meta["dia_id"] != "D1:3" {
		t.Errorf("turns read as %v / %v", ds[0].Content, ds[2].Meta["dia_id"])
	}

	rows, _, turns, err := Run(context.Background(), Options{
		Data: []string{list, one}, Method: palace.ModeKeyword, Embedder: embed.Default(), Ks: []int{3},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The question without evidence is not asked; D9:9, which no turn
	// has, is dropped from the last one's evidence.
	if turns != 4 || len(rows) != 4 {
		t.Fatalf("%d turns and %d questions, want 4 and 4", turns, len(rows))
	}
	if r := rows[1]; r.Sample != 2 || r.Category != 4 || fmt.Sprint(r.Gold) != "[D1:1 D1:2 D1:3]" || r.Top[0] != "D1:1" {
		t.Errorf("first question of the second file: %+v", r)
	}
	if r := rows[3]; fmt.Sprint(r.Gold) != "[D1:2]" {
		t.Errorf("last question's evidence %v, want [D1:2]", r.Gold)
	}
}

// A question is asked as of its conversation's last turn, so that a month
// without a year ("in June") names the June the conversation had, not
// one relative to the day the evaluation runs.
func TestQuestionsAreAskedAsOfTheConversationsEnd(t *testing.T) {
	months := []string{"January", "February", "March", "April", "May", "June",
		"July", "August", "September", "October", "November", "December"}
	conv := map[string]any{}
	for i, m := range months {
		n := i + 1
		conv[fmt.Sprintf("session_%d_date_time", n)] = fmt.Sprintf("1:00 pm on 5 %s, 2021", m)
		conv[fmt.Sprintf("session_%d", n)] = []map[string]string{
			{"speaker": "Ann", "dia_id": fmt.Sprintf("D%d:1", n), "text": fmt.Sprintf("Went hiking with my sister, walk number %d", n)},
			{"speaker": "Bo", "dia_id": fmt.Sprintf("D%d:2", n), "text": "Sounds lovely, say hi to her"},
		}
	}
	data, err := json.Marshal([]map[string]any{{"sample_id": "hikes", "conversation": conv,
		"qa": []map[string]any{{"question": "When did Ann go hiking in June?", "category": 2, "evidence": []string{"D6:1"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "hikes.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rows, _, _, err := Run(context.Background(), Options{Data: []string{file}, Method: palace.ModeHybrid, Embedder: embed.Default(), Ks: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || len(rows[0].Top) == 0 || rows[0].Top[0] != "D6:1" {
		t.Fatalf("asked about June 2021's hike, the first hit is %v", rows)
	}
}

// NoDates takes every date and time out of a conversation, its sessions'
// and its turns' own, and nothing else: the drawers carry no time (they
// get the time they are stored), an agent's text names no date, and the
// turns and questions stay as they were.
func TestNoDates(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1_date_time":"1:00 pm on 8 May, 2023",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I start at the clinic on Monday."},
			{"speaker":"Bo","dia_id":"D1:2","text":"Congrats!","blip_caption":"a cake"}],
		"session_2":[{"speaker":"Ann","dia_id":"D2:1","text":"First week done.","timestamp":"2023-05-20T10:00:00Z"}]},
		"qa":[{"question":"When did Ann start at the clinic?","category":2,"evidence":["D1:1"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	before, err := Drawers(s.Conversation)
	if err != nil {
		t.Fatal(err)
	}
	if before[0].Timestamp.IsZero() || before[2].Timestamp.IsZero() {
		t.Fatalf("the data's own times were not read: %v, %v", before[0].Timestamp, before[2].Timestamp)
	}
	if err := NoDates(&s); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Conversation["session_1_date_time"]; ok {
		t.Error("the session's date is still there")
	}
	after, err := Drawers(s.Conversation)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("%d drawers, want %d", len(after), len(before))
	}
	for i, d := range after {
		if !d.Timestamp.IsZero() || d.Meta["date"] != "" || d.Content != before[i].Content ||
			d.Meta["dia_id"] != before[i].Meta["dia_id"] || d.SessionID != before[i].SessionID {
			t.Errorf("drawer %d: %v %q %q %v, want %q without a time", i, d.Timestamp, d.Meta["date"], d.Content, d.Meta["dia_id"], before[i].Content)
		}
	}
	if got := agentText(after[0], "", true); got != "[D1:1] Ann: I start at the clinic on Monday." {
		t.Errorf("agent text %q", got)
	}
	if got := agentText(after[0], "", false); got != "Ann: I start at the clinic on Monday." {
		t.Errorf("agent text without its id %q", got)
	}
	if s.QA[0].Question != "When did Ann start at the clinic?" || fmt.Sprint(s.QA[0].Evidence) != "[D1:1]" {
		t.Errorf("question changed: %+v", s.QA[0])
	}
}

// OneThread makes a conversation one session whose turns carry their
// sessions' dates, in order, with their ids; NoDates after it leaves the
// thread without times.
func TestOneThread(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_2_date_time":"9:00 am on 20 May, 2023",
		"session_2":[{"speaker":"Ann","dia_id":"D2:1","text":"First week done."}],
		"session_1_date_time":"1:00 pm on 8 May, 2023",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I start at the clinic on Monday."},
			{"speaker":"Bo","dia_id":"D1:2","text":"Congrats!"}]},
		"qa":[{"question":"When did Ann start at the clinic?","category":2,"evidence":["D1:1"]}]}`
	thread := func() Sample {
		var s Sample
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if err := OneThread(&s); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"session_2", "session_1_date_time", "session_2_date_time"} {
			if _, ok := s.Conversation[k]; ok {
				t.Errorf("%s is still there", k)
			}
		}
		return s
	}
	s := thread()
	ds, err := Drawers(s.Conversation)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, day string }{{"D1:1", "2023-05-08"}, {"D1:2", "2023-05-08"}, {"D2:1", "2023-05-20"}}
	if len(ds) != len(want) {
		t.Fatalf("%d drawers, want %d", len(ds), len(want))
	}
	for i, w := range want {
		d := ds[i]
		if d.Meta["dia_id"] != w.id || d.SessionID != "session_1" || d.Timestamp.Format("2006-01-02") != w.day {
			t.Errorf("drawer %d: %v in %s at %v, want %s in session_1 on %s", i, d.Meta["dia_id"], d.SessionID, d.Timestamp, w.id, w.day)
		}
	}
	if s.QA[0].Question != "When did Ann start at the clinic?" || fmt.Sprint(s.QA[0].Evidence) != "[D1:1]" {
		t.Errorf("question changed: %+v", s.QA[0])
	}
	s = thread()
	if err := NoDates(&s); err != nil {
		t.Fatal(err)
	}
	if ds, err = Drawers(s.Conversation); err != nil || len(ds) != 3 {
		t.Fatalf("one thread without dates: %d drawers (%v), want 3", len(ds), err)
	}
	for i, d := range ds {
		if !d.Timestamp.IsZero() {
			t.Errorf("one thread without dates: drawer %d at %v", i, d.Timestamp)
		}
	}
}

// ChatRoles makes the first speaker the user and the second the
// assistant, and puts every question in their voice.
func TestChatRoles(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1_date_time":"1:00 pm on 8 May, 2023",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"Hi Bo! I start at the clinic on Monday."},
			{"speaker":"Bo","dia_id":"D1:2","text":"Congrats Ann! I'm off to Lisbon."}]},
		"qa":[{"question":"When did Ann start at the clinic?","category":2,"evidence":["D1:1"]},
			{"question":"Where is Ann's job, and who congratulated Ann?","category":4,"evidence":["D1:1","D1:2"]},
			{"question":"What are Bo and Ann's plans?","category":1,"evidence":["D1:2"]},
			{"question":"Did Annabel go to Lisbon?","category":5,"evidence":["D1:2"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := ChatRoles(&s); err != nil {
		t.Fatal(err)
	}
	var turns []Turn
	if err := json.Unmarshal(s.Conversation["session_1"], &turns); err != nil {
		t.Fatal(err)
	}
	if turns[0].Speaker != RoleUser || turns[1].Speaker != RoleAssistant || turns[0].Text != "Hi Bo! I start at the clinic on Monday." {
		t.Errorf("turns %+v", turns)
	}
	want := []string{"When did I start at the clinic?", "Where is my job, and who congratulated me?",
		"What are you and my plans?", "Did Annabel go to Lisbon?"}
	for i, w := range want {
		if got := s.QA[i].Question; got != w {
			t.Errorf("question %d: %q, want %q", i, got, w)
		}
	}
	if fmt.Sprint(s.QA[1].Evidence) != "[D1:1 D1:2]" {
		t.Errorf("evidence changed: %v", s.QA[1].Evidence)
	}
	ds, err := Drawers(s.Conversation)
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].Content != "user: Hi Bo! I start at the clinic on Monday." || ds[1].SenderIDs[0] != RoleAssistant {
		t.Errorf("drawers %q %v", ds[0].Content, ds[1].SenderIDs)
	}
	one := Sample{Conversation: map[string]json.RawMessage{"speaker_a": json.RawMessage(`"Ann"`)}}
	if err := ChatRoles(&one); err == nil {
		t.Error("a conversation with one named speaker was rewritten")
	}
}

// EchoReplies opens every turn of the second speaker with the first
// speaker's last n turns of the same session, oldest first, and changes
// neither the turns' ids nor the evidence.
func TestEchoReplies(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1_date_time":"1:00 pm on 8 May, 2023",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"},
			{"speaker":"Bo","dia_id":"D1:2","text":"hello"},
			{"speaker":"Ann","dia_id":"D1:3","text":"how was the trip?"},
			{"speaker":"Bo","dia_id":"D1:4","text":"great","blip_caption":"a lake"}],
		"session_2_date_time":"1:00 pm on 9 May, 2023",
		"session_2":[{"speaker":"Bo","dia_id":"D2:1","text":"back home"},
			{"speaker":"Ann","dia_id":"D2:2","text":"welcome"},
			{"speaker":"Bo","dia_id":"D2:3","text":"thanks"}]},
		"qa":[{"question":"q","category":4,"evidence":["D1:3"]}]}`
	for _, tc := range []struct {
		n        int
		d14, d23 string
	}{
		{1, "how was the trip?\n\ngreat", "welcome\n\nthanks"},
		{2, "hi\n\nhow was the trip?\n\ngreat", "welcome\n\nthanks"},
	} {
		var s Sample
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if err := EchoReplies(&s, tc.n, false); err != nil {
			t.Fatal(err)
		}
		turns := sessionTurns(t, &s)
		one, two := turns["session_1"], turns["session_2"]
		want1 := []Turn{{Speaker: "Ann", DiaID: "D1:1", Text: "hi"},
			{Speaker: "Bo", DiaID: "D1:2", Text: "hi\n\nhello"},
			{Speaker: "Ann", DiaID: "D1:3", Text: "how was the trip?"},
			{Speaker: "Bo", DiaID: "D1:4", Text: tc.d14, BlipCaption: "a lake"}}
		want2 := []Turn{{Speaker: "Bo", DiaID: "D2:1", Text: "back home"}, // nothing said before it in its session
			{Speaker: "Ann", DiaID: "D2:2", Text: "welcome"},
			{Speaker: "Bo", DiaID: "D2:3", Text: tc.d23}}
		if !reflect.DeepEqual(one, want1) || !reflect.DeepEqual(two, want2) {
			t.Fatalf("n=%d: turns %+v %+v, want %+v %+v", tc.n, one, two, want1, want2)
		}
		if got := fmt.Sprint(s.QA[0].Evidence); got != "[D1:3]" {
			t.Fatalf("n=%d: evidence %s, want [D1:3]", tc.n, got)
		}
	}
}

// A reply of the second speaker opens with what it says, goes on with the
// texts of other sessions that share the most words with the first
// speaker's last turn (no question's evidence among them, the speakers'
// names not counted), and closes with what it asks; turns and evidence are
// otherwise unchanged.
func TestTopicReplies(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1_date_time":"1:00 pm on 8 May, 2023",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"Bo, we adopted a puppy from the shelter!"},
			{"speaker":"Bo","dia_id":"D1:2","text":"Wonderful news. What breed is it?"}],
		"session_2_date_time":"1:00 pm on 9 May, 2023",
		"session_2":[{"speaker":"Bo","dia_id":"D2:1","text":"The shelter near me needs volunteers to walk a puppy or two."},
			{"speaker":"Ann","dia_id":"D2:2","text":"Ann here: the shelter puppy chewed my shoes."},
			{"speaker":"Bo","dia_id":"D2:3","text":"Ann, Bo, Ann."},
			{"speaker":"Ann","dia_id":"D2:4","text":"I painted a lake."}]},
		"qa":[{"question":"What did the puppy chew?","category":4,"evidence":["D2:2"]}]}`
	for _, tc := range []struct {
		n    int
		want string
	}{
		{1, "Wonderful news.\n\nThe shelter near me needs volunteers to walk a puppy or two.\n\nWhat breed is it?"},
		{5, "Wonderful news.\n\nThe shelter near me needs volunteers to walk a puppy or two.\n\nWhat breed is it?"},
	} {
		var s Sample
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if err := TopicReplies(&s, tc.n); err != nil {
			t.Fatal(err)
		}
		turns := sessionTurns(t, &s)
		one, two := turns["session_1"], turns["session_2"]
		// D2:2 shares the most words but is evidence; D2:3 shares only
		// names; D2:4 shares nothing.
		if one[1].Text != tc.want {
			t.Errorf("n=%d: the reply is %q, want %q", tc.n, one[1].Text, tc.want)
		}
		if one[0].Text != "Bo, we adopted a puppy from the shelter!" {
			t.Errorf("n=%d: the first speaker's turn changed: %q", tc.n, one[0].Text)
		}
		// D2:3 answers D2:2 ("the shelter puppy chewed my shoes"); the only
		// other session's text sharing a word with it is D1:1 ("shelter",
		// "puppy"), and D1:2 shares none.
		if want := "Ann, Bo, Ann.\n\nBo, we adopted a puppy from the shelter!"; two[1].Text != "Ann here: the shelter puppy chewed my shoes." || two[2].Text != want {
			t.Errorf("n=%d: session 2 is %+v, want D2:3 %q", tc.n, two, want)
		}
		if two[0].Text != "The shelter near me needs volunteers to walk a puppy or two." {
			t.Errorf("n=%d: a reply with nothing said before it in its session changed: %q", tc.n, two[0].Text)
		}
		if got := fmt.Sprint(s.QA[0].Evidence); got != "[D2:2]" {
			t.Errorf("n=%d: evidence %s, want [D2:2]", tc.n, got)
		}
	}
}

// writeSamples writes the selected conversations, as they stand, in a
// form Load reads back unchanged.
func TestWriteSamplesRoundTrips(t *testing.T) {
	raw := `[{"sample_id":"a","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"}]},
		"qa":[{"question":"q","category":4,"evidence":["D1:1"],"answer":"x"}]},
		{"sample_id":"b","conversation":{"speaker_a":"Cy","speaker_b":"Di",
		"session_1":[{"speaker":"Cy","dia_id":"D1:1","text":"yo"}]},
		"qa":[{"question":"r","category":"single-hop","evidence":"D1:1","answer":"y"}]}]`
	in := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(in, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	samples, err := Load(in)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.json")
	if err := writeSamples(out, samples, map[int]bool{2: true}); err != nil {
		t.Fatal(err)
	}
	back, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || !reflect.DeepEqual(back[0], samples[1]) {
		t.Fatalf("read back %+v, want only %+v", back, samples[1])
	}
}

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

// Reworded restates a text in other words: "You mentioned that" before
// every sentence, first person made second, every third word left out and
// every fourth kept, of four letters or more, made vague.
func TestReworded(t *testing.T) {
	got := Reworded("I went to a support group yesterday and it was powerful. My sister came too!")
	want := "You mentioned that you went a thing yesterday and was stuff. You mentioned that your sister too!"
	if got != want {
		t.Errorf("Reworded = %q\nwant       %q", got, want)
	}
}

// Typos misspells words of three letters or more by one edit after their
// first letter, the same way every run, and leaves the questions alone.
func TestTypos(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"We went hiking in Yosemite, at 6 am."},
			{"speaker":"Bo","dia_id":"D1:2","text":"Sounds wonderful!"}]},
		"qa":[{"question":"Where did Ann go hiking?","category":4,"evidence":["D1:1"]}]}`
	rewrite := func(rate float64) []Turn {
		var s Sample
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if err := Typos(&s, rate); err != nil {
			t.Fatal(err)
		}
		if s.QA[0].Question != "Where did Ann go hiking?" {
			t.Fatalf("question rewritten: %q", s.QA[0].Question)
		}
		return sessionTurns(t, &s)["session_1"]
	}
	if got := rewrite(0); got[0].Text != "We went hiking in Yosemite, at 6 am." || got[1].Text != "Sounds wonderful!" {
		t.Errorf("rate 0 changed the text: %+v", got)
	}
	all := rewrite(1)
	if again := rewrite(1); !reflect.DeepEqual(all, again) {
		t.Errorf("two runs differ: %+v and %+v", all, again)
	}
	orig := strings.Fields("We went hiking in Yosemite, at 6 am. Sounds wonderful!")
	got := strings.Fields(all[0].Text + " " + all[1].Text)
	if len(got) != len(orig) {
		t.Fatalf("words %q, want as many as %q", got, orig)
	}
	for i, w := range orig {
		core := strings.TrimRight(w, ",.!")
		switch {
		case len(core) < 3 && got[i] != w:
			t.Errorf("short word %q became %q", w, got[i])
		case len(core) >= 3 && (got[i] == w || got[i][0] != w[0]):
			t.Errorf("word %q became %q: want one edit after its first letter", w, got[i])
		}
	}
}

// Pastes ends every other session with a piece of a file, cut at line
// starts, the same every run, and leaves the other turns, the questions
// and the evidence alone.
func TestPastes(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I moved the API to Go."},
			{"speaker":"Bo","dia_id":"D1:2","text":"Nice!"},{"speaker":"Bo","dia_id":"D1:3","text":"How did it go?"}],
		"session_2":[{"speaker":"Ann","dia_id":"D2:1","text":"Tests pass now."}],
		"session_3":[{"speaker":"Ann","dia_id":"D3:1","text":"Alone today."}]},
		"qa":[{"question":"What language is the API in?","category":4,"evidence":["D1:1"]}]}`
	var lines []string
	for i := 0; len(strings.Join(lines, "")) < 250_000; i++ {
		lines = append(lines, fmt.Sprintf("line %d of a log that someone pasted\n", i))
	}
	files := [][]byte{[]byte(strings.Join(lines, ""))}
	rewrite := func() map[string][]Turn {
		var s Sample
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if err := Pastes(&s, files, false); err != nil {
			t.Fatal(err)
		}
		if s.QA[0].Question != "What language is the API in?" || fmt.Sprint(s.QA[0].Evidence) != "[D1:1]" {
			t.Fatalf("question or evidence rewritten: %+v", s.QA[0])
		}
		return sessionTurns(t, &s)
	}
	got := rewrite()
	if again := rewrite(); !reflect.DeepEqual(got, again) {
		t.Error("two runs differ")
	}
	if len(got["session_2"]) != 1 || got["session_2"][0].Text != "Tests pass now." {
		t.Errorf("the second session changed: %+v", got["session_2"])
	}
	for _, c := range []struct {
		session, id, who string
		n                int
	}{{"session_1", "D1:4", "Ann", 4}, {"session_3", "D3:2", "Ann", 2}} {
		turns := got[c.session]
		if len(turns) != c.n {
			t.Fatalf("%s: %d turns, want %d", c.session, len(turns), c.n)
		}
		p := turns[len(turns)-1]
		body, ok := strings.CutPrefix(p.Text, pasteLead)
		if !ok || p.DiaID != c.id || p.Speaker != c.who {
			t.Fatalf("%s: last turn %s by %s, %.60q", c.session, p.DiaID, p.Speaker, p.Text)
		}
		if len(body) < 2000 || len(body) > 100_000 || !strings.HasPrefix(body, "line ") || !strings.HasSuffix(body, "pasted\n") {
			t.Errorf("%s: a piece of %d bytes from %.20q to %q: want whole lines of one of the sizes", c.session, len(body), body, body[max(0, len(body)-20):])
		}
	}
	if turns := got["session_1"]; turns[0].Text != "I moved the API to Go." || turns[2].Text != "How did it go?" {
		t.Errorf("the first session's turns changed: %+v", turns[:3])
	}
}

// With inTurn the piece follows one of the first speaker's turns of every
// other session, and the turns, the questions and the evidence stay.
func TestPastesInTurn(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I moved the API to Go."},
			{"speaker":"Bo","dia_id":"D1:2","text":"Nice!"}],
		"session_2":[{"speaker":"Ann","dia_id":"D2:1","text":"Tests pass now."}],
		"session_3":[{"speaker":"Bo","dia_id":"D3:1","text":"Only me today."}]},
		"qa":[{"question":"What language is the API in?","category":4,"evidence":["D1:1"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := Pastes(&s, [][]byte{[]byte(strings.Repeat("GET /health 200 in 3ms\n", 2000))}, true); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.QA[0].Evidence) != "[D1:1]" {
		t.Fatalf("evidence rewritten: %+v", s.QA[0])
	}
	turns := sessionTurns(t, &s)
	one := turns["session_1"]
	if len(one) != 2 || !strings.HasPrefix(one[0].Text, "I moved the API to Go.\n\n"+pasteLead+"GET /health") || one[1].Text != "Nice!" {
		t.Errorf("session 1: %d turns, %.80q, %q", len(one), one[0].Text, one[1].Text)
	}
	if len(turns["session_2"]) != 1 || turns["session_2"][0].Text != "Tests pass now." {
		t.Errorf("the second session changed: %+v", turns["session_2"])
	}
	if three := turns["session_3"]; len(three) != 1 || three[0].Text != "Only me today." {
		t.Errorf("a session without the first speaker changed: %+v", three)
	}
}

// sessionTurns decodes every session of s, by its key ("session_1").
func sessionTurns(t *testing.T, s *Sample) map[string][]Turn {
	t.Helper()
	out := map[string][]Turn{}
	for k, raw := range s.Conversation {
		if !sessKeyR.MatchString(k) {
			continue
		}
		var turns []Turn
		if err := json.Unmarshal(raw, &turns); err != nil {
			t.Fatal(err)
		}
		out[k] = turns
	}
	return out
}

// QuestionTypos misspells the questions and leaves the turns alone.
func TestQuestionTypos(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"We went hiking in Yosemite."}]},
		"qa":[{"question":"Where did Ann go hiking?","category":4,"evidence":["D1:1"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := QuestionTypos(&s, 1); err != nil {
		t.Fatal(err)
	}
	if turns := sessionTurns(t, &s)["session_1"]; turns[0].Text != "We went hiking in Yosemite." {
		t.Errorf("turn rewritten: %q", turns[0].Text)
	}
	got, orig := strings.Fields(s.QA[0].Question), strings.Fields("Where did Ann go hiking?")
	if len(got) != len(orig) {
		t.Fatalf("question %q", s.QA[0].Question)
	}
	for i, w := range orig {
		if len(strings.TrimRight(w, "?")) >= 3 && (got[i] == w || got[i][0] != w[0]) {
			t.Errorf("word %q became %q: want one edit after its first letter", w, got[i])
		}
	}
}

// SlowReplies gives each turn a time of its own: a speaker's next turn 40
// seconds on, a reply minutes on, and with share 1 every reply hours on;
// texts, evidence and the turns' other fields stay, and a session with no
// date gets no times.
func TestSlowReplies(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1_date_time":"9:00 pm on 8 May, 2023",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"How was the trip?"},
			{"speaker":"Ann","dia_id":"D1:2","text":"Norway, right?"},
			{"speaker":"Bo","dia_id":"D1:3","text":"Amazing, we saw the fjords","blip_caption":"a fjord"}],
		"session_2":[{"speaker":"Ann","dia_id":"D2:1","text":"hi"},{"speaker":"Bo","dia_id":"D2:2","text":"yo"}]},
		"qa":[{"question":"Where did Bo travel?","category":4,"evidence":["D1:3"]}]}`
	times := func(share float64) []time.Time {
		t.Helper()
		var s Sample
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if err := SlowReplies(&s, share); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(s.Conversation["session_1"]), `"blip_caption":"a fjord"`) ||
			!strings.Contains(string(s.Conversation["session_1"]), `"text":"Amazing, we saw the fjords"`) {
			t.Fatalf("a turn lost a field: %s", s.Conversation["session_1"])
		}
		if strings.Contains(string(s.Conversation["session_2"]), "timestamp") {
			t.Errorf("a session with no date got times: %s", s.Conversation["session_2"])
		}
		ds, err := Drawers(s.Conversation)
		if err != nil {
			t.Fatal(err)
		}
		var out []time.Time
		for _, d := range ds[:3] {
			out = append(out, d.Timestamp)
		}
		return out
	}
	start := time.Date(2023, 5, 8, 21, 0, 0, 0, time.UTC)
	for _, share := range []float64{0, 1} {
		got := times(share)
		if !got[0].Equal(start) || got[1].Sub(got[0]) != 40*time.Second {
			t.Errorf("share %g: the first turns at %v and %v, want %v and 40 s later", share, got[0], got[1], start)
		}
		reply := got[2].Sub(got[1])
		if slow := reply >= 45*time.Minute; slow != (share == 1) || reply < time.Minute || reply > 10*time.Hour {
			t.Errorf("share %g: the reply came %v later", share, reply)
		}
	}
}

func TestHaystack(t *testing.T) {
	raw := `[{"sample_id":"a","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1_date_time":"9:00 am on 1 May, 2023","session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I moved to Oslo"}],
		"session_2_date_time":"9:00 am on 1 June, 2023","session_2":[{"speaker":"Bo","dia_id":"D2:1","text":"Welcome home"}]},
		"qa":[{"question":"Where did Ann move?","category":4,"evidence":["D1:1"]}]},
	{"sample_id":"b","conversation":{"speaker_a":"Cy","speaker_b":"Di",
		"session_1_date_time":"1:00 pm on 1 January, 2020","session_1":[{"speaker":"Cy","dia_id":"D1:1","text":"Di, meet Cyrus","timestamp":"2020-01-01T13:00:00Z"}],
		"session_2_date_time":"1:00 pm on 1 March, 2020","session_2":[{"speaker":"Di","dia_id":"D2:1","text":"Cy and Di went sailing"}],
		"session_3_date_time":"1:00 pm on 1 May, 2020","session_3":[{"speaker":"Di","dia_id":"D3:1","text":"Bye"}]},
		"qa":[{"question":"What did Cy and Di do?","category":4,"evidence":["D2:1"]}]}]`
	load := func() []Sample {
		var ss []Sample
		if err := json.Unmarshal([]byte(raw), &ss); err != nil {
			t.Fatal(err)
		}
		return ss
	}
	ss := load()
	if err := Haystack(ss, 1); err != nil {
		t.Fatal(err)
	}
	type turn struct{ when, speaker, id, text string }
	turns := func(s Sample) []turn {
		t.Helper()
		var out []turn
		for _, n := range sessionNumbers(s.Conversation) {
			key := fmt.Sprintf("session_%d", n)
			var date string
			json.Unmarshal(s.Conversation[key+"_date_time"], &date)
			var ts []map[string]any
			if err := json.Unmarshal(s.Conversation[key], &ts); err != nil {
				t.Fatal(err)
			}
			for _, tr := range ts {
				if _, ok := tr["timestamp"]; ok && strings.HasPrefix(tr["dia_id"].(string), "D10") {
					t.Errorf("a borrowed turn kept its own time: %v", tr)
				}
				out = append(out, turn{date, tr["speaker"].(string), tr["dia_id"].(string), tr["text"].(string)})
			}
		}
		return out
	}
	// b's span (January to May 2020) is moved onto a's (May to June
	// 2023): its sessions fall on a's first day, 60/121 of the way to its
	// last, and on its last, after a's own session of that day.
	want := []turn{
		{"9:00 am on 1 May, 2023", "Ann", "D1:1", "I moved to Oslo"},
		{"9:00 am on 1 May, 2023", "Ann", "D101:1", "Bo, meet Cyrus"},
		{"5:56 pm on 16 May, 2023", "Bo", "D102:1", "Ann and Bo went sailing"},
		{"9:00 am on 1 June, 2023", "Bo", "D2:1", "Welcome home"},
		{"9:00 am on 1 June, 2023", "Bo", "D103:1", "Bye"},
	}
	if got := turns(ss[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("conversation a with b's sessions:\n got %v\nwant %v", got, want)
	}
	// b borrows a as a was in the file, not a with b's sessions.
	if got := turns(ss[1]); len(got) != 5 || got[0].speaker != "Cy" || got[0].text != "Di, meet Cyrus" {
		t.Errorf("conversation b with a's sessions: %v", got)
	}
	if len(ss[0].QA) != 1 || ss[0].QA[0].Question != "Where did Ann move?" || len(ss[1].QA) != 1 {
		t.Errorf("the questions changed: %+v, %+v", ss[0].QA, ss[1].QA)
	}
	if ds, err := Drawers(ss[0].Conversation); err != nil || len(ds) != 5 {
		t.Errorf("Drawers: %d, %v", len(ds), err)
	}
	ss = load()
	if err := Haystack(ss, 2); err == nil || !strings.Contains(err.Error(), "the file has 2") {
		t.Errorf("two borrowed from a file of two: %v", err)
	}
	if err := Haystack(ss, 0); err != nil || len(turns(ss[0])) != 2 {
		t.Errorf("no haystack changed the data: %v", err)
	}
}

// The hook path saves a prompt and the reply to it as one drawer, as the
// Stop hook does: the user's run of turns, then the other speaker's, the
// names left out, one exchange at a time within each session.
func TestIngestExchanges(t *testing.T) {
	conv := map[string]json.RawMessage{}
	conv["session_1"], _ = json.Marshal([]Turn{
		{Speaker: "assistant", DiaID: "D1:1", Text: "Welcome back."},
		{Speaker: "user", DiaID: "D1:2", Text: "I adopted a greyhound."},
		{Speaker: "user", DiaID: "D1:3", Text: "Her name is Pixel."},
		{Speaker: "assistant", DiaID: "D1:4", Text: "Lovely name!"},
		{Speaker: "user", DiaID: "D1:5", Text: "What should she eat?"},
		{Speaker: "assistant", DiaID: "D1:6", Text: "Ask your vet."},
		{Speaker: "assistant", DiaID: "D1:7", Text: "Greyhounds need lean food."},
	})
	conv["session_2"], _ = json.Marshal([]Turn{{Speaker: "user", DiaID: "D2:1", Text: "Pixel loves the beach."}})
	// A prompt with no words (in a file, a turn that was only a picture, or
	// blank) is no message in the session buffer, and the run goes on.
	conv["session_3"], _ = json.Marshal([]Turn{{Speaker: "user", DiaID: "D3:1", Text: " "}, {Speaker: "assistant", DiaID: "D3:2", Text: "Nice photo."}})
	ds, err := Drawers(conv)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir(), Embedder: embed.Default(), Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	ctx := context.Background()
	p, err := reg.Create(ctx, "hook", "")
	if err != nil {
		t.Fatal(err)
	}
	kept, skipped, err := ingestExchanges(ctx, p, ds, 1, "user")
	if err != nil || len(skipped) > 0 || len(kept) != 10 {
		t.Fatalf("stored %d turns, skipped %v: %v", len(kept), skipped, err)
	}
	var got []string // each drawer's text, with the turns it holds
	for i, d := range kept {
		if i > 0 && kept[i-1].ID == d.ID {
			got[len(got)-1] += " " + d.Meta["dia_id"].(string)
			continue
		}
		stored, err := p.Get(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if stored.Kind != palace.KindTurn || len(stored.SenderIDs) != 0 || stored.SessionID != "conv-1-session_"+d.Meta["dia_id"].(string)[1:2] {
			t.Errorf("drawer %q: kind %s, senders %v, session %s", stored.Content, stored.Kind, stored.SenderIDs, stored.SessionID)
		}
		got = append(got, stored.Content+" | "+d.Meta["dia_id"].(string))
	}
	want := []string{
		"User: \n\nAssistant: Welcome back. | D1:1",
		"User: I adopted a greyhound.\nHer name is Pixel.\n\nAssistant: Lovely name! | D1:2 D1:3 D1:4",
		"User: What should she eat?\n\nAssistant: Ask your vet.\n\nGreyhounds need lean food. | D1:5 D1:6 D1:7",
		"User: Pixel loves the beach. | D2:1",
		"User:  \n\nAssistant: Nice photo. | D3:1 D3:2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exchanges:\n got %q\nwant %q", got, want)
	}
}

// The observations of a file are read in session order (session_10 after
// session_2), a speaker's in the order written, each with its evidence
// normalised; an item that is no sentence with evidence, or a session or
// a speaker that holds no list of them, is left out, and the rest is read.
func TestReadObservations(t *testing.T) {
	raw := `{"session_10_observation": {"Bo": [["Bo moved to Oslo.", "D10:2"]]},
		"session_2_observation": {"Bo": [["Bo plays chess.", ["D2:1", "D2:03"]], ["no evidence", "none"], ["", "D2:1"], "not a pair"],
			"Ann": [["Ann paints.", "D2:4; D2:5"]], "Cy": "not a list"},
		"session_x": "not a map"}`
	got := readObservations(json.RawMessage(raw))
	want := []Observation{
		{"Ann paints.", []string{"D2:4", "D2:5"}},
		{"Bo plays chess.", []string{"D2:1", "D2:3"}},
		{"Bo moved to Oslo.", []string{"D10:2"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v\nwant %+v", got, want)
	}
}

// The facts path stores a conversation's observations as facts through the
// remember tool's path and asks as the recall tool does: a fact found
// counts for the turns it cites, and a fact observed twice is stored once
// and counts for the turns of both observations.
func TestFactsPath(t *testing.T) {
	raw := `[{"sample_id":"f","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1_date_time":"1:00 pm on 8 May, 2023",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a puppy last week, his name is Biscuit"},
			{"speaker":"Bo","dia_id":"D1:2","text":"Biscuit! What a cute name for a puppy"},
			{"speaker":"Ann","dia_id":"D1:3","text":"And my sister just moved to Lisbon for work"}]},
		"observation":{"session_1_observation":{"Ann":[["Ann adopted a puppy named Biscuit.","D1:1"],
			["Ann's sister moved to Lisbon for work.","D1:3"]],
			"Bo":[["Ann adopted a puppy named Biscuit.","D1:2"]]}},
		"qa":[{"question":"What is the name of Ann's puppy?","category":4,"evidence":["D1:1"]},
			{"question":"Which city did Ann's sister move to?","category":4,"evidence":["D1:3"]},
			{"question":"What did Bo think of the puppy's name?","category":4,"evidence":["D1:2"]}]}]`
	file := filepath.Join(t.TempDir(), "facts.json")
	if err := os.WriteFile(file, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, _, _, err := Run(context.Background(), Options{Data: []string{file}, Path: PathFacts, Method: palace.ModeHybrid, Embedder: embed.Default(), Ks: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d questions asked, want 3", len(rows))
	}
	first := func(i int) []string {
		if len(rows[i].Top) == 0 {
			t.Fatalf("%q: no fact recalled", rows[i].Question)
		}
		return rows[i].Top
	}
	if got := first(0); !reflect.DeepEqual(got, []string{"D1:1", "D1:2"}) {
		t.Errorf("%q: the first fact cites %v, want the puppy's fact, which cites D1:1 and (observed again) D1:2", rows[0].Question, got)
	}
	if got := first(1); got[0] != "D1:3" {
		t.Errorf("%q: the first fact cites %v, want D1:3", rows[1].Question, got)
	}
	if got := first(2); !slices.Contains(got, "D1:2") {
		t.Errorf("%q: the first fact cites %v, want the puppy's fact with D1:2", rows[2].Question, got)
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

func TestCasualTyping(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"We went hiking in Yosemite, at 6 am. It's 3.5 km… I can't wait!!"},
			{"speaker":"Bo","dia_id":"D1:2","text":"Wait... really?! Did you go?"}]},
		"qa":[{"question":"Where did Ann go hiking?","category":4,"evidence":["D1:1"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := CasualTyping(&s); err != nil {
		t.Fatal(err)
	}
	got := sessionTurns(t, &s)["session_1"]
	for i, want := range []string{"we went hiking in yosemite, at 6 am its 3.5 km i cant wait", "wait really did you go"} {
		if got[i].Text != want {
			t.Errorf("turn %d typed %q, want %q", i+1, got[i].Text, want)
		}
	}
	if s.QA[0].Question != "Where did Ann go hiking?" || !reflect.DeepEqual(normEvidence(s.QA[0].Evidence), []string{"D1:1"}) {
		t.Errorf("question or evidence rewritten: %+v", s.QA[0])
	}
}

func TestEmojiWords(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"Our Dog ate the birthday cake, then we flew to Japan."},
			{"speaker":"Bo","dia_id":"D1:2","text":"A turkey in Turkey? Wow."}]},
		"qa":[{"question":"What did Ann's dog eat?","category":4,"evidence":["D1:1"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := EmojiWords(&s, 1); err != nil {
		t.Fatal(err)
	}
	got := sessionTurns(t, &s)["session_1"]
	// Two words an emoji names go together; a country only where it is
	// written as a name.
	for i, want := range []string{"Our 🐕 ate the 🎂, then we flew to 🇯🇵.", "A 🦃 in 🇹🇷? Wow."} {
		if got[i].Text != want {
			t.Errorf("turn %d written %q, want %q", i+1, got[i].Text, want)
		}
	}
	if s.QA[0].Question != "What did Ann's dog eat?" || !reflect.DeepEqual(normEvidence(s.QA[0].Evidence), []string{"D1:1"}) {
		t.Errorf("question or evidence rewritten: %+v", s.QA[0])
	}
	var none Sample
	if err := json.Unmarshal([]byte(raw), &none); err != nil {
		t.Fatal(err)
	}
	if err := EmojiWords(&none, 0); err != nil {
		t.Fatal(err)
	}
	if text := sessionTurns(t, &none)["session_1"][0].Text; text != "Our Dog ate the birthday cake, then we flew to Japan." {
		t.Errorf("at a share of 0 the turn reads %q", text)
	}
}

func TestUserNamesAndAnonymised(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann Lee","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann Lee","dia_id":"D1:1","text":"We went hiking."},
			{"speaker":"Bo","dia_id":"D1:2","text":"Sounds wonderful!"}]},
		"qa":[{"question":"Where did Ann Lee go hiking?","category":4,"evidence":["D1:1"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := UserNames(&s); err != nil {
		t.Fatal(err)
	}
	if a, b := s.speaker("speaker_a"), s.speaker("speaker_b"); a != "ann_lee" || b != "bo" {
		t.Errorf("speakers %q and %q, want ann_lee and bo", a, b)
	}
	got := sessionTurns(t, &s)["session_1"]
	if got[0].Speaker != "ann_lee" || got[1].Speaker != "bo" || got[0].Text != "We went hiking." {
		t.Errorf("turns %+v", got)
	}
	if s.QA[0].Question != "Where did Ann Lee go hiking?" {
		t.Errorf("question rewritten: %q", s.QA[0].Question)
	}
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := Anonymised(&s); err != nil {
		t.Fatal(err)
	}
	got = sessionTurns(t, &s)["session_1"]
	if a, b := s.speaker("speaker_a"), s.speaker("speaker_b"); a != "A" || b != "B" || got[0].Speaker != "A" || got[1].Speaker != "B" {
		t.Errorf("anonymised: speakers %q and %q, turns %+v", a, b, got)
	}
}

// UnseenNames renames both speakers wherever a name is written (a word
// that holds a name is left alone), and the names it gives are unknown to
// the encoder's word vectors.
func TestUnseenNames(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"Hi Bo! Annie and I went hiking.","blip_caption":"a photo of Ann on a trail"},
			{"speaker":"Bo","dia_id":"D1:2","text":"Sounds wonderful, Ann!"}]},
		"qa":[{"question":"Where did Ann go hiking with Annie?","answer":"Ann went to the hills","category":4,"evidence":["D1:1"]}],
		"observation":{"session_1_observation":{"Ann":[["Ann went hiking with Annie.","D1:1"]]}}}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := UnseenNames(&s); err != nil {
		t.Fatal(err)
	}
	a, b := s.speaker("speaker_a"), s.speaker("speaker_b")
	if a == "Ann" || b == "Bo" || a == b || !slices.Contains(unseenNames, a) || !slices.Contains(unseenNames, b) {
		t.Fatalf("speakers %q and %q", a, b)
	}
	got := sessionTurns(t, &s)["session_1"]
	if got[0].Speaker != a || got[0].Text != "Hi "+b+"! Annie and I went hiking." || got[0].BlipCaption != "a photo of "+a+" on a trail" ||
		got[1].Speaker != b || got[1].Text != "Sounds wonderful, "+a+"!" {
		t.Errorf("turns %+v", got)
	}
	if q := s.QA[0]; q.Question != "Where did "+a+" go hiking with Annie?" || q.Answer != a+" went to the hills" ||
		!reflect.DeepEqual(normEvidence(q.Evidence), []string{"D1:1"}) {
		t.Errorf("question %+v", q)
	}
	if len(s.Observations) != 1 || s.Observations[0].Text != a+" went hiking with Annie." {
		t.Errorf("observations %+v", s.Observations)
	}
	if !strings.Contains(string(s.Observation), `"`+a+`":[["`+a+` went`) {
		t.Errorf("the file's observation field, for --write-data: %s", s.Observation)
	}
	for _, n := range unseenNames {
		if glove.New().Knows([]byte(strings.ToLower(n))) {
			t.Errorf("%s is a word of GloVe's vocabulary", n)
		}
	}
	if len(unseenNames)%2 != 0 {
		t.Errorf("%d names are not pairs", len(unseenNames))
	}
}

// CasualQuestions types the questions as a phone does and leaves the
// turns and the evidence alone.
func TestCasualQuestions(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I didn't go. It's 3.5 km!"}]},
		"qa":[{"question":"What didn't Ann's mom like about 3.5 km?","category":4,"evidence":["D1:1"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := CasualQuestions(&s); err != nil {
		t.Fatal(err)
	}
	if q := s.QA[0]; q.Question != "what didnt anns mom like about 3.5 km" || !reflect.DeepEqual(normEvidence(q.Evidence), []string{"D1:1"}) {
		t.Errorf("question %+v", q)
	}
	if got := sessionTurns(t, &s)["session_1"]; got[0].Text != "I didn't go. It's 3.5 km!" {
		t.Errorf("turn rewritten: %q", got[0].Text)
	}
}

// MediaOmitted writes a shared image as a chat export does: the caption
// gone, a "<Media omitted>" of the same speaker after the turn, the turns
// numbered again and the evidence moved with them.
func TestMediaOmitted(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"Look what I made!","blip_caption":"a photo of a blue vase"},
			{"speaker":"Bo","dia_id":"D1:2","text":"Gorgeous glaze"},
			{"speaker":"Ann","dia_id":"D1:3","text":"Thanks, it took a week","blip_caption":"a photo of a kiln"}]},
		"qa":[{"question":"What did Ann make?","category":4,"evidence":["D1:1","D1:3"]},
			{"question":"What did Bo think of it?","category":4,"evidence":["D1:2"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := MediaOmitted(&s); err != nil {
		t.Fatal(err)
	}
	want := []Turn{{Speaker: "Ann", DiaID: "D1:1", Text: "Look what I made!"}, {Speaker: "Ann", DiaID: "D1:2", Text: MediaPlaceholder},
		{Speaker: "Bo", DiaID: "D1:3", Text: "Gorgeous glaze"},
		{Speaker: "Ann", DiaID: "D1:4", Text: "Thanks, it took a week"}, {Speaker: "Ann", DiaID: "D1:5", Text: MediaPlaceholder}}
	if got := sessionTurns(t, &s)["session_1"]; !reflect.DeepEqual(got, want) {
		t.Errorf("session 1 = %+v, want %+v", got, want)
	}
	if a, b := normEvidence(s.QA[0].Evidence), normEvidence(s.QA[1].Evidence); !reflect.DeepEqual(a, []string{"D1:1", "D1:4"}) || !reflect.DeepEqual(b, []string{"D1:3"}) {
		t.Errorf("evidence %v and %v, want [D1:1 D1:4] and [D1:3]", a, b)
	}
}

// MediaLinks writes a shared image as an app that shares links does: the
// caption gone, each of its links a message of the same speaker after the
// turn (an image without one the placeholder), and the evidence moved.
func TestMediaLinks(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"Look what I made!","blip_caption":"a photo of a blue vase",
				"img_url":["https://i.redd.it/l7hozpetnhlb1.jpg","https://example.com/vase-2.jpg"]},
			{"speaker":"Bo","dia_id":"D1:2","text":"Gorgeous glaze"},
			{"speaker":"Ann","dia_id":"D1:3","text":"Thanks, it took a week","blip_caption":"a photo of a kiln"}]},
		"qa":[{"question":"What did Ann make?","category":4,"evidence":["D1:1","D1:3"]},
			{"question":"What did Bo think of it?","category":4,"evidence":["D1:2"]}]}`
	var s Sample
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := MediaLinks(&s); err != nil {
		t.Fatal(err)
	}
	want := []Turn{{Speaker: "Ann", DiaID: "D1:1", Text: "Look what I made!"},
		{Speaker: "Ann", DiaID: "D1:2", Text: "https://i.redd.it/l7hozpetnhlb1.jpg"}, {Speaker: "Ann", DiaID: "D1:3", Text: "https://example.com/vase-2.jpg"},
		{Speaker: "Bo", DiaID: "D1:4", Text: "Gorgeous glaze"},
		{Speaker: "Ann", DiaID: "D1:5", Text: "Thanks, it took a week"}, {Speaker: "Ann", DiaID: "D1:6", Text: MediaPlaceholder}}
	if got := sessionTurns(t, &s)["session_1"]; !reflect.DeepEqual(got, want) {
		t.Errorf("session 1 = %+v, want %+v", got, want)
	}
	if a, b := normEvidence(s.QA[0].Evidence), normEvidence(s.QA[1].Evidence); !reflect.DeepEqual(a, []string{"D1:1", "D1:5"}) || !reflect.DeepEqual(b, []string{"D1:4"}) {
		t.Errorf("evidence %v and %v, want [D1:1 D1:5] and [D1:4]", a, b)
	}
}

// Tapbacks follows a share of the turns with the other speaker's reaction,
// quoting the turn whole; the turns are numbered again and the evidence
// moves with them. At a share of 1 every turn is reacted to, at 0 none.
func TestTapbacks(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I got the job!"},
			{"speaker":"Bo","dia_id":"D1:2","text":"No way, congrats"}]},
		"qa":[{"question":"What did Ann get?","category":4,"evidence":["D1:1"]},
			{"question":"What did Bo say?","category":4,"evidence":["D1:2"]}]}`
	for _, c := range []struct {
		share float64
		want  []Turn
		ev    []string
	}{
		{1, nil, []string{"D1:1", "D1:3"}},
		{0, []Turn{{Speaker: "Ann", DiaID: "D1:1", Text: "I got the job!"}, {Speaker: "Bo", DiaID: "D1:2", Text: "No way, congrats"}}, []string{"D1:1", "D1:2"}},
	} {
		var s Sample
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if err := Tapbacks(&s, c.share); err != nil {
			t.Fatal(err)
		}
		got := sessionTurns(t, &s)["session_1"]
		if c.want != nil && !reflect.DeepEqual(got, c.want) {
			t.Errorf("share %g: session 1 = %+v, want %+v", c.share, got, c.want)
		}
		if c.want == nil {
			if len(got) != 4 {
				t.Fatalf("share %g: %d turns, want 4: %+v", c.share, len(got), got)
			}
			for i, quoted := range map[int]Turn{1: got[0], 3: got[2]} {
				r := got[i]
				verb, rest, ok := strings.Cut(r.Text, " “")
				if r.Speaker == quoted.Speaker || !slices.Contains(tapbackVerbs, verb) || !ok || rest != quoted.Text+"”" || r.DiaID != fmt.Sprintf("D1:%d", i+1) {
					t.Errorf("turn %d = %+v, want the other speaker's reaction to %q", i+1, r, quoted.Text)
				}
			}
		}
		if a, b := normEvidence(s.QA[0].Evidence), normEvidence(s.QA[1].Evidence); !reflect.DeepEqual([]string{a[0], b[0]}, c.ev) {
			t.Errorf("share %g: evidence %v and %v, want %v", c.share, a, b, c.ev)
		}
	}
}

// QuotedReplies makes a reply quote the message it answers, as that
// message was written (not its own quote), above its own text; a turn of
// the same speaker as the turn before quotes nothing, and at a share of 0
// nothing changes.
func TestQuotedReplies(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I got the job!\nStarting Monday"},
			{"speaker":"Ann","dia_id":"D1:2","text":"So nervous"},
			{"speaker":"Bo","dia_id":"D1:3","text":"No way, congrats"},
			{"speaker":"Ann","dia_id":"D1:4","text":"Thanks!"}]},
		"qa":[{"question":"When does Ann start?","category":2,"evidence":["D1:1"]}]}`
	for _, c := range []struct {
		share float64
		want  []string
	}{
		{1, []string{"I got the job!\nStarting Monday", "So nervous", "> So nervous\n\nNo way, congrats", "> No way, congrats\n\nThanks!"}},
		{0, []string{"I got the job!\nStarting Monday", "So nervous", "No way, congrats", "Thanks!"}},
	} {
		var s Sample
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if err := QuotedReplies(&s, c.share); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, turn := range sessionTurns(t, &s)["session_1"] {
			got = append(got, turn.Text)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("share %g: texts %q, want %q", c.share, got, c.want)
		}
		if ev := normEvidence(s.QA[0].Evidence); !slices.Equal(ev, []string{"D1:1"}) {
			t.Errorf("share %g: evidence %v", c.share, ev)
		}
	}
}

// CrossedReplies sends a reply before the last message of the run it
// answers; the turns are numbered again and the evidence moves with them.
func TestCrossedReplies(t *testing.T) {
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I got the job"},
			{"speaker":"Ann","dia_id":"D1:2","text":"starting monday"},
			{"speaker":"Bo","dia_id":"D1:3","text":"omg congrats"},
			{"speaker":"Ann","dia_id":"D1:4","text":"thanks!"}]},
		"qa":[{"question":"When does Ann start?","category":2,"evidence":["D1:2"]}]}`
	for _, c := range []struct {
		share float64
		texts []string
		ev    string
	}{
		// The reply crosses "starting monday"; the message after it is
		// not crossed again.
		{1, []string{"I got the job", "omg congrats", "starting monday", "thanks!"}, "D1:3"},
		{0, []string{"I got the job", "starting monday", "omg congrats", "thanks!"}, "D1:2"},
	} {
		var s Sample
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if err := CrossedReplies(&s, c.share); err != nil {
			t.Fatal(err)
		}
		var texts []string
		for i, turn := range sessionTurns(t, &s)["session_1"] {
			texts = append(texts, turn.Text)
			if want := fmt.Sprintf("D1:%d", i+1); turn.DiaID != want {
				t.Errorf("share %g: turn %d is %s", c.share, i+1, turn.DiaID)
			}
		}
		if !slices.Equal(texts, c.texts) {
			t.Errorf("share %g: texts %q, want %q", c.share, texts, c.texts)
		}
		if ev := normEvidence(s.QA[0].Evidence); !slices.Equal(ev, []string{c.ev}) {
			t.Errorf("share %g: evidence %v, want [%s]", c.share, ev, c.ev)
		}
	}
}
