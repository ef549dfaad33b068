// Package pgtest gives tests a throwaway PostgreSQL server (pgserver),
// started on first use and shared by the test binary, and a fresh
// database per test. Call Stop from TestMain after m.Run (the server also
// dies with the test process).
//
// Without PostgreSQL's binaries a test fails under CI (.ci/run installs
// them) and is skipped, with the reason, elsewhere.
package pgtest

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loci-mem/loci/palace/store/postgres/pgserver"
)

var (
	once    sync.Once
	srv     *pgserver.Server
	srvErr  error
	counter atomic.Int64
)

// URL returns the URL of a new, empty database on the shared test server.
func URL(tb testing.TB) string {
	tb.Helper()
	once.Do(func() { srv, srvErr = pgserver.Start() })
	if srvErr != nil {
		if errors.Is(srvErr, pgserver.ErrNoBinaries) && os.Getenv("CI") == "" {
			tb.Skipf("PostgreSQL: %v (CI fails here)", srvErr)
		}
		tb.Fatalf("PostgreSQL test server: %v", srvErr)
	}
	url, err := srv.CreateDB(fmt.Sprintf("t%d_%d", os.Getpid(), counter.Add(1)))
	if err != nil {
		tb.Fatal(err)
	}
	return url
}

// Restart restarts the server as a PostgreSQL restart in production
// would (open connections are cut); down runs while it is stopped.
func Restart(tb testing.TB, down func()) {
	tb.Helper()
	if srv == nil {
		tb.Fatal("pgtest.Restart before URL")
	}
	if err := srv.Restart(down); err != nil {
		tb.Fatalf("restart PostgreSQL: %v", err)
	}
}

// Stop stops the server and removes its files.
func Stop() {
	if srv != nil {
		srv.Stop()
		srv = nil
	}
}
