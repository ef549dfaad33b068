package chatexport

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A ChatGPT conversation is read along the branch shown (current_node up
// to the root): a reply regenerated on another branch, the system prompt,
// a tool's message, a hidden one and an image part are left out.
const chatGPTExport = `[{"title":"Deploying the API","create_time":1683900000.5,"conversation_id":"c-1","current_node":"n5",
 "mapping":{
  "root":{"id":"root","message":null,"parent":null,"children":["n0"]},
  "n0":{"id":"n0","parent":"root","message":{"author":{"role":"system"},"create_time":null,"content":{"content_type":"text","parts":[""]},"metadata":{"is_visually_hidden_from_conversation":true}}},
  "n1":{"id":"n1","parent":"n0","message":{"author":{"role":"user"},"create_time":1683900010,"content":{"content_type":"multimodal_text","parts":[{"content_type":"image_asset_pointer"},"we deploy on a Raspberry Pi 4, which database fits?"]},"metadata":{}}},
  "n2":{"id":"n2","parent":"n1","message":{"author":{"role":"assistant"},"create_time":1683900020,"content":{"content_type":"text","parts":["An old answer, regenerated."]},"metadata":{}}},
  "n3":{"id":"n3","parent":"n1","message":{"author":{"role":"tool"},"create_time":1683900025,"content":{"content_type":"text","parts":["search results"]},"metadata":{}}},
  "n4":{"id":"n4","parent":"n3","message":{"author":{"role":"assistant"},"create_time":1683900030,"content":{"content_type":"text","parts":["SQLite: one file,\nno server."]},"metadata":{}}},
  "n5":{"id":"n5","parent":"n4","message":{"author":{"role":"user"},"create_time":1683900090,"content":{"content_type":"text","parts":["ok, SQLite it is"]},"metadata":{}}}
 }}]`

const claudeExport = `[{"uuid":"u-1","name":"Trip to Lisbon","created_at":"2024-03-02T09:15:00Z","chat_messages":[
  {"uuid":"m1","sender":"human","text":"I land in Lisbon on Friday at 9","created_at":"2024-03-02T09:15:10.250Z","content":[]},
  {"uuid":"m2","sender":"assistant","text":"","created_at":"2024-03-02T09:15:20Z","content":[{"type":"text","text":"Take the metro's red line"},{"type":"tool_use"},{"type":"text","text":"to the centre."}]},
  {"uuid":"m3","sender":"human","text":"","created_at":"2024-03-02T09:16:00Z","content":[]}
 ]}]`

func TestReadChatGPT(t *testing.T) {
	chats, err := ReadAssistantChats([]byte(chatGPTExport))
	if err != nil || len(chats) != 1 {
		t.Fatalf("%d chats, %v", len(chats), err)
	}
	c := chats[0]
	sec := func(s int64) time.Time { return time.Unix(s, 0).UTC() }
	want := []Message{
		{Sender: RoleUser, Time: sec(1683900010), Text: "we deploy on a Raspberry Pi 4, which database fits?", Line: 3},
		{Sender: RoleAssistant, Time: sec(1683900030), Text: "SQLite: one file,\nno server.", Line: 5},
		{Sender: RoleUser, Time: sec(1683900090), Text: "ok, SQLite it is", Line: 6},
	}
	if c.ID != "c-1" || c.Name != "Deploying the API" || c.Format != FormatChatGPT || SessionID(c) != "chatgpt:c-1" || !reflect.DeepEqual(c.Messages, want) {
		t.Errorf("read %+v", c)
	}
}

func TestReadClaude(t *testing.T) {
	chats, err := ReadAssistantChats([]byte(claudeExport))
	if err != nil || len(chats) != 1 {
		t.Fatalf("%d chats, %v", len(chats), err)
	}
	c := chats[0]
	want := []Message{
		{Sender: RoleUser, Time: time.Date(2024, 3, 2, 9, 15, 10, 250e6, time.UTC), Text: "I land in Lisbon on Friday at 9", Line: 1},
		{Sender: RoleAssistant, Time: time.Date(2024, 3, 2, 9, 15, 20, 0, time.UTC), Text: "Take the metro's red line\nto the centre.", Line: 2},
	}
	if c.ID != "u-1" || c.Name != "Trip to Lisbon" || SessionID(c) != "claude:u-1" || !reflect.DeepEqual(c.Messages, want) {
		t.Errorf("read %+v", c)
	}
}

func TestReadAssistantChatsRefuses(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"title":"x"}`, "not a list of conversations"},
		{`[{"title":"x"}]`, "conversation 1 is neither ChatGPT's"},
		{`[{"mapping":{},"current_node":"a"}]`, "no conversation_id"},
		{`[{"conversation_id":"c","mapping":{},"current_node":"a"}]`, `node "a" is not in its mapping`},
		{`[{"chat_messages":[]}]`, "no uuid"},
	} {
		if _, err := ReadAssistantChats([]byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.data, err, c.want)
		}
	}
}

// Open tells the format from the file: a .json or a .zip holding
// conversations.json is an assistant's export, ChatGPT's or Claude's by
// its fields, and a format given must be the file's.
func TestOpenAssistantExports(t *testing.T) {
	dir := t.TempDir()
	gpt := filepath.Join(dir, "conversations.json")
	os.WriteFile(gpt, []byte(chatGPTExport), 0o600)
	zipped := filepath.Join(dir, "claude-export.zip")
	writeZip(t, zipped, map[string]string{"conversations.json": claudeExport, "users.json": "[]"})
	if chats, err := Open(gpt, OpenOptions{}); err != nil || len(chats) != 1 || chats[0].Format != FormatChatGPT {
		t.Errorf("conversations.json: %v", err)
	}
	if chats, err := Open(zipped, OpenOptions{}); err != nil || len(chats) != 1 || chats[0].Format != FormatClaude {
		t.Errorf("claude's zip: %v", err)
	}
	if _, err := Open(zipped, OpenOptions{Format: FormatChatGPT}); err == nil || !strings.Contains(err.Error(), "is claude's export, not chatgpt's") {
		t.Errorf("a format that is not the file's: %v", err)
	}
	if _, err := Open(gpt, OpenOptions{Format: "signal"}); err == nil || !strings.Contains(err.Error(), `unknown format "signal"`) {
		t.Errorf("an unknown format: %v", err)
	}
}
