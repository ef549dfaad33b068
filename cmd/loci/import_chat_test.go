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
	if o.code != 0 || o.env.Data["chat"] != "Ana" || o.env.Data["session_id"] != "whatsapp:Ana" || o.env.Data["messages"] != float64(3) ||
		o.env.Data["app_lines"] != float64(1) || stats["stored"] != float64(3) || o.env.Data["first"] != "2023-05-12T14:02:00Z" {
		t.Fatalf("import: %d %s", o.code, o.stdout)
	}
	if o := runCLI(t, home, "text", "import", chat, "--palace", "chats"); o.code != 0 || !strings.Contains(o.stdout, "0 messages (3 already there)") {
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
		{[]string{"import", chat, "--palace", "chats", "--from", "telegram"}, "--from must be loci or whatsapp"},
		{[]string{"import", jsonl, "--palace", "chats", "--name", "Ana"}, "--name is for a chat"},
	} {
		if o := runCLI(t, home, "json", c.args...); o.code != 2 || o.env.Error == nil || o.env.Error.Type != "invalid_args" || !strings.Contains(o.env.Error.Message, c.want) {
			t.Errorf("%v: %d %s", c.args, o.code, o.stdout)
		}
	}
	if o := runCLI(t, home, "json", "recall", "--all", "hi", "--palace", "chats"); strings.Contains(o.stdout, `"content":"Ana: hi"`) {
		t.Errorf("a refused file stored a message: %s", o.stdout)
	}
}
