package main

import (
	"strings"
	"testing"
)

// `loci eval -h` lists the evaluations instead of failing.
func TestEvalHelp(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if o := runCLI(t, home, "text", "eval", "-h"); o.code != 0 || !strings.Contains(o.stdout, "loci eval locomo") {
		t.Errorf("eval -h: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := runCLI(t, home, "json", "eval", "bogus"); o.code != 2 || o.env.Error.Type != "invalid_args" {
		t.Errorf("eval bogus: exit %d %s", o.code, o.stdout)
	}
}
