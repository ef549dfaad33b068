// Package ondisk finds text on disk for tests that check what must not be
// there (a purged memory, a redacted secret). It imports nothing of loci,
// so that the palace package's own tests can use it as well as
// palacetest, which imports palace.
//
// It is imported by tests only.
package ondisk

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FilesHolding walks every file below dir and returns "name: needle" for
// each file that holds one of needles, byte for byte.
func FilesHolding(tb testing.TB, dir string, needles ...string) []string {
	tb.Helper()
	var holding []string
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, n := range needles {
			if bytes.Contains(b, []byte(n)) {
				holding = append(holding, filepath.Base(path)+": "+n)
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return holding
}
