package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// `loci note` stores a memory as memory_remember does, recallable at
// once: from its arguments or from stdin, with a room, tags, a session
// and a speaker (stored as the text's label); a bad flag is refused in the
// CLI's envelope with exit code 2 and nothing is stored.
func TestCLINoteStoresAMemory(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	o := runCLI(t, home, "json", "note", "We", "deploy", "on", "Fridays", "--room", "Backend", "--tags", "ops, deploy", "--palace", "q")
	if o.code != 0 || o.env.Data["status"] != "stored" || o.env.Data["room"] != "Backend" || o.env.Data["drawer_id"] == "" {
		t.Fatalf("note: %d %s %s", o.code, o.stdout, o.stderr)
	}
	stdout, stderr, code := runLociOnce(t, home, cliEnvVars, "I adopted a greyhound named Biscuit\n",
		"note", "-", "--palace", "q", "--speaker", "Ana", "--session", "chat-1", "--timestamp", "2024-03-02T09:15:00Z", "--format", "json")
	var env cliEnvelope
	if err := json.Unmarshal([]byte(stdout), &env); err != nil || code != 0 {
		t.Fatalf("note from stdin: %d %s %s", code, stdout, stderr)
	}
	if env.Data["speaker"] != "Ana" || env.Data["session"] != "chat-1" || env.Data["timestamp"] != "2024-03-02T09:15:00Z" {
		t.Errorf("note from stdin answered %v", env.Data)
	}
	o = runCLI(t, home, "json", "recall", "--all", "what dog did Ana adopt", "--palace", "q")
	if o.code != 0 || !strings.Contains(o.stdout, `"content":"Ana: I adopted a greyhound named Biscuit"`) || !strings.Contains(o.stdout, `"session":"chat-1","speaker":"Ana"`) {
		t.Errorf("recall of the note: %s", o.stdout)
	}
	o = runCLI(t, home, "json", "recall", "--all", "when do we deploy", "--palace", "q")
	if !strings.Contains(o.stdout, `"content":"We deploy on Fridays"`) || !strings.Contains(o.stdout, `"tags":["ops","deploy"]`) {
		t.Errorf("recall of the first note: %s", o.stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"note", "--palace", "q"}, "missing TEXT"},
		{[]string{"note", "hi", "--palace", "q", "--speaker", "Dr: Who"}, "--speaker contains a colon"},
		{[]string{"note", "hi", "--palace", "q", "--session", "sk-proj-" + strings.Repeat("a1B2", 12)}, "--session looks like a credential"},
		{[]string{"note", "hi", "--palace", "q", "--timestamp", "yesterday"}, "--timestamp must be RFC 3339"},
		{[]string{"note", "hi", "--palace", "q", "--importance", "2"}, "--importance must be between 0.01 and 1"},
		{[]string{"note", "hi", "--palace", "q", "--reply-to", "nope"}, `reply_to: no memory "nope"`},
	} {
		if o := runCLI(t, home, "json", c.args...); o.code != 2 || o.env.Error == nil || o.env.Error.Type != "invalid_args" || !strings.Contains(o.env.Error.Message, c.want) {
			t.Errorf("%v: %d %s", c.args, o.code, o.stdout)
		}
	}
	// Stdin past the limit of a memory says so, not the size of what was read of it.
	stdout, _, code = runLociOnce(t, home, cliEnvVars, strings.Repeat("a", 5<<20), "note", "-", "--palace", "q", "--format", "json")
	if code != 2 || !strings.Contains(stdout, "stdin holds more than 4194304 bytes") {
		t.Errorf("note of 5 MiB from stdin: %d %s", code, stdout)
	}
	o = runCLI(t, home, "json", "recall", "--all", "hi deploy greyhound", "--palace", "q", "--limit", "50")
	if n := strings.Count(o.stdout, `"id":`); n != 2 {
		t.Errorf("after the refused notes recall finds %d memories, want 2: %s", n, o.stdout)
	}
}
