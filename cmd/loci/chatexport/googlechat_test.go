package chatexport

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Google Chat's part of a Takeout: a space, named, whose topic of two
// messages is a thread of its own and whose other messages (one a photo
// without text) are the space's; a direct conversation named by its
// people; the export user's own file left out. Times are UTC, their
// narrow no-break space read as a space.
func TestReadGoogleChat(t *testing.T) {
	root := filepath.Join(t.TempDir(), "takeout-20230601")
	for name, body := range map[string]string{
		"Google Chat/Groups/Space AAAA/group_info.json": `{"name":"Climbing","members":[{"name":"Ana Kim","email":"ana@example.com","user_type":"Human"},{"name":"Ben Ode","email":"ben@example.com","user_type":"Human"}]}`,
		"Google Chat/Groups/Space AAAA/messages.json": `{"messages":[
			{"creator":{"name":"Ana Kim","email":"ana@example.com","user_type":"Human"},"created_date":"Friday, May 12, 2023 at 2:02:33\u202fPM UTC","text":"who brings the rope on Saturday?","topic_id":"T1","message_id":"AAAA/T1/T1"},
			{"creator":{"name":"Ben Ode","email":"ben@example.com","user_type":"Human"},"created_date":"Friday, May 12, 2023 at 2:05:00 PM UTC","text":"the gym is closed on Monday","topic_id":"T2","message_id":"AAAA/T2/T2"},
			{"creator":{"name":"Ben Ode","email":"ben@example.com","user_type":"Human"},"created_date":"Friday, May 12, 2023 at 2:06:10 PM UTC","text":"me, the 60m one","topic_id":"T1","message_id":"AAAA/T1/x1"},
			{"creator":{"name":"Ana Kim","email":"ana@example.com","user_type":"Human"},"created_date":"Friday, May 12, 2023 at 2:07:00 PM UTC","attached_files":[{"original_name":"topo.jpg","export_name":"File-topo.jpg"}],"topic_id":"T3","message_id":"AAAA/T3/T3"}]}`,
		"Google Chat/Groups/Space AAAA/File-topo.jpg": "\xff\xd8",
		"Google Chat/Groups/DM bbbb/group_info.json":  `{"members":[{"name":"Ana Kim","email":"ana@example.com"},{"name":"Cy","email":"cy@example.com"}]}`,
		"Google Chat/Groups/DM bbbb/messages.json":    `{"messages":[{"creator":{"name":"Cy","email":"cy@example.com"},"created_date":"Thursday, May 11, 2023 at 9:00:00 AM UTC","text":"lunch?","topic_id":"D1","message_id":"bbbb/D1/D1"}]}`,
		"Google Chat/Users/User 1/user_info.json":     `{"user":{"name":"Ana Kim"}}`,
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(body), 0o600)
	}
	chats, err := Open(root, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	at := func(d, h, m, s int) time.Time { return time.Date(2023, 5, d, h, m, s, 0, time.UTC) }
	want := []*Chat{
		{ID: "DM bbbb", Name: "Ana Kim, Cy", Format: FormatGoogleChat, Messages: []Message{
			{Sender: "Cy", Time: at(11, 9, 0, 0), Text: "lunch?", Line: 1, ID: "bbbb/D1/D1"},
		}},
		{ID: "Space AAAA/T1", Name: "Climbing: who brings the rope on Saturday?", Format: FormatGoogleChat, Messages: []Message{
			{Sender: "Ana Kim", Time: at(12, 14, 2, 33), Text: "who brings the rope on Saturday?", Line: 1, ID: "AAAA/T1/T1"},
			{Sender: "Ben Ode", Time: at(12, 14, 6, 10), Text: "me, the 60m one", Line: 2, ID: "AAAA/T1/x1"},
		}},
		{ID: "Space AAAA", Name: "Climbing", Format: FormatGoogleChat, Messages: []Message{
			{Sender: "Ben Ode", Time: at(12, 14, 5, 0), Text: "the gym is closed on Monday", Line: 1, ID: "AAAA/T2/T2"},
			{Sender: "Ana Kim", Time: at(12, 14, 7, 0), Text: "[Photo]", Line: 2, ID: "AAAA/T3/T3"},
		}},
	}
	mustReadAs(t, chats, want)
	// One conversation's messages.json is read alone, its format told
	// from it.
	one, err := Open(filepath.Join(root, "Google Chat/Groups/DM bbbb/messages.json"), OpenOptions{})
	if err != nil || len(one) != 1 || one[0].Format != FormatGoogleChat || len(one[0].Messages) != 1 {
		t.Errorf("one messages.json: %v", err)
	}
	// A date in another form is refused with its message.
	bad := filepath.Join(t.TempDir(), "messages.json")
	os.WriteFile(bad, []byte(`{"messages":[{"creator":{"name":"Cy"},"created_date":"2023-05-11 09:00","text":"hi","topic_id":"a"}]}`), 0o600)
	if _, err := Open(bad, OpenOptions{}); err == nil {
		t.Error("a date in another form read")
	}
}
