package claudecode_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	hooks "github.com/loci-mem/loci/cmd/loci/claudecode"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/embed/glove"
	"github.com/loci-mem/loci/palace/embed/use"
)

// calibration is the small set the default threshold was chosen on: twelve
// developer memories and twelve prompts, half about something stored.
var calibration = []string{
	"We validate JWT bearer tokens at the API gateway and pass the user id downstream in a signed header.",
	"The billing service retries failed Stripe webhooks three times with exponential backoff.",
	"Postgres migrations run with goose; never edit an applied migration, add a new one.",
	"The frontend uses React with Vite; run npm run dev for the local server on port 5173.",
	"Flaky test TestUploadLarge times out on CI because the runner has 2 cores; we skip it with -short.",
	"Deploys go through the release train every Tuesday; hotfixes need approval from the on-call lead.",
	"Redis is used as a cache for session lookups with a 15 minute TTL.",
	"The user prefers tabs over spaces and wants gofmt run before every commit.",
	"Kafka consumer lag alerts fire when lag exceeds 10k messages for five minutes.",
	"Docker images are pushed to the internal registry at registry.example.com under team/api.",
	"调试脚本 debug.js 需要先安装依赖,然后运行 node debug.js 查看日志。",
	"The dashboard shows request latency p99 per region from Prometheus.",
}

// TestSelectCalibration checks which memories clear the default threshold,
// chosen with USE-lite. With the hash embedder five of the six prompts
// about a stored memory recall exactly it ("authentication tokens" shares
// only "tokens" with the JWT note and is missed); the prompts about
// nothing stored recall nothing. With the default encoder and with GloVe,
// whose cosines between unrelated texts run 0.29 and 0.42 higher than
// USE-lite's, the same holds because Choose carries their cosines onto
// USE-lite's scale; with their cosines as they were, two of the six
// prompts about nothing stored had memories injected ("add a unit test for
// the parser" recalled the flaky upload test), and related prompts got
// unrelated memories beside their own (one with the default encoder, two
// with GloVe).
func TestSelectCalibration(t *testing.T) {
	t.Parallel()
	with := func(t *testing.T, e embed.Embedder) *palace.Registry {
		reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir(), Embedder: e})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { reg.Close() })
		return reg
	}
	t.Run("hash", func(t *testing.T) {
		calibrate(t, mustRegistry(t), []int{4, 6, 5, 10, 3, -1})
	})
	// With a sentence encoder the mean of coverage and cosine also finds
	// the "authentication tokens" prompt, and still nothing unrelated.
	t.Run("use-lite", func(t *testing.T) {
		calibrate(t, with(t, use.New()), []int{4, 6, 5, 10, 3, 0})
	})
	t.Run("glove", func(t *testing.T) {
		calibrate(t, with(t, glove.New()), []int{4, 6, 5, 10, 3, -1})
	})
	// The default encoder, built as palace/embed/builtin builds it (that
	// package's init would make it every test's default embedder).
	t.Run("default", func(t *testing.T) {
		hybrid, err := embed.NewConcat([]embed.Embedder{embed.NewHash(embed.HashDim), glove.New(), use.New()}, []float64{0.15, 0.70, 0.15})
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := embed.KnownScale(hybrid.ID()); s != embed.HybridScale {
			t.Fatalf("%s is not the default encoder", hybrid.ID())
		}
		calibrate(t, with(t, hybrid), []int{4, 6, 5, 10, 3, -1})
	})
}

