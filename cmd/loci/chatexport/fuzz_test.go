package chatexport

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Whatever a file holds, reading it as a WhatsApp export ends in chats or
// an error: every message has a sender and valid UTF-8 text, and messages
// come in the order of their lines.
func FuzzWhatsApp(f *testing.F) {
	for _, s := range []string{
		"12/05/2023, 14:02 - Ana: hi\nthere\n12/05/2023, 14:03 - Ben: yo",
		"[3/4/23, 12:05:09\u202fAM] Ana: \u200e<attached: 0001-PHOTO.jpg>",
		"2023-04-03, 10:00 - Ana added Ben",
		"\ufeff31/12/99, 23:59 - +44 7700 900123: \xff\x00",
	} {
		f.Add(s, "")
		f.Add(s, OrderMDY)
	}
	f.Fuzz(func(t *testing.T, export, order string) {
		c, err := ReadWhatsApp(strings.NewReader(export), "Ana", order)
		if err != nil {
			return
		}
		last := 0
		for _, m := range c.Messages {
			if m.Sender == "" || !utf8.ValidString(m.Text) || strings.Contains(m.Text, "\x00") || m.Line <= last {
				t.Fatalf("message %+v after line %d", m, last)
			}
			last = m.Line
		}
	})
}

// Whatever a file holds, reading it as LINE's export ends in a chat or
// an error: every message has a sender and valid UTF-8 text, and
// messages come in the order of their lines.
func FuzzLINE(f *testing.F) {
	f.Add("[LINE] Chat history with Ana\nSaved on: 2023/05/13 10:00\n\n2023/05/12(Fri)\n14:02\tAna\thi\n14:05\tBen\t\"a\nb\"\n")
	f.Add("[LINE] 与安娜的聊天记录\n\nSat, 5/13/2023\n下午2:00\tBen\t\"\n14:06\t\tAna left\n")
	f.Fuzz(func(t *testing.T, export string) {
		c, err := readLINE([]byte(export), "Ana")
		if err != nil {
			return
		}
		last := 0
		for _, m := range c.Messages {
			if m.Sender == "" || !utf8.ValidString(m.Text) || m.Text == "" || m.Line <= last {
				t.Fatalf("message %+v after line %d", m, last)
			}
			last = m.Line
		}
	})
}

// Whatever a file holds, reading it as a JSON export (ChatGPT's or
// Claude's, Telegram's, Messenger's, a Discord channel's, a day of a
// Slack channel, a Google Chat conversation) ends in chats or an error, and every message has a
// sender and valid UTF-8 text.
func FuzzJSONExports(f *testing.F) {
	f.Add(chatGPTExport)
	f.Add(claudeExport)
	f.Add(telegramExport)
	f.Add(`{"participants":[{"name":"Ana"}],"thread_path":"inbox/a","messages":[{"sender_name":"Ana","timestamp_ms":1,"content":"caf\u00c3\u00a9"}]}`)
	f.Add(`[{"conversation_id":"c","current_node":"a","mapping":{"a":{"parent":"a"}}}]`)
	f.Add(`{"guild":{"name":"G"},"channel":{"id":"1","name":"c"},"messages":[{"type":"Default","timestamp":"2023-05-12T14:02:10+02:00","content":"<@8> <:a:1>","author":{"name":"ben"},"mentions":[{"id":"8","name":"ana"}]}]}`)
	f.Add(`[{"type":"message","user":"U1","text":"<@U1> <https://x|y> &amp;","ts":"1683900000.000001","thread_ts":"1683900000.000001"}]`)
	f.Add(`{"messages":[{"creator":{"name":"Cy"},"created_date":"Thursday, May 11, 2023 at 9:00:00 AM UTC","text":"hi","topic_id":"a"},{"creator":{"name":"Ana"},"created_date":"Thursday, May 11, 2023 at 9:01:00 AM UTC","text":"yo","topic_id":"a"}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		for _, read := range []func([]byte) ([]*Chat, error){
			ReadAssistantChats, readTelegram,
			func(b []byte) ([]*Chat, error) { return readMessenger("message_1.json", b) },
			func(b []byte) ([]*Chat, error) { return readDiscord("c.json", b) },
			func(b []byte) ([]*Chat, error) {
				return readGoogleChat([]*exportFile{memFile("Groups/Space A/messages.json", string(b))})
			},
			func(b []byte) ([]*Chat, error) {
				return readSlack([]*exportFile{memFile("users.json", `[{"id":"U1","name":"ana"}]`), memFile("general/2023-05-12.json", string(b))})
			},
		} {
			chats, err := read([]byte(data))
			if err != nil {
				continue
			}
			for _, c := range chats {
				for _, m := range c.Messages {
					if m.Sender == "" || !utf8.ValidString(m.Text) || m.Text == "" {
						t.Fatalf("%s message %+v", c.Format, m)
					}
				}
			}
		}
	})
}
