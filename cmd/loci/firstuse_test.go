package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The first minutes with the CLI (issue 16), in text mode as a person
// sees them: remember says the fact waits for review and how to approve
// it; recall says when nothing matched and that facts are pending; bare
// `loci review` lists the queue; after approval recall finds the fact.
func TestFirstUseRememberReviewRecall(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out := runCLI(t, home, "text", args...)
		if out.code != 0 {
			t.Fatalf("loci %v: exit %d\n%s", args, out.code, out.stderr)
		}
		return out.stdout
	}
	if got := run("remember", "--palace", "p", "We deploy on Tuesdays"); !strings.Contains(got, "`loci review approve mem-0001 --palace p` makes it recallable") {
		t.Errorf("remember did not say how the fact becomes recallable:\n%s", got)
	}
	got := run("recall", "--palace", "p", "how do we deploy")
	if !strings.Contains(got, `nothing matched "how do we deploy"`) || !strings.Contains(got, "1 staged fact(s) await review") {
		t.Errorf("recall before approval:\n%s", got)
	}
	if got := run("review", "--palace", "p"); !strings.Contains(got, "mem-0001") || !strings.Contains(got, "We deploy on Tuesdays") {
		t.Errorf("bare review did not list the queue:\n%s", got)
	}
	run("review", "approve", "mem-0001", "--palace", "p")
	got = run("recall", "--palace", "p", "how do we deploy")
	if !strings.Contains(got, "mem-0001") || strings.Contains(got, "nothing matched") || strings.Contains(got, "await review") {
		t.Errorf("recall after approval:\n%s", got)
	}
	j := runCLI(t, home, "json", "recall", "--palace", "p", "zebra crossing")
	if j.env.Data["pending_review"] != float64(0) {
		t.Errorf("recall JSON: pending_review = %v, want 0", j.env.Data["pending_review"])
	}
}