// calibrate stores the calibration memories and checks what each prompt
// recalls, as the hook chooses (Choose). positives[i] is the memory the
// i-th prompt about a stored memory must recall alone (-1: nothing).
func calibrate(t *testing.T, reg *palace.Registry, positives []int) {
	ctx := context.Background()
	p, err := reg.OpenOrCreate(ctx, "cal")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range calibration {
		if err := p.Add(ctx, &palace.Drawer{Content: m}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		prompt string
		want   []int // indexes into calibration
	}{
		{"why does the upload test fail in CI?", nil},
		{"what is the cache ttl for sessions", nil},
		{"when do we deploy to production?", nil},
		{"debug.js 如何使用", nil},
		{"how do I run the frontend locally?", nil},
		{"how do we handle authentication tokens?", nil},
		{"write a poem about the sea and the moon", nil},
		{"refactor this function to be more readable", nil},
		{"what does this error mean: undefined variable foo", nil},
		{"add a unit test for the parser", nil},
		{"fix the bug in the login page", nil},
		{"explain the code in main.go", nil},
	}
	for i, m := range positives {
		if m >= 0 {
			cases[i].want = []int{m}
		}
	}
	for _, c := range cases {
		t.Run(c.prompt, func(t *testing.T) {
			hits, err := p.Search(ctx, hooks.PromptSearch(c.prompt))
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, r := range hooks.Choose(ctx, p, c.prompt, "", hits, hooks.DefaultMinRelevance, hooks.DefaultMaxRecall) {
				for i, m := range calibration {
					if r.Drawer.Content == m {
						got = append(got, i)
					}
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("recalled %v, want %v", got, c.want)
			}
		})
	}
}

func TestSelectSkipsRepeats(t *testing.T) {
	t.Parallel()
	d := func(s string) *palace.Drawer { return &palace.Drawer{Content: s} }
	hits := []palace.Hit{
		{Drawer: d("User: how do we rotate the vault token?\n\nAssistant: The vault token rotates nightly via cron.")},
		{Drawer: d("The user asked how we rotate the vault token; the vault token rotates nightly via cron.")},
		{Drawer: d("Vault audit logs go to the SIEM; rotate the audit key yearly.")},
		{Drawer: d("Nothing to do with the question at all.")},
	}
	got := hooks.Select("how do we rotate the vault token", hits, true, 0.4, 5)
	if len(got) != 2 || got[0].Drawer != hits[0].Drawer || got[1].Drawer != hits[2].Drawer {
		for _, g := range got {
			t.Logf("%.2f %s", g.Relevance, g.Drawer.Content)
		}
		t.Fatalf("want the first hit and the audit-log hit, got %d", len(got))
	}
	if got[0].Relevance != 1 {
		t.Errorf("relevance of a memory holding every content word = %v, want 1", got[0].Relevance)
	}
	if n := len(hooks.Select("how do we rotate the vault token", hits, true, 0.4, 1)); n != 1 {
		t.Errorf("max 1 returned %d", n)
	}
}

// A session summary that quotes a saved turn is the same text twice: only
// the more relevant of the two is injected (issue 12).
func TestSelectSkipsTurnQuotedBySummary(t *testing.T) {
	t.Parallel()
	turn := &palace.Drawer{Kind: palace.KindTurn, Content: "User: how do we deploy the gateway to fly.io on fridays?\n\nAssistant: flyctl deploy from main, after the smoke tests."}
	summary := &palace.Drawer{Kind: palace.KindSession, Content: "Session: how do we deploy the gateway to fly.io on fridays? " +
		"flyctl deploy from main, after the smoke tests. Then we renamed the billing queue and fixed the flaky retry test in the worker pool."}
	other := &palace.Drawer{Kind: palace.KindNote, Content: "The gateway's fly.io app is called api-prod; deploy windows are announced in #ops."}
	got := hooks.Select("how do we deploy the gateway to fly.io", []palace.Hit{{Drawer: turn}, {Drawer: summary}, {Drawer: other}}, true, 0.3, 5)
	kinds := []string{}
	for _, g := range got {
		kinds = append(kinds, g.Drawer.Kind)
	}
	if len(got) != 2 || got[0].Drawer.Kind == got[1].Drawer.Kind && got[0].Drawer != other {
		t.Fatalf("picked %v; want one of the turn and its summary, and the note", kinds)
	}
	for _, g := range got {
		if g.Drawer == other {
			return
		}
	}
	t.Fatalf("the unrelated note was dropped: %v", kinds)
}

func TestRelevanceSemanticMean(t *testing.T) {
	t.Parallel()
	h := palace.Hit{Drawer: &palace.Drawer{Content: "deploys happen on tuesday"}, Cosine: 0.6}
	if got := hooks.Relevance("when do we deploy releases", h, false); got < 0.54 || got > 0.56 {
		t.Errorf("semantic relevance = %v, want (0.5+0.6)/2", got)
	}
	if got := hooks.Relevance("when do we deploy releases", h, true); got != 0.5 {
		t.Errorf("lexical relevance = %v, want coverage 0.5", got)
	}
}

// Relevance decides whether a memory is injected, the search's rank where:
// a hit the search ranked second stays second however many of the
// prompt's words it holds.
func TestSelectKeepsTheSearchOrder(t *testing.T) {
	t.Parallel()
	d := func(s string) *palace.Drawer { return &palace.Drawer{Content: s} }
	hits := []palace.Hit{
		{Drawer: d("Rotation runs nightly from cron; the vault token is renewed then.")},
		{Drawer: d("How do we rotate the vault token? Rotate the vault token with vault token rotate.")},
		{Drawer: d("Nothing to do with the question at all.")},
	}
	got := hooks.Select("how do we rotate the vault token", hits, true, 0.4, 5)
	if len(got) != 2 || got[0].Drawer != hits[0].Drawer || got[1].Drawer != hits[1].Drawer {
		for _, g := range got {
			t.Logf("%.2f %s", g.Relevance, g.Drawer.Content)
		}
		t.Fatalf("want the first two hits in the search's order, got %d", len(got))
	}
	if got[0].Relevance >= got[1].Relevance {
		t.Errorf("the case does not test the order: relevances %.2f and %.2f", got[0].Relevance, got[1].Relevance)
	}
}

// An answer indexed with the question it answers (its keywords) is not a
// repeat of the question: what a memory says is its own text.
func TestSelectJudgesRepeatsByOwnText(t *testing.T) {
	t.Parallel()
	question := &palace.Drawer{Content: "Ann: which database did we pick for the billing service?"}
	answer := &palace.Drawer{Content: "Bo: Postgres, with the ledger in its own schema.",
		Keywords: "Ann: which database did we pick for the billing service?"}
	got := hooks.Select("which database did we pick for billing", []palace.Hit{{Drawer: question}, {Drawer: answer}}, true, 0.4, 5)
	if len(got) != 2 {
		t.Fatalf("picked %d of the question and its answer, want both", len(got))
	}
}

// A repeat is judged on what the hook shows of a memory: a long episode
// whose shown excerpt (its opening and the matched passage) leaves a turn
// out does not make that turn a repeat, though its whole text quotes it.
func TestSelectJudgesRepeatsByWhatIsShown(t *testing.T) {
	t.Parallel()
	turnText := "User: where do the nightly backups go?\n\nAssistant: To the cold-storage bucket in eu-west, kept ninety days."
	var b strings.Builder
	b.WriteString("On Monday, the user said: \"we rename the staging tables this week.\" ")
	for i := range 60 {
		if i == 20 {
			b.WriteString(`The user said: "where do the nightly backups go?" The assistant said: "To the cold-storage bucket in eu-west, kept ninety days." `)
		}
		fmt.Fprintf(&b, "Later the user said: %q ", fmt.Sprintf("step %d renames the staging tables and reindexes them", i))
	}
	b.WriteString(`Then the user said: "the backup restore drill is on Thursday."`)
	episode := &palace.Drawer{Kind: palace.KindEpisode, Content: b.String()}
	end := len(episode.Content)
	matched := &palace.Span{Start: end - 600, End: end} // the restore drill, far from the quoted turn
	hits := []palace.Hit{{Drawer: episode, Passage: matched}, {Drawer: &palace.Drawer{Kind: palace.KindTurn, Content: turnText}}}
	got := hooks.Select("when is the backup restore drill, and where do backups go", hits, true, 0, 5)
	if len(got) != 2 {
		t.Fatalf("picked %d memories; the turn the excerpt does not show was taken for a repeat", len(got))
	}
	if strings.Contains(got[0].Shown(), "cold-storage") {
		t.Fatal("the case does not test it: the excerpt shows the turn")
	}
}

// When the hybrid search is slow the hook searches by keywords alone, and
// those hits have no cosine: they are judged by the prompt's words they
// hold, not by the mean of that and a cosine of 0, which had left out a
// memory holding half of them.
func TestChooseJudgesAKeywordSearchByItsWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir(), Embedder: use.New()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	p, err := reg.OpenOrCreate(ctx, "kw")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"We deploy on Tuesdays", "The cafeteria closes at three"} {
		if err := p.Add(ctx, &palace.Drawer{Content: m}); err != nil {
			t.Fatal(err)
		}
	}
	const prompt = "which day do we deploy?" // "day" and "deploy": the note holds half
	req := hooks.PromptSearch(prompt)
	req.Mode = palace.ModeKeyword
	hits, err := p.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got := hooks.Choose(ctx, p, prompt, "", hits, hooks.DefaultMinRelevance, hooks.DefaultMaxRecall)
	if len(got) != 1 || got[0].Drawer.Content != "We deploy on Tuesdays" || got[0].Relevance != 0.5 {
		t.Errorf("chose %+v, want the deploy note at relevance 0.5", got)
	}
}
