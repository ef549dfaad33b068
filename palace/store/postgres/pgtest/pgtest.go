// Package pgtest runs a throwaway PostgreSQL server for tests: initdb in a
// temporary directory, a server listening on a Unix socket there (no TCP
// port), and a fresh database per test. The server is started on first
// use and stopped by Stop (call it from TestMain after m.Run); it also
// dies with the test process.
//
// The binaries are found through $LOCI_PG_BIN, else pg_config on PATH,
// else Debian's /usr/lib/postgresql/<version>/bin. When there are none the
// test fails under CI (.ci/run installs PostgreSQL) and is skipped, with
// the reason, elsewhere.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

var (
	once    sync.Once
	srv     *server
	srvErr  error
	counter atomic.Int64
)

type server struct {
	dir  string // temporary directory: data/ and the socket
	log  string // the server's log, beside dir
	bin  string
	cmd  *exec.Cmd
	done chan struct{}
	cred *syscall.Credential // run as this user (the tests run as root)
}

// URL returns the URL of a new, empty database on the shared test server.
func URL(tb testing.TB) string {
	tb.Helper()
	once.Do(func() { srv, srvErr = start() })
	if srvErr != nil {
		if errors.Is(srvErr, errNoBinaries) && os.Getenv("CI") == "" {
			tb.Skipf("PostgreSQL: %v (CI fails here; install postgresql or set LOCI_PG_BIN)", srvErr)
		}
		tb.Fatalf("PostgreSQL test server: %v", srvErr)
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), counter.Add(1))
	db, err := sql.Open("pgx", srv.url("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE DATABASE ` + name); err != nil {
		tb.Fatalf("create test database: %v", err)
	}
	return srv.url(name)
}

// SocketDir is the directory of the server's Unix socket ("" before the
// first URL).
func SocketDir() string {
	if srv == nil {
		return ""
	}
	return srv.dir
}

// Restart stops the server (fast shutdown: open connections are cut) and
// starts it again on the same data and socket, as a PostgreSQL restart in
// production would. down runs while it is stopped.
func Restart(tb testing.TB, down func()) {
	tb.Helper()
	if srv == nil {
		tb.Fatal("pgtest.Restart before URL")
	}
	srv.stop()
	if down != nil {
		down()
	}
	if err := srv.run(); err != nil {
		tb.Fatalf("restart PostgreSQL: %v", err)
	}
}

// Stop stops the server and removes its files.
func Stop() {
	if srv != nil {
		srv.stop()
		os.RemoveAll(srv.dir)
		os.Remove(srv.log)
		srv = nil
	}
}

var errNoBinaries = errors.New("no PostgreSQL server binaries found")

func binDir() (string, error) {
	if d := os.Getenv("LOCI_PG_BIN"); d != "" {
		return d, nil
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		d := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errNoBinaries
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func start() (*server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "loci-pg-")
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir, bin: bin}
	// PostgreSQL refuses to run as root: run it as the postgres user the
	// Debian package creates (or nobody).
	if os.Geteuid() == 0 {
		for _, name := range []string{"postgres", "nobody"} {
			u, err := user.Lookup(name)
			if err != nil {
				continue
			}
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
			if err := os.Chown(dir, uid, gid); err != nil {
				return nil, err
			}
			break
		}
		if s.cred == nil {
			return nil, errors.New("running as root and there is no postgres or nobody user to run the server as")
		}
	}
	initdb := s.command("initdb", "-D", filepath.Join(dir, "data"), "-U", "loci", "-A", "trust",
		"-E", "UTF8", "--no-locale", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if err := s.run(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// run starts the server and waits until it accepts connections.
func (s *server) run() error {
	// Durability settings are off: a test server's data is thrown away.
	s.cmd = s.command("postgres", "-D", filepath.Join(s.dir, "data"), "-k", s.dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300", "-c", "shared_buffers=64MB")
	s.log = s.dir + ".log"
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start postgres: %w", err)
	}
	s.done = make(chan struct{})
	go func() { s.cmd.Wait(); logf.Close(); close(s.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		db, err := sql.Open("pgx", s.url("postgres"))
		if err == nil {
			err = db.PingContext(context.Background())
			db.Close()
		}
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			b, _ := os.ReadFile(logf.Name())
			return fmt.Errorf("postgres exited: %s", b)
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return fmt.Errorf("postgres did not accept connections within 30 s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

func (s *server) url(db string) string {
	return "postgres://loci@/" + db + "?host=" + url.QueryEscape(s.dir) + "&sslmode=disable"
}
