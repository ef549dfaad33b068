package chatexport

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A channel exported by DiscordChatExporter, in two parts, and a direct
// conversation: Discord's own messages left out and counted, mentions
// and custom emoji read as Discord shows them, a sticker, an attachment
// and an embed without text stored as lines, the wall clock kept, a
// reply naming the message it answers.
func TestReadDiscord(t *testing.T) {
	part1 := `{"guild":{"id":"1","name":"Climbing Club"},"channel":{"id":"10","type":"GuildTextChat","category":"Trips","name":"planning"},
	  "messages":[
	    {"id":"100","type":"GuildMemberJoin","timestamp":"2023-05-12T14:00:00+02:00","content":"","author":{"id":"7","name":"ben","nickname":"Ben"}},
	    {"id":"101","type":"Default","timestamp":"2023-05-12T14:02:10.5+02:00","content":"<@8> are we still on for Fontainebleau? <:chalk:555>","author":{"id":"7","name":"ben","nickname":"Ben"},"mentions":[{"id":"8","name":"ana.k","nickname":"Ana"}]},
	    {"id":"102","type":"Reply","timestamp":"2023-05-12T14:03:00+02:00","content":"yes, the 20th","author":{"id":"8","name":"ana.k","nickname":null},"reference":{"messageId":"101"}}
	  ]}`
	part2 := `{"guild":{"id":"1","name":"Climbing Club"},"channel":{"id":"10","type":"GuildTextChat","category":"Trips","name":"planning"},
	  "messages":[
	    {"id":"103","type":"Default","timestamp":"2023-05-12T14:05:00+02:00","content":"","author":{"id":"8","name":"ana.k"},"attachments":[{"fileName":"topo.JPG"}]},
	    {"id":"104","type":"Default","timestamp":"2023-05-12T14:06:00+02:00","content":"","author":{"id":"8","name":"ana.k"},"stickers":[{"id":"1","name":"wave"}]},
	    {"id":"105","type":"Default","timestamp":"2023-05-12T14:07:00+02:00","content":"","author":{"id":"9","name":"Weather","isBot":true},"embeds":[{"title":"Forecast","description":"Sunny, 24°C"}]},
	    {"id":"106","type":"ChannelPinnedMessage","timestamp":"2023-05-12T14:08:00+02:00","content":"","author":{"id":"7","name":"ben"}}
	  ]}`
	dm := `{"guild":{"id":"0","name":"Direct Messages"},"channel":{"id":"20","type":"DirectTextChat","category":"Private","name":"ana.k"},
	  "messages":[{"id":"200","type":"Default","timestamp":"2023-05-11T09:00:00+00:00","content":"bring the rope","author":{"id":"7","name":"ben"}}]}`
	dir := t.TempDir()
	for name, body := range map[string]string{"Climbing Club - Trips - planning [10].json": part1, "Climbing Club - Trips - planning [10] [part 2].json": part2, "Direct Messages - ana.k [20].json": dm, "planning_Files/topo.JPG": "\xff\xd8"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600)
	}
	chats, err := Open(dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The export's instants: its wall clock at +02:00.
	at := func(h, m, s, ns int) time.Time { return time.Date(2023, 5, 12, h-2, m, s, ns, time.UTC) }
	want := []*Chat{
		{ID: "20", Name: "ana.k", Format: FormatDiscord, Messages: []Message{
			{Sender: "ben", Time: time.Date(2023, 5, 11, 9, 0, 0, 0, time.UTC), Text: "bring the rope", Line: 1, ID: "200"},
		}},
		{ID: "10", Name: "Climbing Club › #planning", Format: FormatDiscord, AppLines: 2, Messages: []Message{
			{Sender: "Ben", Time: at(14, 2, 10, 5e8), Text: "@Ana are we still on for Fontainebleau? :chalk:", Line: 1, ID: "101"},
			{Sender: "ana.k", Time: at(14, 3, 0, 0), Text: "yes, the 20th", Line: 2, ID: "102", ReplyTo: "101"},
			{Sender: "ana.k", Time: at(14, 5, 0, 0), Text: "[Photo]", Line: 3, ID: "103"},
			{Sender: "ana.k", Time: at(14, 6, 0, 0), Text: "[Sticker]", Line: 4, ID: "104"},
			{Sender: "Weather", Time: at(14, 7, 0, 0), Text: "Forecast\nSunny, 24°C", Line: 5, ID: "105"},
		}},
	}
	mustReadAs(t, chats, want)

	// One channel's file is read alone, its format told from it.
	one, err := Open(filepath.Join(dir, "Direct Messages - ana.k [20].json"), OpenOptions{})
	if err != nil || len(one) != 1 || one[0].Format != FormatDiscord {
		t.Errorf("one file: %v", err)
	}
	// A .json beside the channels that is not one is refused by name.
	os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`{"a":1}`), 0o600)
	if _, err := Open(dir, OpenOptions{}); err == nil {
		t.Error("a folder with a .json that is no channel read")
	}
}
