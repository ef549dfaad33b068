package sqlite_test

import (
	"testing"

	"github.com/loci-mem/loci/palace/store"
	"github.com/loci-mem/loci/palace/store/sqlite"
	"github.com/loci-mem/loci/palace/store/storetest"
)

// TestConformance runs the store conformance suite on SQLite files in a
// temporary data dir.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Backend {
		b, err := sqlite.Open(t.TempDir(), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	})
}
