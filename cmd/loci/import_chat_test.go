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
	if o.code != 0 || !strings.Contains(o.stdout, `"content":"Ana: we adopted a greyhound called Pixel"`) || !strings.Contains(o.stdout, `"timestamp":"2023-05-12T14:02:00Z"`) ||
		!strings.Contains(o.stdout, `"session":"whatsapp:Ana","speaker":"Ana"`) {
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
		{[]string{"import", chat, "--palace", "chats", "--from", "signal"}, "--from must be loci, claude-code, whatsapp, line, telegram, messenger, slack, discord, google-chat, chatgpt, claude or auto"},
		{[]string{"import", jsonl, "--palace", "chats", "--name", "Ana"}, "--name is for chats"},
		{[]string{"import", jsonl, "--palace", "chats", "--dry-run"}, "--dry-run is for chats"},
		{[]string{"import", jsonl, "--palace", "chats", "--chat", "Ana"}, "--chat is for chats"},
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

// A Slack workspace's export, unpacked to a folder, is told from its
// files: a channel and each of its threads a session, found by what they
// say; a second import stores nothing, and read as another app's export
// the folder is refused with nothing stored.
func TestCLIImportSlack(t *testing.T) {
	t.Parallel()
	home, work := t.TempDir(), t.TempDir()
	export := filepath.Join(work, "Acme Slack export")
	for name, body := range map[string]string{
		"users.json":    `[{"id":"U1","profile":{"display_name":"Ana"}},{"id":"U2","profile":{"real_name":"Ben Ode"}}]`,
		"channels.json": `[{"id":"C1","name":"ops"}]`,
		"ops/2023-05-12.json": `[
			{"type":"message","subtype":"channel_join","user":"U1","text":"<@U1> has joined the channel","ts":"1683900000.000001"},
			{"type":"message","user":"U2","text":"which region is the staging database in?","ts":"1683900060.000001","thread_ts":"1683900060.000001"},
			{"type":"message","user":"U1","text":"eu-west-1, next to the build runners","ts":"1683900120.000001","thread_ts":"1683900060.000001"},
			{"type":"message","user":"U1","text":"standup moved to 10","ts":"1683900180.000001"}]`,
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(export, name)), 0o700)
		os.WriteFile(filepath.Join(export, name), []byte(body), 0o600)
	}
	// --dry-run lists the chats and stores nothing; --chat of a name no
	// chat has is refused with the names there are.
	o := runCLI(t, home, "json", "import", export, "--palace", "team", "--dry-run")
	if listed, _ := o.env.Data["chats"].([]any); o.code != 0 || len(listed) != 2 || o.env.Data["dry_run"] != true {
		t.Fatalf("dry run: %d %s", o.code, o.stdout)
	}
	if o := runCLI(t, home, "text", "import", export, "--palace", "team", "--dry-run"); o.code != 0 || !strings.Contains(o.stdout, "holds 2 chats, 3 messages (nothing stored)") || !strings.Contains(o.stdout, "#ops  slack:C1  1 messages") {
		t.Fatalf("dry run, text: %d %s", o.code, o.stdout)
	}
	if o := runCLI(t, home, "json", "recall", "--all", "staging database", "--palace", "team"); strings.Contains(o.stdout, "eu-west-1") {
		t.Fatalf("a dry run stored: %s", o.stdout)
	}
	if o := runCLI(t, home, "json", "import", export, "--palace", "team", "--chat", "#dev"); o.code != 2 || o.env.Error == nil || !strings.Contains(o.env.Error.Message, "holds no chat named #dev") || !strings.Contains(o.env.Error.Hint, "#ops") {
		t.Fatalf("--chat of no chat: %d %s", o.code, o.stdout)
	}
	// A channel's name takes its threads too.
	o = runCLI(t, home, "json", "import", export, "--palace", "team", "--chat", "#OPS")
	stats, _ := o.env.Data["stats"].(map[string]any)
	chats, _ := o.env.Data["chats"].([]any)
	if o.code != 0 || len(chats) != 2 || stats["stored"] != float64(3) {
		t.Fatalf("import: %d %s", o.code, o.stdout)
	}
	thread, channel := chats[0].(map[string]any), chats[1].(map[string]any) // in the order they began
	if channel["chat"] != "#ops" || channel["session_id"] != "slack:C1" || channel["app_lines"] != float64(1) || channel["format"] != "slack" ||
		thread["chat"] != "#ops: which region is the staging database in?" || thread["session_id"] != "slack:C1/1683900060.000001" || thread["messages"] != float64(2) {
		t.Fatalf("the chats: %v", chats)
	}
	if o := runCLI(t, home, "text", "import", export, "--palace", "team"); o.code != 0 || !strings.Contains(o.stdout, "imported 2 chats into team: 0 messages stored, 3 already there") {
		t.Fatalf("second import: %d %s", o.code, o.stdout)
	}
	o = runCLI(t, home, "json", "recall", "--all", "where does the staging database run?", "--palace", "team")
	// The answer first: it borrowed the question of its thread.
	if i := strings.Index(o.stdout, `"content":"Ana: eu-west-1, next to the build runners"`); o.code != 0 || i < 0 || i > strings.Index(o.stdout, "which region") {
		t.Fatalf("recall: %s", o.stdout)
	}
	if o := runCLI(t, home, "json", "import", export, "--palace", "other", "--from", "discord"); o.code != 2 || o.env.Error == nil || !strings.Contains(o.env.Error.Message, "not DiscordChatExporter's") {
		t.Fatalf("read as Discord's: %d %s", o.code, o.stdout)
	}
	if o := runCLI(t, home, "json", "import", export, "--palace", "other", "--from", "loci"); o.code != 2 || o.env.Error == nil || !strings.Contains(o.env.Error.Message, "is a directory") {
		t.Fatalf("read as a palace export: %d %s", o.code, o.stdout)
	}
}

