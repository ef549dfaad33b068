package chatexport

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// A workspace's export: users.json and the conversation lists at its top,
// a folder a conversation of a file a day.
var slackExport = map[string]string{
	"users.json": `[{"id":"U1","name":"ana.k","real_name":"Ana Kim","profile":{"display_name":"Ana","real_name":"Ana Kim"}},
		{"id":"U2","name":"ben","real_name":"Ben Ode","profile":{"display_name":"","real_name":"Ben Ode"}}]`,
	"channels.json":         `[{"id":"C1","name":"general","members":["U1","U2"]},{"id":"C2","name":"random"}]`,
	"dms.json":              `[{"id":"D1","members":["U1","U2"]}]`,
	"integration_logs.json": `[]`,
	"general/2023-05-12.json": `[
		{"type":"message","subtype":"channel_join","user":"U2","text":"<@U2> has joined the channel","ts":"1683900000.000100"},
		{"type":"message","user":"U1","text":"we moved the standup to 10 &amp; <@U2> runs it, notes in <https://docs.example.com/standup|the doc>","ts":"1683900100.000200"},
		{"type":"message","user":"U2","text":"who owns the flaky <#C2|random> bot?","ts":"1683900200.000300","thread_ts":"1683900200.000300","reply_count":2},
		{"type":"message","user":"U1","text":"me, it retries twice","ts":"1683900260.000400","thread_ts":"1683900200.000300","parent_user_id":"U2"},
		{"type":"message","user":"U1","text":"","ts":"1683900300.000500","files":[{"mimetype":"image/png","name":"chart.png"}]},
		{"type":"message","subtype":"bot_message","username":"CI","bot_id":"B1","text":"build 42 is green","ts":"1683900400.000600"},
		{"type":"message","user":"U1","text":"release on friday?","ts":"1683900500.000700","thread_ts":"1683900500.000700","reply_count":3}
	]`,
	"general/2023-05-13.json": `[
		{"type":"message","subtype":"thread_broadcast","user":"U2","text":"I turned retries off","ts":"1683990000.000100","thread_ts":"1683900200.000300"}
	]`,
	"D1/2023-05-12.json": `[{"type":"message","user":"U2","text":"lunch at 1?","ts":"1683890000.000000"}]`,
	"general/chart.png":  "\x89PNG",
}

// Each channel, direct conversation and thread is a chat: a thread holds
// its first message and its replies (one sent to the channel too, one a
// day later), in the order sent; Slack's markup is read as Slack shows it;
// its own lines are left out and counted; a thread whose replies are not
// in the export stays in its channel.
func TestReadSlack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Acme Slack export May 2023.zip")
	writeZip(t, path, slackExport)
	chats, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := func(sec, us int64) time.Time { return time.Unix(sec, us*1000).UTC() }
	want := []*Chat{
		{ID: "D1", Name: "Ana, Ben Ode", Format: FormatSlack, Messages: []Message{
			{Sender: "Ben Ode", Time: ts(1683890000, 0), Text: "lunch at 1?", Line: 1},
		}},
		{ID: "C1", Name: "#general", Format: FormatSlack, AppLines: 1, Messages: []Message{
			{Sender: "Ana", Time: ts(1683900100, 200), Text: "we moved the standup to 10 & @Ben Ode runs it, notes in the doc (https://docs.example.com/standup)", Line: 1},
			{Sender: "Ana", Time: ts(1683900300, 500), Text: "[Photo]", Line: 2},
			{Sender: "CI", Time: ts(1683900400, 600), Text: "build 42 is green", Line: 3},
			{Sender: "Ana", Time: ts(1683900500, 700), Text: "release on friday?", Line: 4},
		}},
		{ID: "C1/1683900200.000300", Name: "#general: who owns the flaky #random bot?", Format: FormatSlack, Messages: []Message{
			{Sender: "Ben Ode", Time: ts(1683900200, 300), Text: "who owns the flaky #random bot?", Line: 1},
			{Sender: "Ana", Time: ts(1683900260, 400), Text: "me, it retries twice", Line: 2},
			{Sender: "Ben Ode", Time: ts(1683990000, 100), Text: "I turned retries off", Line: 3},
		}},
	}
	mustReadAs(t, chats, want)
	if got := SessionID(chats[2]); got != "slack:C1/1683900200.000300" {
		t.Errorf("a thread's session is %q", got)
	}

	// The folder the .zip unpacks to, under a folder of its own, is the
	// same export.
	dir := filepath.Join(t.TempDir(), "export")
	for name, body := range slackExport {
		p := filepath.Join(dir, "Acme", filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(body), 0o600)
	}
	var read, total int
	unpacked, err := Open(dir, OpenOptions{Progress: func(n, of int) { read, total = n, of }})
	if err != nil || !reflect.DeepEqual(unpacked, want) {
		t.Errorf("the unpacked export: %v", err)
	}
	// Progress counts the files read: three lists and three days.
	if read != 6 || total != 6 {
		t.Errorf("progress ended at %d of %d files", read, total)
	}
}

