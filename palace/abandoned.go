package palace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// abandonedSnapshotAge is how old a snapshot's temporary file must be to
// count as abandoned. A snapshot is written to a temporary file in the
// palace's directory and renamed over the old one; a process that exits
// while writing (a hook at its budget's end, a kill) leaves the temporary
// file behind, as large as the snapshot. Writing one takes seconds even at
// a million drawers, so a file ten minutes old is no other process's
// write in progress.
const abandonedSnapshotAge = 10 * time.Minute

// snapshotTempPrefixes name the temporary files of the vector and keyword
// snapshots (index.SaveFlatFile, bm25.Index.SaveFile).
var snapshotTempPrefixes = []string{".flat-", ".bm25-"}

// removeAbandonedSnapshots removes the snapshot temporary files of dir
// that are older than abandonedSnapshotAge, and reports how many.
func removeAbandonedSnapshots(dir string, now time.Time) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		temp := slices.ContainsFunc(snapshotTempPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
		if e.IsDir() || !temp {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < abandonedSnapshotAge {
			continue
		}
		if os.Remove(filepath.Join(dir, name)) == nil {
			n++
		}
	}
	return n
}
