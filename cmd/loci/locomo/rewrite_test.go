package locomo

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed/glove"
)

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

// RequestFrames opens each question with a request to the memory, the
// same one every run, the question and its evidence kept; the palace reads
// every frame as a request (palace/request.go), so what is searched is
// the question as written.
func TestRequestFrames(t *testing.T) {
	var qa []string
	for i := range 40 {
		qa = append(qa, fmt.Sprintf(`{"question":"When did Ann go to lake %d?","category":2,"evidence":["D1:1"]}`, i))
	}
	raw := `{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I went to the lake."}]},
		"qa":[` + strings.Join(qa, ",") + `]}`
	frames := map[string]bool{}
	var first []string
	for run := range 2 {
		var s Sample
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatal(err)
		}
		if err := RequestFrames(&s); err != nil {
			t.Fatal(err)
		}
		for i, q := range s.QA {
			plain := fmt.Sprintf("When did Ann go to lake %d?", i)
			frame, ok := strings.CutSuffix(q.Question, plain)
			if !ok || frame == "" || !reflect.DeepEqual(normEvidence(q.Evidence), []string{"D1:1"}) {
				t.Fatalf("question %d: %+v", i, q)
			}
			frames[frame] = true
			if got := palace.RequestContent(q.Question); got != plain {
				t.Errorf("%q is searched as %q, want the question as written", q.Question, got)
			}
			if run == 0 {
				first = append(first, q.Question)
			} else if q.Question != first[i] {
				t.Errorf("question %d framed %q, then %q", i, first[i], q.Question)
			}
		}
	}
	if len(frames) != len(requestFrames) {
		t.Errorf("%d of the %d frames used over 40 questions", len(frames), len(requestFrames))
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
