// Package pgserver runs a throwaway PostgreSQL server: initdb in a
// temporary directory and a server that listens only on a Unix socket
// there, with durability settings off (its data is thrown away). The test
// suite (package pgtest) and `loci bench team` use it; it is not a way to
// run a team's database.
//
// The binaries are found through $LOCI_PG_BIN, else pg_config on PATH,
// else Debian's /usr/lib/postgresql/<version>/bin. PostgreSQL refuses to
// run as root: as root, the server runs as the postgres user (which
// Debian's package creates) or nobody.
package pgserver

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
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// ErrNoBinaries: PostgreSQL's server programs are not installed.
var ErrNoBinaries = errors.New("no PostgreSQL server binaries found (install postgresql or set LOCI_PG_BIN)")

// Server is a running throwaway server.
type Server struct {
	dir  string // temporary directory: data/ and the socket
	log  string // the server's log, beside dir
	bin  string
	cmd  *exec.Cmd
	done chan struct{}
	cred *credential // run as this user (when started as root)
}

// Start makes a cluster in a new temporary directory and starts it.
func Start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "loci-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, log: dir + ".log", bin: bin}
	if os.Geteuid() == 0 {
		for _, name := range []string{"postgres", "nobody"} {
			u, err := user.Lookup(name)
			if err != nil {
				continue
			}
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			s.cred = &credential{Uid: uint32(uid), Gid: uint32(gid)}
			if err := os.Chown(dir, uid, gid); err != nil {
				os.RemoveAll(dir)
				return nil, err
			}
			break
		}
		if s.cred == nil {
			os.RemoveAll(dir)
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
		os.Remove(s.log)
		return nil, err
	}
	return s, nil
}

// URL is the URL of database db on the server.
func (s *Server) URL(db string) string {
	return "postgres://loci@/" + db + "?host=" + url.QueryEscape(s.dir) + "&sslmode=disable"
}

// SocketDir is the directory of the server's Unix socket.
func (s *Server) SocketDir() string { return s.dir }

// CreateDB makes an empty database and returns its URL.
func (s *Server) CreateDB(name string) (string, error) {
	db, err := sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE DATABASE ` + name); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.URL(name), nil
}

// Restart stops the server (fast shutdown: connections are cut), runs
// down while it is stopped, and starts it again on the same data.
func (s *Server) Restart(down func()) error {
	s.stop()
	if down != nil {
		down()
	}
	return s.run()
}

// Stop stops the server and removes its files.
func (s *Server) Stop() {
	s.stop()
	os.RemoveAll(s.dir)
	os.Remove(s.log)
}

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
	return "", ErrNoBinaries
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.SysProcAttr = procAttr(s.cred)
	return cmd
}

// run starts the server and waits until it accepts connections.
func (s *Server) run() error {
	s.cmd = s.command("postgres", "-D", filepath.Join(s.dir, "data"), "-k", s.dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300", "-c", "shared_buffers=128MB")
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
		db, err := sql.Open("pgx", s.URL("postgres"))
		if err == nil {
			err = db.PingContext(context.Background())
			db.Close()
		}
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			b, _ := os.ReadFile(s.log)
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

func (s *Server) stop() {
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
