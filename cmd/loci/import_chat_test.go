package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `loci import` of a chat exported from WhatsApp stores its messages as
// turns with their senders and times; importing it again stores nothing
// new; what is no export, and flags that do not apply, are refused with
// nothing stored.
func TestCLIImportWhatsAppChat(t *testing.T) {
	t.Parallel()
	home, work := t.TempDir(), t.TempDir()
	chat := filepath.Join(work, "WhatsApp Chat with Ana.txt")
	os.WriteFile(chat, []byte("12/05/2023, 14:02 - Messages and calls are end-to-end encrypted.\n"+
		"12/05/2023, 14:02 - Ana: we adopted a greyhound called Pixel\n"+
		"12/05/2023, 14:05 - Ben: so cute, what breed is she?\n"+
		"12/05/2023, 14:06 - Ana: a rescue from the track\nshe is four\n"), 0o600)
	o := runCLI(t, home, "json", "import", chat, "--palace", "chats")
	stats, _ := o.env.Data["stats"].(map[string]any)
	chats, _ := o.env.Data["chats"].([]any)
	if o.code != 0 || len(chats) != 1 || stats["stored"] != float64(3) || stats["skipped"] != float64(0) {
		t.Fatalf("import: %d %s", o.code, o.stdout)
	}
	if one := chats[0].(map[string]any); one["chat"] != "Ana" || one["session_id"] != "whatsapp:Ana" || one["messages"] != float64(3) ||
		one["app_lines"] != float64(1) || one["first"] != "2023-05-12T14:02:00Z" || one["format"] != "whatsapp" {
		t.Fatalf("the chat: %v", one)
	}
	if o := runCLI(t, home, "text", "import", chat, "--palace", "chats"); o.code != 0 || !strings.Contains(o.stdout, "imported 1 chat into chats: 0 messages stored, 3 already there") {
		t.Fatalf("second import: %d %s", o.code, o.stdout)
	}
	o = runCLI(t, home, "json", "recall", "--all", "greyhound", "--palace", "chats")
	if o.code != 0 || !strings.Contains(o.stdout, `"content":"Ana: we adopted a greyhound called Pixel"`) || !strings.Contains(o.stdout, `"timestamp":"2023-05-12T14:02:00Z"`) {
		t.Fatalf("recall: %s", o.stdout)
	}
	notChat := filepath.Join(work, "notes.txt")
	os.WriteFile(notChat, []byte("buy milk\n12/05/2023, 14:02 - Ana: hi\n"), 0o600)
	jsonl := filepath.Join(work, "palace.jsonl")
	os.WriteFile(jsonl, []byte("{}\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", notChat, "--palace", "chats"}, "line 1 is no WhatsApp message"},
		{[]string{"import", chat, "--palace", "chats", "--date-order", "ymd"}, "--date-order must be dmy or mdy"},
		{[]string{"import", chat, "--palace", "chats", "--from", "signal"}, "--from must be loci, claude-code, whatsapp, telegram, messenger, chatgpt, claude or auto"},
		{[]string{"import", jsonl, "--palace", "chats", "--name", "Ana"}, "--name is for chats"},
		{[]string{"import", chat, "--palace", "chats", "--from", "chatgpt"}, "not a list of conversations"},
		{[]string{"import", chat, "--palace", "chats", "--from", "telegram"}, "not Telegram's result.json"},
		{[]string{"import", chat, "--palace", "chats", "--on-conflict", "fail"}, "--on-conflict is for a palace export"},
	} {
		if o := runCLI(t, home, "json", c.args...); o.code != 2 || o.env.Error == nil || o.env.Error.Type != "invalid_args" || !strings.Contains(o.env.Error.Message, c.want) {
			t.Errorf("%v: %d %s", c.args, o.code, o.stdout)
		}
	}
	if o := runCLI(t, home, "json", "recall", "--all", "hi", "--palace", "chats"); strings.Contains(o.stdout, `"content":"Ana: hi"`) {
		t.Errorf("a refused file stored a message: %s", o.stdout)
	}
}

