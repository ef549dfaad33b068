package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loci-mem/loci/cmd/loci/locomo"
)

// `loci eval -h` lists the evaluations instead of failing.
func TestEvalHelp(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if o := runCLI(t, home, "text", "eval", "-h"); o.code != 0 || !strings.Contains(o.stdout, "loci eval locomo") {
		t.Errorf("eval -h: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := runCLI(t, home, "json", "eval", "bogus"); o.code != 2 || o.env.Error.Type != "invalid_args" {
		t.Errorf("eval bogus: exit %d %s", o.code, o.stdout)
	}
}

// A data file the evaluation cannot read, or a rewrite that cannot apply
// to it, is bad input (exit 2), not a failure of loci.
func TestEvalBadDataIsInvalidInput(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	oneSpeaker := filepath.Join(dir, "one.json")
	if err := os.WriteFile(bad, []byte(`{"session_1": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(oneSpeaker, []byte(`[{"sample_id":"s","conversation":{"speaker_a":"Ann",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"hi"}]},
		"qa":[{"question":"What did Ann say?","category":4,"evidence":["D1:1"]},{"question":"Who is Bo?","category":5,"evidence":[]}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"eval", "locomo", "--data", bad, "--k", "1"},
		{"eval", "locomo", "--chat-roles", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--echo-replies", "-1", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--echo-reworded", "--data", oneSpeaker, "--k", "1"}, // without --echo-replies
		{"eval", "locomo", "--topic-replies", "-1", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--topic-replies", "101", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--path", "facts", "--topic-replies", "2", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--typos", "1.5", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--typos", "-0.1", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--question-typos", "2", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--slow-replies", "1.5", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--slow-replies", "-0.2", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--haystack", "-1", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--ask", "sideways", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--haystack", "1", "--data", oneSpeaker, "--k", "1"}, // a file of one conversation
		{"eval", "locomo", "--write-data", filepath.Join(dir, "no", "such", "dir.json"), "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--pastes", filepath.Join(dir, "no-such-dir"), "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--pastes", dir, "--data", oneSpeaker, "--k", "1"},    // only small files
		{"eval", "locomo", "--pastes-in-turn", "--data", oneSpeaker, "--k", "1"}, // without --pastes
		{"eval", "locomo", "--no-ids", "--data", oneSpeaker, "--k", "1"},         // the session path
		{"eval", "locomo", "--date-form", "no layout", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--path", "facts", "--short-messages", "--data", oneSpeaker, "--k", "1"}, // turns the facts path does not store
		{"eval", "locomo", "--path", "facts", "--method", "keyword", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--path", "facts", "--matrix", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--path", "sideways", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--method", "sideways", "--data", oneSpeaker, "--k", "1"},
		// The baseline stores nothing and asks as its script does.
		{"eval", "locomo", "--method", "plain-bm25", "--path", "agent", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--method", "plain-bm25", "--ask", "hook", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--method", "plain-bm25", "--fusion", "10:1:1", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--method", "plain-bm25", "--matrix", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--method", "plain-bm25", "--dream", "--data", oneSpeaker, "--k", "1"},
		// The episodes path is measured by session, asked as memory_recall asks.
		{"eval", "locomo", "--path", "episodes", "--matrix", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--path", "episodes", "--ask", "hook", "--data", oneSpeaker, "--k", "1"},
		{"eval", "locomo", "--path", "mem-save-turn", "--matrix", "--data", oneSpeaker, "--k", "1"},
	} {
		if o := runCLI(t, home, "json", args...); o.code != 2 || o.env.Error.Type != "invalid_args" {
			t.Errorf("%v: exit %d %s", args, o.code, o.stdout)
		}
	}
	// The same file without the rewrite is read and scored, and written
	// back out as it was read.
	out := filepath.Join(dir, "out.json")
	if o := runCLI(t, home, "json", "eval", "locomo", "--data", oneSpeaker, "--k", "1", "--method", "keyword", "--write-data", out); o.code != 0 ||
		!strings.Contains(o.stderr, "1 questions not scored: they name no evidence") {
		t.Errorf("eval of a one-speaker file (the question without evidence is said to be unscored): exit %d %s%s", o.code, o.stdout, o.stderr)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), `"text":"hi"`) || !strings.Contains(string(b), `"evidence":[]`) {
		t.Errorf("--write-data wrote %q (%v)", b, err)
	}
	// The plain BM25 baseline scores the same file without a palace.
	if o := runCLI(t, home, "json", "eval", "locomo", "--data", oneSpeaker, "--k", "1", "--method", "plain-bm25"); o.code != 0 ||
		!strings.Contains(o.stdout, `"method":"plain-bm25"`) || !strings.Contains(o.stdout, `"any@1":1`) {
		t.Errorf("eval --method plain-bm25: exit %d %s%s", o.code, o.stdout, o.stderr)
	}
}

// With --fusion (or --matrix), --json writes each variant's questions to a
// file of its own, named for the variant, which `loci eval compare` reads.
func TestEvalVariantsWriteAFileEach(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	data := twoQuestions(t, dir)
	out := filepath.Join(dir, "rows.json")
	if o := runCLI(t, home, "json", "eval", "locomo", "--data", data, "--k", "1", "--fusion", "10:1:0.7;60:1:1", "--json", out); o.code != 0 {
		t.Fatalf("eval --fusion --json: exit %d %s%s", o.code, o.stdout, o.stderr)
	}
	a, b := filepath.Join(dir, "rows.session-hybrid-K10-k1-v0.7.json"), filepath.Join(dir, "rows.session-hybrid-K60-k1-v1.json")
	for _, f := range []string{a, b} {
		if raw, err := os.ReadFile(f); err != nil || strings.Count(string(raw), `"Question"`) != 2 {
			t.Errorf("%s: %q (%v), want the two questions", f, raw, err)
		}
	}
	if o := runCLI(t, home, "json", "eval", "compare", a, b, "--k", "1"); o.code != 0 || !strings.Contains(o.stdout, `"n":2`) {
		t.Errorf("eval compare of the two variants: exit %d %s%s", o.code, o.stdout, o.stderr)
	}
}

// --matrix sets each path's hybrid ranking against its two legs, in the
// JSON report and the text one, each question counted once.
func TestEvalMatrixSetsHybridAgainstItsLegs(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	data := twoQuestions(t, t.TempDir())
	o := runCLI(t, home, "json", "eval", "locomo", "--matrix", "--data", data, "--k", "1")
	if o.code != 0 {
		t.Fatalf("eval --matrix: exit %d %s%s", o.code, o.stdout, o.stderr)
	}
	var got struct {
		Data struct {
			Legs []legLine `json:"legs"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, o.stdout)
	}
	paths := map[string]bool{}
	for _, l := range got.Data.Legs {
		paths[l.Path] = true
		if l.Conversations == "6-10" || l.N != 2 || l.K != 1 ||
			l.Hybrid+l.LostKeyword+l.LostVector+l.LostBoth+l.MissedByAll != l.N || l.HybridOnly > l.Hybrid {
			t.Errorf("leg line %+v", l)
		}
	}
	if !paths["session"] || !paths["agent"] || len(got.Data.Legs) != 4 {
		t.Errorf("legs %+v, want 1-5 and all for the session and agent paths", got.Data.Legs)
	}
	if o := runCLI(t, home, "text", "eval", "locomo", "--matrix", "--data", data, "--k", "1"); o.code != 0 ||
		!strings.Contains(o.stdout, "hybrid against its legs") {
		t.Errorf("eval --matrix text: exit %d %s%s", o.code, o.stdout, o.stderr)
	}
}

// twoQuestions writes a conversation of two turns and a question about
// each into dir, in LoCoMo's schema, and returns its path.
func twoQuestions(t *testing.T, dir string) string {
	t.Helper()
	data := filepath.Join(dir, "two.json")
	if err := os.WriteFile(data, []byte(`[{"sample_id":"s","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a grey cat called Pixel."},
		{"speaker":"Bo","dia_id":"D1:2","text":"Lovely! I planted tomatoes in the garden."}]},
		"qa":[{"question":"What is the name of Ann's cat?","category":4,"evidence":["D1:1"]},
		{"question":"What did Bo plant?","category":4,"evidence":["D1:2"]}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

// The text report leaves out a half of the conversations that holds no
// question (a file of fewer than six), rather than print it as zeros, and
// prints a category without questions as "-", not as a recall of 0.
func TestPrintEvalLeavesOutAnEmptyHalf(t *testing.T) {
	ks := []int{10}
	rows := []locomo.Row{{Sample: 1, Category: 4, Gold: []string{"D1:1"}, Top: []string{"D1:1"}}}
	report := map[string]any{"method": "hybrid", "all": locomo.Groups(rows, ks),
		"conversations_1_5": locomo.Groups(rows, ks), "conversations_6_10": locomo.Groups(nil, ks)}
	var b strings.Builder
	printEval(&b, report, ks)
	if out := b.String(); !strings.Contains(out, "[all]") || !strings.Contains(out, "[conversations_1_5]") ||
		strings.Contains(out, "[conversations_6_10]") {
		t.Errorf("report:\n%s", out)
	}
	emptyRows := 0
	for _, line := range strings.Split(b.String(), "\n") {
		empty := strings.HasPrefix(line, "1 multi-hop")
		if empty {
			emptyRows++
		}
		if strings.HasPrefix(line, "4 single-hop") && !strings.Contains(line, "1.000") ||
			empty && (strings.Contains(line, "0.000") || strings.Count(line, " -") != 3) {
			t.Errorf("row %q", line)
		}
	}
	if emptyRows != 2 { // in [all] and [conversations_1_5]
		t.Errorf("%d rows of a category without questions, want 2:\n%s", emptyRows, b.String())
	}
}

// loci eval reads the dates of its data, which name no zone, as UTC
// wherever it runs: LoCoMo's first conversation on the agent path, whose
// texts carry their dates in a header, ranks every question alike on a
// machine in UTC and on one fourteen hours ahead of it (where those
// dates, read as the machine's wall clock, fall on the day before).
func TestEvalFiguresAreTheSameInEveryZone(t *testing.T) {
	t.Parallel()
	locomoData(t)
	dir := t.TempDir()
	ranked := func(tz string) string {
		t.Helper()
		out := filepath.Join(dir, tz[strings.LastIndex(tz, "/")+1:]+".json")
		_, stderr, code := runLociOnce(t, t.TempDir(), []string{"TZ=" + tz}, "", "eval", "locomo", "--conversations", "1", "--path", "agent",
			"--method", "hybrid", "--k", "10", "--json", out, "--format", "json")
		raw, err := os.ReadFile(out)
		if code != 0 || err != nil {
			t.Fatalf("eval in %s: exit %d %v\n%s", tz, code, err, tail(stderr, 2000))
		}
		return string(raw)
	}
	if utc, ahead := ranked("UTC"), ranked("Pacific/Kiritimati"); utc != ahead {
		t.Error("the agent path ranks LoCoMo's first conversation otherwise in Pacific/Kiritimati than in UTC")
	}
}

// locomoData is the path of LoCoMo's data, which the evaluation tests
// read: a test fails without it under CI and is skipped, saying so,
// elsewhere.
func locomoData(t *testing.T) string {
	t.Helper()
	data := locomo.DefaultDataPath()
	if _, err := os.Stat(data); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("LoCoMo data missing at %s", data)
		}
		t.Skipf("LoCoMo data not found at %s", data)
	}
	return data
}

// --foreign-questions asks each conversation the other's questions, whose
// answers it does not hold, and reports what came back instead of recall:
// memory_recall always returns its k, the prompt hook nothing for
// questions that share no word with the texts it has.
func TestEvalForeignQuestions(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	data := filepath.Join(dir, "two.json")
	if err := os.WriteFile(data, []byte(`[{"sample_id":"pets","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
		"session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a grey cat called Pixel."},
		{"speaker":"Bo","dia_id":"D1:2","text":"Lovely! I planted tomatoes in the garden."}]},
		"qa":[{"question":"What is the name of Ann's cat?","category":4,"evidence":["D1:1"]},
		{"question":"What did Bo plant?","category":4,"evidence":["D1:2"]},
		{"question":"Is this unanswerable?","category":5}]},
	{"sample_id":"billing","conversation":{"speaker_a":"Cy","speaker_b":"Di",
		"session_1":[{"speaker":"Cy","dia_id":"D1:1","text":"We moved the billing database to PostgreSQL 16 last night."},
		{"speaker":"Di","dia_id":"D1:2","text":"The invoice export now runs at two in the morning."}]},
		"qa":[{"question":"Which database does billing use now?","category":4,"evidence":["D1:1"]},
		{"question":"When does the invoice export run?","category":4,"evidence":["D2:9"]}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	returned := func(o cliOut) map[string]any {
		t.Helper()
		fq, _ := o.env.Data["foreign_questions"].(map[string]any)
		all, _ := fq["all"].(map[string]any)
		if o.code != 0 || all == nil || o.env.Data["all"] != nil {
			t.Fatalf("exit %d, want a report of what came back and no recall: %s%s", o.code, o.stdout, o.stderr)
		}
		return all
	}
	// Four questions with evidence are asked, the one without is not;
	// "D2:9" names no turn of either conversation, and is asked all the same.
	all := returned(runCLI(t, home, "json", "eval", "locomo", "--data", data, "--foreign-questions", "--k", "5"))
	if all["questions"] != 4.0 || all["answered"] != 4.0 || all["mean_returned"] != 2.0 {
		t.Errorf("memory_recall: %v, want 4 questions, each given both turns", all)
	}
	all = returned(runCLI(t, home, "json", "eval", "locomo", "--data", data, "--foreign-questions", "--ask", "hook", "--k", "5"))
	if all["questions"] != 4.0 || all["answered"] != 0.0 {
		t.Errorf("the prompt hook: %v, want nothing injected for 4 questions", all)
	}
	if o := runCLI(t, home, "json", "eval", "locomo", "--data", data, "--foreign-questions", "--matrix"); o.code == 0 || o.env.Error == nil || o.env.Error.Type != "invalid_args" {
		t.Errorf("--foreign-questions --matrix: exit %d %s", o.code, o.stdout)
	}
	one := twoQuestions(t, dir)
	if o := runCLI(t, home, "json", "eval", "locomo", "--data", one, "--foreign-questions"); o.code == 0 || o.env.Error == nil || !strings.Contains(o.env.Error.Message, "two conversations or more") {
		t.Errorf("--foreign-questions of one conversation: exit %d %s", o.code, o.stdout)
	}
}
