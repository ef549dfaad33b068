package main

import (
	"strings"
	"testing"
)

// `loci recall` and `loci search` refuse a query over 16 KiB with an
// invalid-input envelope naming the limit, without echoing the query.
func TestCLIQueryLengthIsBounded(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	const limit = 16 << 10
	long := strings.Repeat("deploy ", limit/7+1)[:limit+1]
	if o := runCLI(t, home, "json", "palace", "create", "p"); o.code != 0 {
		t.Fatalf("palace create: %d %s %s", o.code, o.stdout, o.stderr)
	}
	for _, cmd := range [][]string{{"recall", long, "--palace", "p"}, {"recall", long[:limit], "--palace", "p"}} {
		o := runCLI(t, home, "json", cmd...)
		q := len(cmd[1])
		switch {
		case q > limit && (o.code == 0 || !strings.Contains(o.env.Error.Message, "16384") || len(o.stdout) > 2048):
			t.Errorf("recall with a %d-byte query: exit %d, %s", q, o.code, tail(o.stdout, 300))
		case q <= limit && o.code != 0:
			t.Errorf("recall with a %d-byte query: exit %d, %s", q, o.code, tail(o.stdout, 300))
		}
	}
}
