package chatexport

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// Telegram's result.json of one chat: a text of entities joined, media
// without text as the lines other exports write, a sticker as its emoji,
// the app's service messages left out, a reply naming the message it
// answers.
const telegramExport = `{"name":"Ana","type":"personal_chat","id":4242,"messages":[
 {"id":1,"type":"service","date":"2023-05-12T14:00:00","actor":"Ana","action":"phone_call"},
 {"id":2,"type":"message","date":"2023-05-12T14:02:33","from":"Ana","text":["we adopted ",{"type":"bold","text":"Pixel"},", a greyhound"]},
 {"id":3,"type":"message","date":"2023-05-12T14:02:40","from":"Ana","photo":"photos/photo_1.jpg","text":""},
 {"id":4,"type":"message","date":"2023-05-12T14:03:00","from":"Ben","media_type":"sticker","sticker_emoji":"😍","file":"stickers/s.webp","text":""},
 {"id":5,"type":"message","date":"2023-05-12T14:04:00","from":"Ben","media_type":"voice_message","file":"voice/v.ogg","text":""},
 {"id":6,"type":"message","date":"2023-05-12T14:05:00","from":"Ben","text":"what breed is she?","reply_to_message_id":2}
]}`

func TestReadTelegram(t *testing.T) {
	chats, err := readTelegram([]byte(telegramExport))
	if err != nil || len(chats) != 1 {
		t.Fatalf("%d chats, %v", len(chats), err)
	}
	c := chats[0]
	want := []Message{
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 2, 33), Text: "we adopted Pixel, a greyhound", Line: 2, ID: "2"},
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 2, 40), Text: "[Photo]", Line: 3, ID: "3"},
		{Sender: "Ben", Time: at(2023, 5, 12, 14, 3, 0), Text: "😍", Line: 4, ID: "4"},
		{Sender: "Ben", Time: at(2023, 5, 12, 14, 4, 0), Text: "[Voice message]", Line: 5, ID: "5"},
		{Sender: "Ben", Time: at(2023, 5, 12, 14, 5, 0), Text: "what breed is she?", Line: 6, ID: "6", ReplyTo: "2"},
	}
	if c.ID != "4242" || c.Name != "Ana" || SessionID(c) != "telegram:4242" || c.AppLines != 1 || !reflect.DeepEqual(c.Messages, want) {
		t.Errorf("read %+v", c)
	}
	// Every chat's export holds them in "chats": {"list": […]}.
	all := `{"about":"…","chats":{"about":"…","list":[` + telegramExport + `,{"name":"Cy","type":"personal_chat","id":7,"messages":[]}]}}`
	if chats, err := readTelegram([]byte(all)); err != nil || len(chats) != 2 || len(chats[0].Messages) != 5 || chats[1].Name != "Cy" {
		t.Errorf("every chat: %d chats, %v", len(chats), err)
	}
}

// A Messenger thread comes newest first, in files message_1.json,
// message_2.json…, its text's UTF-8 written a byte a character.
func TestReadMessenger(t *testing.T) {
	part1 := `{"participants":[{"name":"Ana"},{"name":"Ben"}],"title":"Ana","thread_path":"inbox/ana_123","messages":[
	 {"sender_name":"Ben","timestamp_ms":1683900300000,"content":"caf\u00c3\u00a9 tomorrow?"},
	 {"sender_name":"Ana","timestamp_ms":1683900200000,"photos":[{"uri":"photos/1.jpg"}]},
	 {"sender_name":"Ana","timestamp_ms":1683900150000,"content":"","is_unsent":true}]}`
	part2 := `{"participants":[{"name":"Ana"},{"name":"Ben"}],"title":"Ana","thread_path":"inbox/ana_123","messages":[
	 {"sender_name":"Ana","timestamp_ms":1683900100000,"content":"we adopted a greyhound"}]}`
	chats, err := readEach([]*exportFile{memFile("message_1.json", part1), memFile("message_2.json", part2)}, readMessenger)
	if err != nil || len(chats) != 1 {
		t.Fatalf("%d chats, %v", len(chats), err)
	}
	ms := func(v int64) time.Time { return time.UnixMilli(v).UTC() }
	want := []Message{
		{Sender: "Ana", Time: ms(1683900100000), Text: "we adopted a greyhound", Line: 1},
		{Sender: "Ana", Time: ms(1683900150000), Text: "Ana unsent a message", Line: 2},
		{Sender: "Ana", Time: ms(1683900200000), Text: "[Photo]", Line: 3},
		{Sender: "Ben", Time: ms(1683900300000), Text: "café tomorrow?", Line: 4},
	}
	if c := chats[0]; SessionID(c) != "messenger:inbox/ana_123" || !reflect.DeepEqual(c.Messages, want) {
		t.Errorf("read %+v", c.Messages)
	}
}

func TestMojibake(t *testing.T) {
	for in, want := range map[string]string{
		"caf\u00c3\u00a9":          "café",
		"\u00f0\u009f\u0098\u008d": "😍",
		"café":                     "café", // its bytes are no UTF-8: written as it is
		"plain":                    "plain",
		"日本":                       "日本",
	} {
		if got := mojibake(in); got != want {
			t.Errorf("mojibake(%q) = %q, want %q", in, got, want)
		}
	}
}

// Open tells Telegram's and Meta's exports from their fields, alone or in
// the .zip of a whole download (every thread's message_N.json).
func TestOpenMessengerExports(t *testing.T) {
	dir := t.TempDir()
	result := filepath.Join(dir, "result.json")
	os.WriteFile(result, []byte(telegramExport), 0o600)
	if chats, err := Open(result, OpenOptions{}); err != nil || len(chats) != 1 || chats[0].Format != FormatTelegram {
		t.Errorf("result.json: %v", err)
	}
	zipped := filepath.Join(dir, "facebook-ana.zip")
	writeZip(t, zipped, map[string]string{
		"your_facebook_activity/messages/inbox/ana_123/message_1.json": `{"participants":[{"name":"Ana"}],"title":"Ana","thread_path":"inbox/ana_123","messages":[{"sender_name":"Ana","timestamp_ms":1683900100000,"content":"hi"}]}`,
		"your_facebook_activity/messages/inbox/cy_9/message_1.json":    `{"participants":[{"name":"Cy"}],"title":"Cy","thread_path":"inbox/cy_9","messages":[{"sender_name":"Cy","timestamp_ms":1683900000000,"content":"yo"}]}`,
		"your_facebook_activity/messages/inbox/ana_123/photos/1.jpg":   "\xff\xd8",
	})
	chats, err := Open(zipped, OpenOptions{})
	if err != nil || len(chats) != 2 || chats[0].Name != "Cy" || chats[1].Name != "Ana" || chats[0].Format != FormatMessenger {
		t.Fatalf("Meta's download: %d chats, %v", len(chats), err)
	}
}
