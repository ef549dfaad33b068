package palace

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A snapshot's temporary file left by a process that exited mid-write is
// removed once it is old enough to be no one's write in progress; a recent
// one, the snapshots themselves and other files stay.
func TestRemoveAbandonedSnapshots(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-abandonedSnapshotAge - time.Minute)
	files := map[string]time.Time{
		".flat-123":     old, // abandoned
		".bm25-456":     old, // abandoned
		".flat-789":     now, // being written
		"vectors.idx":   old,
		"palace.db":     old,
		".create-1.db":  old, // not a snapshot's
		"keywords.bm25": old,
	}
	for name, at := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if n := removeAbandonedSnapshots(dir, now); n != 2 {
		t.Errorf("removed %d files, want 2", n)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{".create-1.db", ".flat-789", "keywords.bm25", "palace.db", "vectors.idx"}
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	if n := removeAbandonedSnapshots(filepath.Join(dir, "missing"), now); n != 0 {
		t.Errorf("a missing directory: %d removed", n)
	}
}
