package hostconfig

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// codexConfig (testdata/codex-config.toml) is a Codex config with the things a careless editor breaks:
// comments, another server with sub-tables, a multi-line string holding a
// line that looks like loci's header, an array spanning lines, and an
// array of tables.
var codexConfig = func() string {
	b, err := os.ReadFile("testdata/codex-config.toml")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func TestTOMLInstallAndRemove(t *testing.T) {
	block := tomlServerBlock("loci", `/opt/lo"ci/bin\loci`, []string{"serve", "--palace", "auto"})
	if got, want := block[1], `command = "/opt/lo\"ci/bin\\loci"`; got != want {
		t.Errorf("command line %s, want %s", got, want)
	}
	out, changed, err := tomlInstallServer(codexConfig, "loci", block)
	if err != nil || !changed {
		t.Fatalf("install: changed=%v err=%v", changed, err)
	}
	want := codexConfig + "\n" + strings.Join(block, "\n") + "\n"
	if out != want {
		t.Fatalf("installed document:\n%s\nwant:\n%s", out, want)
	}
	again, changed, err := tomlInstallServer(out, "loci", block)
	if err != nil || changed || again != out {
		t.Fatalf("second install changed=%v err=%v", changed, err)
	}
	back, changed := tomlRemoveServer(out, "loci")
	if !changed || back != codexConfig {
		t.Fatalf("remove: changed=%v\n%s", changed, back)
	}
	if _, changed := tomlRemoveServer(codexConfig, "loci"); changed {
		t.Error("removing from a config without loci changed it (the header inside the string must not count)")
	}
}

func TestTOMLUpdateInPlace(t *testing.T) {
	doc := "[mcp_servers.loci]\ncommand = \"/old/loci\"\nargs = [\"serve\"]\n\n[mcp_servers.loci.env]\nLOCI_LOG = \"debug\"\n\n[other]\nx = 1\n"
	block := tomlServerBlock("loci", "/new/loci", []string{"serve", "--palace", "auto"})
	out, changed, err := tomlInstallServer(doc, "loci", block)
	if err != nil || !changed {
		t.Fatalf("changed=%v err=%v", changed, err)
	}
	want := "[mcp_servers.loci]\ncommand = \"/new/loci\"\nargs = [\"serve\", \"--palace\", \"auto\"]\n\n[mcp_servers.loci.env]\nLOCI_LOG = \"debug\"\n\n[other]\nx = 1\n"
	if out != want {
		t.Fatalf("updated:\n%s\nwant:\n%s", out, want)
	}
	gone, _ := tomlRemoveServer(out, "loci")
	if gone != "[other]\nx = 1\n" {
		t.Errorf("remove left:\n%s", gone)
	}
}

func TestTOMLConflicts(t *testing.T) {
	block := tomlServerBlock("loci", "/bin/loci", []string{"serve"})
	for name, doc := range map[string]string{
		"dotted root key": "mcp_servers.loci.command = \"x\"\n",
		"inline table":    "mcp_servers = { loci = { command = \"x\" } }\n",
		"key in table":    "[mcp_servers]\nloci = { command = \"x\" }\n",
	} {
		if _, _, err := tomlInstallServer(doc, "loci", block); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	ok := "mcp_servers.other.command = \"x\"\n[mcp_servers]\nlocal = { command = \"y\" }\n"
	if _, _, err := tomlInstallServer(ok, "loci", block); err != nil {
		t.Errorf("other servers reported as a conflict: %v", err)
	}
}

// A hook command's path reads back as written, both by shellFields (which
// recognises loci's own hooks) and by a real sh, on every system's quoting;
// on Windows it is in double quotes, which cmd.exe reads too, unless a
// character needs sh's single quotes.
func TestShellQuoteRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/usr/local/bin/loci", "/home/a b/loci", "/tmp/it's/loci", `C:\Program Files\loci.exe`,
		`C:\Users\John O'Hara\.local\bin\loci.exe`, `C:\Users\x\$HOME\loci.exe`, `C:\100%\loci.exe`, `\\server\share\loci.exe`, `C:\dir\`} {
		for _, goos := range []string{"linux", "windows"} {
			q := quoteFor(p, goos)
			if f := shellFields(q + " hook stop"); len(f) != 3 || f[0] != p || f[1] != "hook" || f[2] != "stop" {
				t.Errorf("%s: %q -> %q -> %q", goos, p, q, f)
			}
			if out, err := exec.Command(sh, "-c", "printf %s "+q).Output(); err != nil || string(out) != p {
				t.Errorf("%s: sh reads %q as %q (%v), want %q", goos, q, out, err, p)
			}
		}
	}
	if got := quoteFor(`C:\Users\John Doe\.local\bin\loci.exe`, "windows"); got != `"C:\Users\John Doe\.local\bin\loci.exe"` {
		t.Errorf("a Windows path with a space is quoted %s, want double quotes (cmd.exe reads single quotes as part of the word)", got)
	}
}

func TestJSONObjectKeepsOrder(t *testing.T) {
	doc := "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": \"<b>&\",\n    \"b\": [1, 2]\n  },\n  \"m\": null\n}\n"
	o, err := parseObject([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	o.setValue("new", map[string]any{"k": "v"})
	want := "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": \"<b>&\",\n    \"b\": [\n      1,\n      2\n    ]\n  },\n  \"m\": null,\n  \"new\": {\n    \"k\": \"v\"\n  }\n}\n"
	if got := string(o.pretty()); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{"[1]", "{\"a\":1} x", "{\"a\":", "// comment\n{}"} {
		if _, err := parseObject([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
