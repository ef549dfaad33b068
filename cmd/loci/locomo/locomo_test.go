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