// ChatGPT's conversations.json is told from the file: each conversation a
// session of the user's and the assistant's messages, found by what they
// say and recalled as the user's words when asked in the first person.
func TestCLIImportChatGPT(t *testing.T) {
	t.Parallel()
	home, work := t.TempDir(), t.TempDir()
	export := filepath.Join(work, "conversations.json")
	os.WriteFile(export, []byte(`[{"title":"Deploying the API","create_time":1683900000,"conversation_id":"c-1","current_node":"n3","mapping":{
		"n1":{"parent":null,"message":{"author":{"role":"user"},"create_time":1683900010,"content":{"content_type":"text","parts":["we deploy on a Raspberry Pi 4, which database fits?"]},"metadata":{}}},
		"n2":{"parent":"n1","message":{"author":{"role":"assistant"},"create_time":1683900030,"content":{"content_type":"text","parts":["SQLite: one file, no server to run on the Pi."]},"metadata":{}}},
		"n3":{"parent":"n2","message":{"author":{"role":"user"},"create_time":1683900090,"content":{"content_type":"text","parts":["ok, SQLite it is"]},"metadata":{}}}}}]`), 0o600)
	o := runCLI(t, home, "json", "import", export, "--palace", "gpt")
	chats, _ := o.env.Data["chats"].([]any)
	if o.code != 0 || len(chats) != 1 || chats[0].(map[string]any)["session_id"] != "chatgpt:c-1" || chats[0].(map[string]any)["messages"] != float64(3) {
		t.Fatalf("import: %d %s", o.code, o.stdout)
	}
	o = runCLI(t, home, "json", "recall", "--all", "which database did I choose for the Pi?", "--palace", "gpt")
	if o.code != 0 || !strings.Contains(o.stdout, `"content":"user: ok, SQLite it is"`) {
		t.Fatalf("recall: %s", o.stdout)
	}
}

// Claude Code sessions' transcripts (a .jsonl that is one) are told from a
// palace export and stored as the hooks store a session: each turn once,
// the session summarised.
func TestCLIImportClaudeCodeSessions(t *testing.T) {
	t.Parallel()
	home, work := t.TempDir(), t.TempDir()
	var transcript []byte
	for _, f := range []string{"turn1.jsonl", "turn2.jsonl"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "hooks", f))
		if err != nil {
			t.Fatal(err)
		}
		transcript = append(transcript, b...)
	}
	const session = "5f0c9a52-1b7e-4d0a-9c4e-000000000001"
	path := filepath.Join(work, session+".jsonl")
	os.WriteFile(path, transcript, 0o600)
	o := runCLI(t, home, "json", "import", path, "--palace", "cc")
	stats, _ := o.env.Data["stats"].(map[string]any)
	if o.code != 0 || o.env.Data["format"] != "claude-code" || stats["stored"] != float64(2) || stats["summaries"] != float64(1) {
		t.Fatalf("import: %d %s", o.code, o.stdout)
	}
	if o := runCLI(t, home, "text", "import", path, "--palace", "cc"); o.code != 0 || !strings.Contains(o.stdout, "0 turns stored, 2 already there") {
		t.Fatalf("second import: %d %s", o.code, o.stdout)
	}
	o = runCLI(t, home, "json", "recall", "--all", "authentication in the API gateway", "--palace", "cc")
	if o.code != 0 || !strings.Contains(o.stdout, "Validate JWT bearer tokens at the gateway") {
		t.Fatalf("recall: %s", o.stdout)
	}
	if o := runCLI(t, home, "json", "import", path, "--palace", "cc", "--room", "x"); o.code != 2 || !strings.Contains(o.env.Error.Message, "--room does not apply to Claude Code sessions") {
		t.Errorf("--room: %d %s", o.code, o.stdout)
	}
}