func TestSlackText(t *testing.T) {
	users := map[string]string{"U1": "Ana"}
	channels := map[string]string{"C9": "ops"}
	for in, want := range map[string]string{
		"<@U1> and <@U7>":                        "@Ana and @U7",
		"<@U1|ana.k> ok":                         "@ana.k ok",
		"see <#C9>":                              "see #ops",
		"<!here> <!channel>":                     "@here @channel",
		"<!subteam^S1|@oncall> ping":             "@oncall ping",
		"<!date^1392734382^{date_short}|Feb 18>": "Feb 18",
		"<https://x.io>":                         "https://x.io",
		"<https://x.io|https://x.io>":            "https://x.io",
		"<mailto:a@x.io|a@x.io>":                 "a@x.io",
		"a &lt;b&gt; &amp;amp; c":                "a <b> &amp; c",
		":tada: shipped":                         ":tada: shipped",
	} {
		if got := slackText(in, users, channels); got != want {
			t.Errorf("slackText(%q) = %q, want %q", in, got, want)
		}
	}
}

// A file that is no Slack export, named as one, is refused with what was
// looked for; a conversation list that is no JSON is refused by name.
func TestReadSlackRefuses(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.json")
	os.WriteFile(notes, []byte(`{"a":1}`), 0o600)
	if _, err := Open(notes, OpenOptions{Format: FormatSlack}); err == nil {
		t.Error("a .json read as a Slack export")
	}
	bad := filepath.Join(dir, "bad.zip")
	writeZip(t, bad, map[string]string{"users.json": `{`, "general/2023-05-12.json": `[]`})
	if _, err := Open(bad, OpenOptions{}); err == nil {
		t.Error("a users.json that is no JSON read")
	}
}

// A thread is stored as a session of its own: its reply borrows the
// message it answers, not the channel's message sent between them, and
// is found by the words of the question it answers.
func TestStoreSlackThread(t *testing.T) {
	chats, err := readSlack([]*exportFile{
		memFile("users.json", `[{"id":"U1","profile":{"display_name":"Ana"}},{"id":"U2","profile":{"display_name":"Ben"}}]`),
		memFile("general/2023-05-12.json", `[
			{"type":"message","user":"U2","text":"who owns the flaky deploy bot?","ts":"1683900000.000001","thread_ts":"1683900000.000001"},
			{"type":"message","user":"U2","text":"lunch order is in: tacos from the place on 5th","ts":"1683900060.000001"},
			{"type":"message","user":"U1","text":"me, I'll switch its retries off","ts":"1683900120.000001","thread_ts":"1683900000.000001"}]`),
	})
	if err != nil || len(chats) != 2 {
		t.Fatalf("%d chats, %v", len(chats), err)
	}
	p := palacetest.MustOpenPalace(t)
	ctx := context.Background()
	for _, c := range chats {
		if _, err := Store(ctx, p, c, StoreOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	thread := chats[1]
	reply, err := p.Get(ctx, Drawers(thread, "")[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reply.Keywords, "flaky deploy bot") || strings.Contains(reply.Keywords, "tacos") || reply.SessionID != "slack:general/1683900000.000001" {
		t.Errorf("the reply (session %s) borrowed %q", reply.SessionID, reply.Keywords)
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "Who owns the flaky deploy bot?", K: 2, NoAccess: true})
	if err != nil || len(hits) < 2 || hits[0].Drawer.ID != reply.ID && hits[1].Drawer.ID != reply.ID {
		t.Errorf("the reply not among the first two: %v, %d hits", err, len(hits))
	}
}