// A Discord channel exported by DiscordChatExporter is told from its
// guild and channel; Discord's own messages are counted, not stored.
func TestCLIImportDiscord(t *testing.T) {
	t.Parallel()
	home, work := t.TempDir(), t.TempDir()
	export := filepath.Join(work, "Climbing Club - Trips - planning [10].json")
	os.WriteFile(export, []byte(`{"guild":{"id":"1","name":"Climbing Club"},"channel":{"id":"10","type":"GuildTextChat","category":"Trips","name":"planning"},"messages":[
		{"id":"1","type":"GuildMemberJoin","timestamp":"2023-05-12T14:00:00+02:00","content":"","author":{"name":"ben"}},
		{"id":"2","type":"Default","timestamp":"2023-05-12T14:02:00+02:00","content":"which crag on Saturday?","author":{"name":"ben"}},
		{"id":"3","type":"Reply","timestamp":"2023-05-12T14:03:00+02:00","content":"Fontainebleau, the Bas Cuvier boulders","author":{"name":"ana.k","nickname":"Ana"},"reference":{"messageId":"2"}}]}`), 0o600)
	o := runCLI(t, home, "json", "import", export, "--palace", "club")
	chats, _ := o.env.Data["chats"].([]any)
	if o.code != 0 || len(chats) != 1 {
		t.Fatalf("import: %d %s", o.code, o.stdout)
	}
	if one := chats[0].(map[string]any); one["chat"] != "Climbing Club › #planning" || one["session_id"] != "discord:10" || one["format"] != "discord" ||
		one["messages"] != float64(2) || one["app_lines"] != float64(1) || one["first"] != "2023-05-12T12:02:00Z" {
		t.Fatalf("the chat: %v", one)
	}
	o = runCLI(t, home, "json", "recall", "--all", "where are we climbing on Saturday?", "--palace", "club")
	if i := strings.Index(o.stdout, `"content":"Ana: Fontainebleau, the Bas Cuvier boulders"`); o.code != 0 || i < 0 {
		t.Fatalf("recall: %s", o.stdout)
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