// `loci export --palace X > file` writes the export, not an envelope, and
// the summary goes to stderr; the file imports back.
func TestExportToStdout(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	runCLI(t, home, "json", "remember", "--palace", "p", "We deploy on Tuesdays")
	stdout, stderr, code := runLociOnce(t, home, cliEnvVars, "", "export", "--palace", "p")
	if code != 0 || !strings.HasPrefix(stdout, `{"type":"header","format":"loci-palace"`) || !strings.Contains(stdout, "We deploy on Tuesdays") {
		t.Fatalf("export to stdout: exit %d\nstdout: %.300s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, `"ok":true`) || !strings.Contains(stderr, `"path":"-"`) {
		t.Errorf("the summary envelope should be on stderr: %s", stderr)
	}
	file := t.TempDir() + "/p.jsonl"
	if err := os.WriteFile(file, []byte(stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := runCLI(t, home, "json", "import", "--palace", "q", file); out.code != 0 || out.env.Data["stats"].(map[string]any)["drawers"] != float64(1) {
		t.Errorf("import of the stdout export: %+v", out.env)
	}
	// An error goes to stderr too, and stdout stays empty.
	stdout, stderr, code = runLociOnce(t, home, cliEnvVars, "", "export", "--palace", "nope")
	if code != 1 || stdout != "" || !strings.Contains(stderr, `"not_found"`) {
		t.Errorf("export of a missing palace: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
}

// Text output shows a custom room as people named it ("Ops"), not in its
// stored form (Custom(Ops)), which JSON keeps.
func TestRoomsAsNamedInText(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	stdout := exportedFact(t, home, "We deploy on Tuesdays")
	file := t.TempDir() + "/ops.jsonl"
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(stdout, `"room":"General"`, `"room":"Custom(Ops)"`)), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, home, "json", "import", "--palace", "q", file)
	if out := runCLI(t, home, "text", "recall", "--all", "--palace", "q", "deploy"); !strings.Contains(out.stdout, "[Ops/fact]") {
		t.Errorf("recall --all text: want [Ops/fact]:\n%s", out.stdout)
	}
	if out := runCLI(t, home, "text", "palace", "info", "q"); !strings.Contains(out.stdout, "Ops (1)") || strings.Contains(out.stdout, "Custom(") {
		t.Errorf("palace info text:\n%s", out.stdout)
	}
	if out := runCLI(t, home, "json", "recall", "--all", "--palace", "q", "deploy"); !strings.Contains(out.stdout, `"room":"Custom(Ops)"`) {
		t.Errorf("JSON keeps the stored form:\n%s", out.stdout)
	}
}

// One palace rule for the CLI, the hooks and `serve --palace auto`:
// outside a git repository a command without --palace works on "default".
func TestDefaultPalaceOutsideGit(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], append(args, "--format", "json")...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+home), cliEnvVars...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("loci %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if got := run("remember", "We deploy on Tuesdays"); !strings.Contains(got, `"palace":"default"`) {
		t.Errorf("remember outside git: %s", got)
	}
	if got := run("review", "list"); !strings.Contains(got, "We deploy on Tuesdays") {
		t.Errorf("review outside git: %s", got)
	}
}

// `loci http` prints ready-to-paste client configuration for /mcp, with
// the real port, and names the token's variable without printing it.
func TestHTTPPrintsClientConfig(t *testing.T) {
	t.Parallel()
	const token = "tok-7f3a9c2e4b1d6f80a5c3"
	cmd := exec.Command(os.Args[0], "http", "--addr", "127.0.0.1:0")
	cmd.Env = append(append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+t.TempDir(), "LOCI_EMBEDDER=hash", "LOCI_HTTP_TOKEN="+token), cliEnvVars...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	out := readUntil(t, bufio.NewReader(stderr), `"mcpServers"`)
	m := regexp.MustCompile(`http://127\.0\.0\.1:(\d+)/mcp`).FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("no MCP URL with the bound port:\n%s", out)
	}
	for _, want := range []string{"claude mcp add --transport http loci http://127.0.0.1:" + m[1] + "/mcp", "Bearer $LOCI_HTTP_TOKEN", `"Bearer ${LOCI_HTTP_TOKEN}"`} {
		if !strings.Contains(out, want) {
			t.Errorf("client config lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, token) {
		t.Errorf("the token itself was printed:\n%s", out)
	}
}

// `loci stats` gives the numbers people ask about a palace, in text and
// JSON: counts by kind, room and status, facts pending, growth, top tags
// and index health.
func TestStats(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	runCLI(t, home, "json", "remember", "--palace", "p", "--kind", "tooling", "I prefer pnpm over npm")
	runCLI(t, home, "json", "remember", "--palace", "p", "We deploy on Tuesdays")
	runCLI(t, home, "json", "review", "approve", "mem-0001", "--palace", "p")
	j := runCLI(t, home, "json", "stats", "--palace", "p", "--days", "3")
	if j.code != 0 {
		t.Fatalf("stats: exit %d\n%s", j.code, j.stdout)
	}
	d := j.env.Data
	growth, _ := d["growth"].(map[string]any)
	daily, _ := growth["daily"].([]any)
	tags, _ := d["top_tags"].([]any)
	idx, _ := d["index"].(map[string]any)
	if d["active"] != float64(1) || d["pending_review"] != float64(1) || growth["last_24h"] != float64(1) || len(daily) != 3 ||
		len(tags) != 1 || idx["vector"] == nil || d["bytes_on_disk"].(float64) <= 0 {
		t.Errorf("stats JSON:\n%s", j.stdout)
	}
	txt := runCLI(t, home, "text", "stats", "--palace", "p")
	for _, want := range []string{"palace p: 1 active memories", "kinds     fact 1", "1 fact(s) await review", "top tags  tooling 1", "index     vectors 1"} {
		if !strings.Contains(txt.stdout, want) {
			t.Errorf("stats text lacks %q:\n%s", want, txt.stdout)
		}
	}
	if bad := runCLI(t, home, "json", "stats", "--palace", "p", "--days", "0"); bad.code != 2 {
		t.Errorf("--days 0: exit %d", bad.code)
	}
	if missing := runCLI(t, home, "json", "stats", "--palace", "nope"); missing.code != 1 || missing.env.Error.Type != "not_found" {
		t.Errorf("stats of a missing palace: %s", missing.stdout)
	}
}

// `loci recall --all` finds a long memory by a phrase from its middle:
// JSON gives the whole text with the matched passage (as memory_recall
// does), and a line of text shows its opening and that passage, not the
// whole text.
func TestRecallAllShowsTheMatchedPassage(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	stdout := exportedFact(t, home, "We deploy on Tuesdays")
	var filler []string
	for i := range 2000 {
		filler = append(filler, fmt.Sprintf("filler%d", i%97))
	}
	filler[1200] = "the zeppelin rudder hinge cracked during inspection"
	long := strings.Join(filler, " ")
	file := t.TempDir() + "/long.jsonl"
	if err := os.WriteFile(file, []byte(strings.Replace(stdout, "We deploy on Tuesdays", long, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, home, "json", "import", "--palace", "q", file)

	out := runCLI(t, home, "json", "recall", "--all", "--palace", "q", "zeppelin rudder hinge")
	results, _ := out.env.Data["results"].([]any)
	if len(results) != 1 {
		t.Fatalf("recall --all: want the long memory once: %+v", out.env.Data)
	}
	m := results[0].(map[string]any)
	if m["content"] != long || !strings.Contains(fmt.Sprint(m["excerpt"]), "zeppelin rudder hinge") || m["passage"] == nil {
		t.Errorf("recall --all JSON: want the whole text, the matched passage and its excerpt; excerpt %q passage %v", m["excerpt"], m["passage"])
	}
	text := runCLI(t, home, "text", "recall", "--all", "--palace", "q", "zeppelin rudder hinge").stdout
	if !strings.Contains(text, "filler0 filler1") || !strings.Contains(text, "zeppelin rudder hinge") || len(text) > 1000 {
		t.Errorf("recall --all text: want the opening and the matched passage on one short line, got %d bytes:\n%.600s", len(text), text)
	}
	// --max-content-chars cuts the JSON content, as memory_recall's
	// max_content_chars does, and says so; a negative bound is refused.
	out = runCLI(t, home, "json", "recall", "--all", "--palace", "q", "zeppelin rudder hinge", "--max-content-chars", "300")
	results, _ = out.env.Data["results"].([]any)
	if len(results) != 1 {
		t.Fatalf("recall --all --max-content-chars: %+v", out.env.Data)
	}
	m = results[0].(map[string]any)
	content := fmt.Sprint(m["content"])
	if len([]rune(content)) > 300 || m["content_truncated"] != true || m["content_chars"] != float64(len(long)) ||
		!strings.HasPrefix(content, "filler0 filler1") || !strings.Contains(content, "zeppelin rudder hinge") {
		t.Errorf("recall --all --max-content-chars 300: content_truncated %v, content_chars %v, content %q",
			m["content_truncated"], m["content_chars"], content)
	}
	if o := runCLI(t, home, "json", "recall", "--all", "--palace", "q", "x", "--max-content-chars", "-1"); o.code != 2 || o.env.Error == nil || o.env.Error.Type != "invalid_args" {
		t.Errorf("--max-content-chars -1: exit %d %s", o.code, o.stdout)
	}
}

// exportedFact remembers fact in palace p of home, approves it, and
// returns `loci export` of p: one approved fact in the General room, as
// JSONL to rewrite and import elsewhere.
func exportedFact(t *testing.T, home, fact string) string {
	t.Helper()
	runCLI(t, home, "json", "remember", "--palace", "p", fact)
	runCLI(t, home, "json", "review", "approve", "mem-0001", "--palace", "p")
	stdout, _, code := runLociOnce(t, home, cliEnvVars, "", "export", "--palace", "p")
	if code != 0 || !strings.Contains(stdout, `"room":"General"`) || !strings.Contains(stdout, fact) {
		t.Fatalf("export: exit %d\n%.400s", code, stdout)
	}
	return stdout
}

// A format asked for as a flag of its own ("--json", as many tools spell
// it) is refused with a hint that names --format; a flag misspelt or
// named as other tools name it, with the flag it likely means; another
// unknown flag is sent to the usage; and nothing is stored by any.
func TestAFormatAskedForAsAFlagIsNamed(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, c := range []struct {
		args []string
		hint string
	}{
		{[]string{"recall", "--json", "how do we deploy"}, "Use --format json"},
		{[]string{"note", "--yaml", "We deploy on Tuesdays"}, "Use --format yaml"},
		{[]string{"recall", "--jsn", "how do we deploy"}, "Run `loci recall -h` for usage"},
		{[]string{"recall", "--all", "--topk", "3", "how do we deploy"}, "Did you mean --limit? Run `loci recall -h` for usage"},
		{[]string{"note", "--room_name", "Backend", "We deploy on Tuesdays"}, "Did you mean --room? Run `loci note -h` for usage"},
	} {
		o := runCLI(t, home, "json", c.args...)
		if o.code != 2 || o.env.Error == nil || o.env.Error.Type != "invalid_args" || o.env.Error.Hint != c.hint {
			t.Errorf("loci %v: exit %d, error %+v; want invalid_args with the hint %q", c.args, o.code, o.env.Error, c.hint)
		}
	}
	// A command outside the envelope says it on stderr.
	if _, stderr, code := runLociOnce(t, home, cliEnvVars, "", "serve", "--palase", "p"); code != 2 ||
		!strings.Contains(stderr, "flag provided but not defined: -palase; did you mean --palace?") {
		t.Errorf("serve --palase: exit %d, stderr %q", code, stderr)
	}
	// The refused notes made no palace, let alone a memory.
	if o := runCLI(t, home, "json", "recall", "--all", "deploy"); o.env.Error == nil || o.env.Error.Type != "not_found" {
		t.Errorf("after refused calls: recall --all %+v, %+v; want no palace", o.env.Data, o.env.Error)
	}
}
