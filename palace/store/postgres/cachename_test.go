package postgres

import (
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/store"
)

// Palaces whose names a case-blind file system would confuse keep their
// snapshots in directories that no file system confuses; a lower-case name
// keeps its own name, so existing nodes' caches stay where they are.
func TestCacheNamesNeverFold(t *testing.T) {
	names := []string{"notes", "Notes", "NOTES", "notes.", "Notes.", "nul", "NUL", "nul.x", "com1", "aux-notes", "team.alpha"}
	seen := map[string]string{}
	for _, n := range names {
		dir := cacheName(n)
		folded := strings.ToLower(strings.TrimRight(dir, "."))
		if other, ok := seen[folded]; ok {
			t.Errorf("%q and %q share the cache directory %q on a case-blind file system", n, other, dir)
		}
		seen[folded] = n
		if !store.PortableDirName(dir) {
			t.Errorf("cacheName(%q) = %q: not portable", n, dir)
		}
	}
	for _, n := range []string{"notes", "aux-notes", "team.alpha"} {
		if got := cacheName(n); got != n {
			t.Errorf("cacheName(%q) = %q: a portable name keeps its directory", n, got)
		}
	}
}
