package session_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/palacetest"
	"github.com/loci-mem/loci/palace/session"
	"github.com/loci-mem/loci/palace/store/postgres/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop() // the team-palace test's PostgreSQL server, if it started one
	os.Exit(code)
}

var day0 = time.Date(2026, 5, 28, 11, 30, 36, 0, time.UTC)

func userMsgs(texts ...string) []extract.Message {
	out := make([]extract.Message, len(texts))
	for i, t := range texts {
		out[i] = extract.Message{Role: "user", SenderID: "alice", Text: t, Timestamp: day0.Add(time.Duration(i) * 10 * time.Second)}
	}
	return out
}

func TestAppendAccumulatesThenFlushExtracts(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	res, err := session.Of(p).Append(ctx, "demo-002", userMsgs(
		"I love climbing in Yosemite every spring.",
		"My favorite coffee shop is Blue Bottle in SOMA.",
		"I bike to work most days."), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != session.Accumulated || res.Buffered != 3 || len(res.DrawerIDs) != 0 {
		t.Fatalf("append = %+v, want accumulated with 3 buffered", res)
	}
	buf, err := session.Of(p).Messages(ctx, "demo-002")
	if err != nil || len(buf) != 3 || buf[0].ID == "" || buf[2].Text != "I bike to work most days." {
		t.Fatalf("buffered = %+v, %v", buf, err)
	}

	res, err = session.Of(p).Flush(ctx, "demo-002", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != session.Extracted || res.Buffered != 0 {
		t.Fatalf("flush = %+v", res)
	}
	if got, want := res.DrawerIDs[0], "alice_ep_20260528_00000001"; got != want {
		t.Errorf("episode id = %q, want %q", got, want)
	}
	idRe := regexp.MustCompile(`^alice_af_20260528_\d{8}$`)
	for _, id := range res.DrawerIDs[1:] {
		if !idRe.MatchString(id) {
			t.Errorf("fact id %q does not match %v", id, idRe)
		}
	}
	ep, err := p.Get(ctx, res.DrawerIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	if ep.Kind != palace.KindEpisode || ep.UserID != "alice" || ep.SessionID != "demo-002" ||
		ep.Meta["type"] != "Conversation" || ep.Meta["subject"] == "" || !ep.Timestamp.Equal(day0) {
		t.Errorf("episode drawer = %+v", ep)
	}
	facts, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{Kinds: []string{palace.KindAtomicFact}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 3 {
		t.Fatalf("%d atomic facts, want 3", len(facts))
	}
	for _, f := range facts {
		if f.ParentID != ep.ID {
			t.Errorf("fact %s parent = %q, want %q", f.ID, f.ParentID, ep.ID)
		}
	}
	// Read-your-writes: search sees the episode at once.
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "Where does Alice climb?", Filter: palace.Filter{Kinds: []string{palace.KindEpisode}}})
	if err != nil || len(hits) == 0 || hits[0].Drawer.ID != ep.ID {
		t.Fatalf("search after flush: %v %v", hits, err)
	}
	// A second flush has nothing to do.
	res, err = session.Of(p).Flush(ctx, "demo-002", session.Options{})
	if err != nil || res.Status != session.Accumulated || len(res.DrawerIDs) != 0 {
		t.Fatalf("empty flush = %+v, %v", res, err)
	}
}

func TestBoundaryDayChangeExtractsPreviousStretch(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	if _, err := session.Of(p).Append(ctx, "s", userMsgs("I live in Lisbon.", "I prefer tea."), session.Options{}); err != nil {
		t.Fatal(err)
	}
	next := []extract.Message{{Role: "user", SenderID: "alice", Text: "Good morning, a new day.", Timestamp: day0.Add(24 * time.Hour)}}
	res, err := session.Of(p).Append(ctx, "s", next, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != session.Extracted || res.Buffered != 1 {
		t.Fatalf("append across a day = %+v, want extracted with 1 buffered", res)
	}
	buf, _ := session.Of(p).Messages(ctx, "s")
	if len(buf) != 1 || buf[0].Text != "Good morning, a new day." {
		t.Fatalf("buffer after boundary = %+v", buf)
	}
	prof, err := p.Get(ctx, palace.ProfileID("alice"))
	if err != nil {
		t.Fatal(err)
	}
	data := prof.Meta["profile_data"].(map[string]any)
	if data["location"] != "Lisbon" {
		t.Errorf("profile = %v", data)
	}
	// A second extraction merges into the same profile drawer.
	if _, err := session.Of(p).Append(ctx, "s", []extract.Message{{Role: "user", SenderID: "alice", Text: "My name is Alice.", Timestamp: day0.Add(24*time.Hour + time.Minute)}}, session.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := session.Of(p).Flush(ctx, "s", session.Options{}); err != nil {
		t.Fatal(err)
	}
	prof, _ = p.Get(ctx, palace.ProfileID("alice"))
	data = prof.Meta["profile_data"].(map[string]any)
	if data["location"] != "Lisbon" || data["name"] != "Alice" {
		t.Errorf("merged profile = %v", data)
	}
	n, _ := p.Count(ctx, palace.Filter{Kinds: []string{palace.KindProfile}})
	if n != 1 {
		t.Errorf("%d profile drawers, want 1", n)
	}
}

func TestBoundaryGapAndSizeCap(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	msgs := []extract.Message{
		{Role: "user", Text: "first stretch", Timestamp: day0},
		{Role: "user", Text: "after a long gap", Timestamp: day0.Add(3 * time.Hour)},
	}
	res, err := session.Of(p).Append(ctx, "gap", msgs, session.Options{UserID: "u"})
	if err != nil || res.Status != session.Extracted || res.Buffered != 1 {
		t.Fatalf("gap: %+v %v", res, err)
	}
	var many []extract.Message
	for i := range extract.DefaultBoundaries.MaxMessages {
		many = append(many, extract.Message{Role: "user", Text: fmt.Sprintf("message %d", i), Timestamp: day0.Add(time.Duration(i) * time.Second)})
	}
	res, err = session.Of(p).Append(ctx, "cap", many, session.Options{UserID: "u"})
	if err != nil || res.Status != session.Extracted || res.Buffered != 0 {
		t.Fatalf("cap: %+v %v", res, err)
	}
}

func TestAgentTrack(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	msgs := []extract.Message{
		{Role: "user", SenderID: "alice", Text: "Fix the failing build.", Timestamp: day0},
		{Role: "assistant", SenderID: "coder", Text: "Running the tests.", Timestamp: day0.Add(time.Second),
			ToolCalls: []extract.ToolCall{{ID: "c1", Name: "run_tests", Arguments: `{"pkg":"./..."}`}}},
		{Role: "tool", ToolCallID: "c1", Text: "ok", Timestamp: day0.Add(2 * time.Second)},
		{Role: "assistant", SenderID: "coder", Text: "The fix was a missing import because the file moved.", Timestamp: day0.Add(3 * time.Second)},
	}
	if _, err := session.Of(p).Append(ctx, "run-1", msgs, session.Options{Agent: true}); err != nil {
		t.Fatal(err)
	}
	res, err := session.Of(p).Flush(ctx, "run-1", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DrawerIDs) != 1 || res.DrawerIDs[0] != "coder_ac_20260528_00000001" {
		t.Fatalf("agent flush ids = %v", res.DrawerIDs)
	}
	c, _ := p.Get(ctx, res.DrawerIDs[0])
	if c.Kind != palace.KindAgentCase || c.AgentID != "coder" || c.Meta["task_intent"] != "Fix the failing build." {
		t.Errorf("case = %+v", c)
	}
	if q, ok := c.Meta["quality_score"].(float64); !ok || q < 0 || q > 1 {
		t.Errorf("quality = %v", c.Meta["quality_score"])
	}
	// Without Agent, tool calls plus a known agent id yield an episode and a case.
	if _, err := session.Of(p).Append(ctx, "run-2", msgs, session.Options{}); err != nil {
		t.Fatal(err)
	}
	res, _ = session.Of(p).Flush(ctx, "run-2", session.Options{})
	kinds := map[string]int{}
	for _, id := range res.DrawerIDs {
		d, _ := p.Get(ctx, id)
		kinds[d.Kind]++
	}
	if kinds[palace.KindEpisode] != 1 || kinds[palace.KindAgentCase] != 1 {
		t.Errorf("auto track kinds = %v", kinds)
	}
}

func TestAppendRejectsBadInputAndStoresNothing(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	cases := []struct {
		session string
		msgs    []extract.Message
	}{
		{"", userMsgs("x")},
		{strings.Repeat("s", session.MaxIDBytes+1), userMsgs("x")},
		{"s", nil},
		{"s", []extract.Message{{Role: "system", Text: "x"}}},
		{"s", []extract.Message{{Role: "user", Text: "   "}}},
		{"s", append(userMsgs("ok"), extract.Message{Role: "user", Text: "bad\x00nul"})},
	}
	for i, c := range cases {
		_, err := session.Of(p).Append(ctx, c.session, c.msgs, session.Options{})
		if !errors.Is(err, palace.ErrInvalid) {
			t.Errorf("case %d: err = %v, want ErrInvalid", i, err)
		}
	}
	if n, _ := session.Of(p).Buffered(ctx); len(n) != 0 {
		t.Errorf("bad input buffered something: %v", n)
	}
}

func TestBufferRedactsSecrets(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	if _, err := session.Of(p).Append(ctx, "s", userMsgs("my token is "+secret), session.Options{}); err != nil {
		t.Fatal(err)
	}
	buf, _ := session.Of(p).Messages(ctx, "s")
	if strings.Contains(buf[0].Text, secret) {
		t.Fatalf("secret stored in the buffer: %q", buf[0].Text)
	}
}

// failing is an extractor that fails until told otherwise, saying why
// ("model unavailable" unless set).
type failing struct {
	mu   sync.Mutex
	fail bool
	why  string
}

func (f *failing) Name() string { return "failing" }
func (f *failing) Extract(ctx context.Context, owner string, agent bool, msgs []extract.Message) (extract.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		return extract.Result{}, errors.New(cmp.Or(f.why, "model unavailable"))
	}
	return extract.Heuristic().Extract(ctx, owner, agent, msgs)
}
func (f *failing) Facts(ctx context.Context, msgs []extract.Message) ([]extract.Fact, error) {
	return nil, nil
}

func TestFailedExtractionKeepsBufferAndRestartLosesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ext := &failing{fail: true}
	reg, err := palace.OpenRegistry(palace.Config{DataDir: dir, Extractor: ext})
	if err != nil {
		t.Fatal(err)
	}
	p, err := reg.OpenOrCreate(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.Of(p).Append(ctx, "s", userMsgs("I prefer vim.", "I use Go."), session.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := session.Of(p).Flush(ctx, "s", session.Options{}); err == nil {
		t.Fatal("flush with a failing extractor succeeded")
	}
	// Appending across a boundary with the extractor down still accepts.
	res, err := session.Of(p).Append(ctx, "s", []extract.Message{{Role: "user", Text: "later", Timestamp: day0.Add(48 * time.Hour)}}, session.Options{})
	if err != nil || res.Status != session.Accumulated || res.Buffered != 3 {
		t.Fatalf("append with failing extractor = %+v, %v", res, err)
	}
	if n, _ := p.Count(ctx, palace.Filter{}); n != 0 {
		t.Fatalf("%d drawers written by a failed extraction", n)
	}
	reg.Close()

	// Restart: the buffer is intact, and extraction now succeeds.
	ext.fail = false
	reg, err = palace.OpenRegistry(palace.Config{DataDir: dir, Extractor: ext})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	p, _ = reg.Open(ctx, "r")
	buf, _ := session.Of(p).Messages(ctx, "s")
	if len(buf) != 3 {
		t.Fatalf("after restart %d buffered, want 3", len(buf))
	}
	res, err = session.Of(p).Flush(ctx, "s", session.Options{})
	if err != nil || res.Status != session.Extracted || res.Buffered != 0 {
		t.Fatalf("flush after restart = %+v, %v", res, err)
	}
	if n, _ := p.Count(ctx, palace.Filter{Kinds: []string{palace.KindEpisode}}); n != 2 {
		t.Errorf("%d episodes, want 2 (one per stretch)", n)
	}
}

func TestConcurrentFlushesDoNotDuplicate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var regs []*palace.Registry
	for range 3 { // three registries act as three processes
		reg, err := palace.OpenRegistry(palace.Config{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer reg.Close()
		regs = append(regs, reg)
	}
	p0, err := regs[0].OpenOrCreate(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.Of(p0).Append(ctx, "s", userMsgs("I like jazz.", "I live in Oslo."), session.Options{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, reg := range regs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := reg.Open(ctx, "c")
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := session.Of(p).Flush(ctx, "s", session.Options{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n, _ := p0.Count(ctx, palace.Filter{Kinds: []string{palace.KindEpisode}}); n != 1 {
		t.Errorf("%d episodes after concurrent flushes, want 1", n)
	}
}

func TestAllocIDs(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	a, err := session.Of(p).AllocIDs(ctx, "bob", "sk", day0, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := session.Of(p).AllocIDs(ctx, "bob", "sk", day0, 1)
	want := []string{"bob_sk_20260528_00000001", "bob_sk_20260528_00000002", "bob_sk_20260528_00000003"}
	if got := append(a, b...); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ids = %v, want %v", got, want)
	}
}

// topicDetector is an extractor that also detects boundaries: a message
// starting with "NEW TOPIC" opens a stretch.
type topicDetector struct{ extract.Extractor }

func (topicDetector) Boundary(ctx context.Context, buffered []extract.Message, next extract.Message) (bool, error) {
	return strings.HasPrefix(next.Text, "NEW TOPIC"), nil
}

func TestBoundaryDetectorDecides(t *testing.T) {
	ctx := context.Background()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: t.TempDir(), Extractor: topicDetector{extract.Heuristic()}})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	p, _ := reg.OpenOrCreate(ctx, "b")
	// Three hours apart (the heuristic would split) but the detector says no.
	msgs := []extract.Message{
		{Role: "user", Text: "first", Timestamp: day0},
		{Role: "user", Text: "later, same topic", Timestamp: day0.Add(3 * time.Hour)},
	}
	res, err := session.Of(p).Append(ctx, "s", msgs, session.Options{UserID: "u"})
	if err != nil || res.Status != session.Accumulated || res.Buffered != 2 {
		t.Fatalf("no boundary: %+v %v", res, err)
	}
	res, err = session.Of(p).Append(ctx, "s", []extract.Message{{Role: "user", Text: "NEW TOPIC: gardening", Timestamp: day0.Add(3*time.Hour + time.Minute)}}, session.Options{UserID: "u"})
	if err != nil || res.Status != session.Extracted || res.Buffered != 1 || len(res.DrawerIDs) == 0 {
		t.Fatalf("detector boundary: %+v %v", res, err)
	}
	ep, _ := p.Get(ctx, res.DrawerIDs[0])
	if !strings.Contains(ep.Content, "later, same topic") || strings.Contains(ep.Content, "gardening") {
		t.Errorf("episode = %q", ep.Content)
	}
}

func TestExplicitUserOwnsEveryone(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	msgs := []extract.Message{
		{Role: "user", SenderID: "a1", Text: "I prefer dark mode.", Timestamp: day0},
		{Role: "user", SenderID: "a2", Text: "I use Linux.", Timestamp: day0.Add(time.Second)},
	}
	if _, err := session.Of(p).Append(ctx, "s", msgs, session.Options{UserID: "me"}); err != nil {
		t.Fatal(err)
	}
	res, err := session.Of(p).Flush(ctx, "s", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.DrawerIDs) != 3 || !strings.HasPrefix(res.DrawerIDs[0], "me_ep_") {
		t.Fatalf("ids = %v", res.DrawerIDs)
	}
	// Without an explicit user, each sender owns an episode of their own.
	if _, err := session.Of(p).Append(ctx, "t", msgs, session.Options{}); err != nil {
		t.Fatal(err)
	}
	res, _ = session.Of(p).Flush(ctx, "t", session.Options{})
	owners := map[string]int{}
	for _, id := range res.DrawerIDs {
		d, _ := p.Get(ctx, id)
		if d.Kind == palace.KindEpisode {
			owners[d.UserID]++
		}
	}
	if owners["a1"] != 1 || owners["a2"] != 1 {
		t.Errorf("episode owners = %v", owners)
	}
}

func TestForgottenProfileStartsAfresh(t *testing.T) {
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	say := func(id, text string) {
		t.Helper()
		if _, err := session.Of(p).Append(ctx, id, userMsgs(text), session.Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := session.Of(p).Flush(ctx, id, session.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	say("a", "I live in Lisbon.")
	if _, _, err := p.Forget(ctx, palace.ProfileID("alice")); err != nil {
		t.Fatal(err)
	}
	say("b", "My name is Alice.")
	prof, err := p.Get(ctx, palace.ProfileID("alice"))
	if err != nil {
		t.Fatal(err)
	}
	data := prof.Meta["profile_data"].(map[string]any)
	if prof.Status != palace.StatusActive || data["name"] != "Alice" || data["location"] != nil {
		t.Errorf("profile after forget = %s %v", prof.Status, data)
	}
}

// A fact said again in another session is merged into the stored one, with
// its history, instead of being stored twice.
func TestRestatedFactIsMerged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	say := func(id string, texts ...string) session.Result {
		t.Helper()
		if _, err := session.Of(p).Append(ctx, id, userMsgs(texts...), session.Options{UserID: "alice"}); err != nil {
			t.Fatal(err)
		}
		res, err := session.Of(p).Flush(ctx, id, session.Options{UserID: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	say("monday", "I moved to the Lisbon office this month.", "I bike to work most days.")
	atomic := func() []*palace.Drawer {
		t.Helper()
		ds, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{Kinds: []string{palace.KindAtomicFact}}})
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	before := atomic()
	if len(before) == 0 {
		t.Fatal("the first session gave no atomic facts")
	}
	res := say("thursday", "I moved to the Lisbon office this month.")
	after := atomic()
	if len(after) != len(before) {
		t.Fatalf("the restated fact was stored again: %d atomic facts, had %d", len(after), len(before))
	}
	var merged *palace.Drawer
	for _, d := range after {
		if strings.Contains(d.Content, "Lisbon") {
			merged = d
		}
	}
	if merged == nil {
		t.Fatal("no Lisbon fact stored")
	}
	list, _ := merged.Meta["restated"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["session_id"] != "thursday" {
		t.Fatalf("restated history = %v", merged.Meta["restated"])
	}
	found := false
	for _, id := range res.DrawerIDs {
		found = found || id == merged.ID
	}
	if !found {
		t.Fatalf("the second flush did not report the merged fact: %v", res.DrawerIDs)
	}
	hist, err := p.History(ctx, merged.ID)
	if err != nil || len(hist) != 2 {
		t.Fatalf("history of the merged fact: %d events, %v", len(hist), err)
	}
}

// A session's messages waiting for extraction are erased for good: the
// closed stretch a failed extraction left and the open one, and the error
// that failure recorded, from every file of the data dir; another
// session's buffer stays, a flush afterwards writes nothing, and a second
// purge, or one without a session id, is an error that changes nothing.
func TestPurgeMessagesErasesTheBuffer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const said, quoted = "quokkazanzibar", "kestrelmarmot"
	ext := &failing{fail: true, why: "the model choked on " + quoted}
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{DataDir: dir, Extractor: ext}), "r")
	rec := session.Of(p)
	if _, err := rec.Append(ctx, "s", userMsgs("my locker code is "+said, "I use Go."), session.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Flush(ctx, "s", session.Options{}); err == nil {
		t.Fatal("flush with a failing extractor succeeded")
	}
	if _, err := rec.Append(ctx, "s", []extract.Message{{Role: "user", Text: "later, " + said + " again", Timestamp: day0.Add(48 * time.Hour)}}, session.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Append(ctx, "other", userMsgs("the garden gate is green"), session.Options{}); err != nil {
		t.Fatal(err)
	}
	if held := palacetest.FilesHolding(t, dir, said, quoted); len(held) < 2 {
		t.Fatalf("the data dir holds %q before the purge: the check below could not fail", held)
	}
	out, err := p.PurgeMessages(ctx, "s")
	if err != nil || out.Messages != 3 || !out.Reclaimed {
		t.Fatalf("purge = %+v, %v; want 3 messages, reclaimed", out, err)
	}
	if held := palacetest.FilesHolding(t, dir, said, quoted); len(held) > 0 {
		t.Errorf("files still hold the purged messages: %q", held)
	}
	if buf, err := rec.Messages(ctx, "s"); err != nil || len(buf) != 0 {
		t.Errorf("session s still buffers %d messages (%v)", len(buf), err)
	}
	if buf, err := rec.Messages(ctx, "other"); err != nil || len(buf) != 1 {
		t.Errorf("another session's buffer: %d messages (%v), want 1", len(buf), err)
	}
	ext.fail = false
	if res, err := rec.Flush(ctx, "s", session.Options{}); err != nil || len(res.DrawerIDs) != 0 {
		t.Errorf("a flush after the purge: %+v, %v", res, err)
	}
	if n, _ := p.Count(ctx, palace.Filter{}); n != 0 {
		t.Errorf("%d memories after the purge", n)
	}
	if _, err := p.PurgeMessages(ctx, "s"); !errors.Is(err, palace.ErrNotFound) {
		t.Errorf("a second purge: %v, want not found", err)
	}
	if _, err := p.PurgeMessages(ctx, " "); !errors.Is(err, palace.ErrInvalid) {
		t.Errorf("a purge without a session id: %v, want invalid", err)
	}
	if buf, _ := rec.Messages(ctx, "other"); len(buf) != 1 {
		t.Errorf("the failed purges changed another session's buffer: %d messages", len(buf))
	}
}

// detecting is the heuristic extractor with a boundary detector of its
// own, as the LLM extractor has: it never starts a stretch by itself.
type detecting struct{ failing }

func (*detecting) Boundary(context.Context, []extract.Message, extract.Message) (bool, error) {
	return false, nil
}

// A conversation to which nothing has arrived for the boundary gap, and
// whose next message would start a new stretch, is extracted by
// FlushQuiet though its client never flushed it; one still talking, one
// whose messages are dated long ago but arrived a minute ago, and one
// whose extraction failed are left as they are. With a boundary detector
// of the extractor's own, only a new day closes a quiet conversation.
func TestFlushQuietExtractsEndedConversations(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		ext    interface{ extract.Extractor }
		closes time.Duration // the quiet after which the conversation is extracted
	}{
		{"heuristic", &failing{}, 2*time.Hour + time.Minute},
		{"detector", &detecting{}, 12*time.Hour + 31*time.Minute}, // day0 is 11:30:36 UTC: just past midnight
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := day0
			p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{Extractor: tc.ext, Now: func() time.Time { return now }}), "r")
			rec := session.Of(p)
			if _, err := rec.Append(ctx, "ended", userMsgs("I love climbing in Yosemite every spring.", "I bike to work most days."), session.Options{}); err != nil {
				t.Fatal(err)
			}
			setFail := func(v bool) {
				switch x := tc.ext.(type) {
				case *failing:
					x.fail = v
				case *detecting:
					x.fail = v
				}
			}
			setFail(true)
			if _, err := rec.Append(ctx, "failed", userMsgs("My favorite coffee shop is Blue Bottle."), session.Options{}); err != nil {
				t.Fatal(err)
			}
			if _, err := rec.Flush(ctx, "failed", session.Options{}); err == nil {
				t.Fatal("a flush with the extractor down succeeded")
			}
			setFail(false)
			quiet := func(at time.Duration) int {
				t.Helper()
				now = day0.Add(at)
				n, err := rec.FlushQuiet(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			if n := quiet(tc.closes - 2*time.Minute); n != 0 {
				t.Errorf("%d conversations extracted before they went quiet", n)
			}
			// Dated long ago, arrived just now: a client loading history.
			old := []extract.Message{{Role: "user", SenderID: "bo", Text: "We adopted a cat called Miso.", Timestamp: day0.AddDate(-3, 0, 0)}}
			if _, err := rec.Append(ctx, "history", old, session.Options{}); err != nil {
				t.Fatal(err)
			}
			if n := quiet(tc.closes); n != 1 {
				t.Errorf("%d conversations extracted once quiet, want 1 (the ended one)", n)
			}
			if buf, _ := rec.Messages(ctx, "ended"); len(buf) != 0 {
				t.Errorf("the ended conversation still buffers %d messages", len(buf))
			}
			if n, _ := p.Count(ctx, palace.Filter{Kinds: []string{palace.KindEpisode}}); n != 1 {
				t.Errorf("%d episodes, want the ended conversation's one", n)
			}
			for sid, want := range map[string]int{"history": 1, "failed": 1} {
				if buf, _ := rec.Messages(ctx, sid); len(buf) != want {
					t.Errorf("session %s buffers %d messages, want %d", sid, len(buf), want)
				}
			}
		})
	}
}

// blocking extracts as the heuristic extractor does once let go: until
// then its calls wait, the first of them saying so on entered.
type blocking struct {
	entered, letGo chan struct{}
	once           sync.Once
}

func (b *blocking) Name() string { return "blocking" }
func (b *blocking) Extract(ctx context.Context, owner string, agent bool, msgs []extract.Message) (extract.Result, error) {
	b.once.Do(func() { close(b.entered) })
	select {
	case <-b.letGo:
	case <-ctx.Done():
		return extract.Result{}, ctx.Err()
	}
	return extract.Heuristic().Extract(ctx, owner, agent, msgs)
}
func (b *blocking) Facts(context.Context, []extract.Message) ([]extract.Fact, error) { return nil, nil }

// counting extracts as the heuristic extractor does and counts its calls.
type counting struct{ calls atomic.Int32 }

func (c *counting) Name() string { return "counting" }
func (c *counting) Extract(ctx context.Context, owner string, agent bool, msgs []extract.Message) (extract.Result, error) {
	c.calls.Add(1)
	return extract.Heuristic().Extract(ctx, owner, agent, msgs)
}
func (c *counting) Facts(context.Context, []extract.Message) ([]extract.Fact, error) { return nil, nil }

// Two processes' maintenance on one palace (here two registries on one
// data dir) extract a quiet conversation once: while one is extracting
// it, a model call that can take a minute, the other leaves it alone
// instead of calling its own model for the same messages. A holder
// killed midway holds the conversation back only until its lease ends.
// Two nodes of a team palace (PostgreSQL) likewise.
func TestFlushQuietLeavesASessionAnotherIsExtracting(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		testFlushQuietLease(t, func() palace.Config { return palace.Config{DataDir: dir} })
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.URL(t)
		testFlushQuietLease(t, func() palace.Config { return palace.Config{DataDir: t.TempDir(), Store: url} })
	})
}

func testFlushQuietLease(t *testing.T, node func() palace.Config) {
	ctx := context.Background()
	clock := &palacetest.Clock{}
	slow := &blocking{entered: make(chan struct{}), letGo: make(chan struct{})}
	other := &counting{}
	open := func(ext extract.Extractor) *palace.Palace {
		cfg := node()
		cfg.Extractor, cfg.Now = ext, clock.Now
		reg, err := palace.OpenRegistry(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { reg.Close() })
		p, err := reg.OpenOrCreate(ctx, "r")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := session.Of(open(slow)), session.Of(open(other))
	said := func(rec session.Recorder, sid string, texts ...string) {
		t.Helper()
		msgs := make([]extract.Message, len(texts))
		for i, text := range texts {
			msgs[i] = extract.Message{Role: "user", SenderID: "alice", Text: text, Timestamp: clock.Now().Add(time.Duration(i) * time.Second)}
		}
		if _, err := rec.Append(ctx, sid, msgs, session.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	flushQuiet := func(rec session.Recorder) int {
		t.Helper()
		n, err := rec.FlushQuiet(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	said(a, "ended", "I love climbing in Yosemite every spring.", "I bike to work most days.")
	clock.Advance(2*time.Hour + time.Minute)
	done := make(chan int)
	go func() {
		n, err := a.FlushQuiet(ctx)
		if err != nil {
			t.Error(err)
		}
		done <- n
	}()
	<-slow.entered
	if n := flushQuiet(b); n != 0 || other.calls.Load() != 0 {
		t.Errorf("while another process extracted the conversation, this one extracted %d and called its model %d times", n, other.calls.Load())
	}
	close(slow.letGo)
	if n := <-done; n != 1 {
		t.Errorf("the process holding the lease extracted %d conversations, want 1", n)
	}
	if buf, _ := b.Messages(ctx, "ended"); len(buf) != 0 {
		t.Errorf("%d messages still buffered", len(buf))
	}

	// A holder killed while extracting leaves its lease behind.
	said(b, "next", "My sister moved to Lisbon last month.")
	clock.Advance(2*time.Hour + time.Minute)
	p := open(other)
	if err := p.Write(ctx, func(tx *palace.Tx) error {
		ok, err := tx.Store().Sessions().Lease(ctx, "next", "killed", tx.Now(), tx.Now().Add(session.ExtractionLease))
		if err == nil && !ok {
			err = errors.New("lease not taken")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(session.ExtractionLease - time.Second)
	if n := flushQuiet(b); n != 0 {
		t.Errorf("%d extracted under another's lease", n)
	}
	clock.Advance(time.Second)
	if n := flushQuiet(b); n != 1 || other.calls.Load() != 1 {
		t.Errorf("once the lease ran out: %d extracted, %d model calls; want 1 and 1", n, other.calls.Load())
	}
	// A client's own flush does not wait for a lease.
	said(b, "asked", "We booked the cabin for June.")
	if err := p.Write(ctx, func(tx *palace.Tx) error {
		_, err := tx.Store().Sessions().Lease(ctx, "asked", "killed", tx.Now(), tx.Now().Add(session.ExtractionLease))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if res, err := b.Flush(ctx, "asked", session.Options{}); err != nil || res.Status != session.Extracted {
		t.Errorf("a flush under another's lease: %+v, %v", res, err)
	}
}
