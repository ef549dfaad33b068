//go:build soak

// The soak benchmark repeats, for as long as asked, the attacks loci's
// durability was first judged by: kill -9 in the middle of a pipelined
// stream of writes, and several processes writing one palace at once. It
// reports acknowledged writes against writes found afterwards.
//
//	go test -tags soak -run TestSoak -v -timeout 60m ./cmd/loci
//
// LOCI_SOAK_ROUNDS (default 30) kill -9 rounds; LOCI_SOAK_SECONDS (default
// 60) for the multi-process run; LOCI_EMBEDDER as for serve (the default
// encoder is slower, so fewer writes land per round).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
)

func soakInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// storedIDs opens the palace in this process and returns every drawer id.
func storedIDs(t *testing.T, home, name string) map[string]bool {
	t.Helper()
	reg, err := palace.OpenRegistry(palace.Config{DataDir: home})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	p, err := reg.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	err = p.Scan(context.Background(), palace.ScanOptions{Filter: palace.Filter{Statuses: palace.AnyStatus}},
		func(d *palace.Drawer, _ []float32) error { have[d.ID] = true; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return have
}

// TestSoakKill9: each round starts `loci serve`, pipelines writes (many in
// flight at once), and kills the process with SIGKILL at a random moment;
// every write acknowledged before the kill must be found afterwards, and
// the next round's server must start on whatever the kill left behind.
func TestSoakKill9(t *testing.T) {
	home := t.TempDir()
	rounds := soakInt("LOCI_SOAK_ROUNDS", 30)
	var acked []string
	inFlightAtKill := 0
	for round := 0; round < rounds; round++ {
		p := startLoci(t, home, nil, "serve", "--palace", "soak")
		p.initialize()
		var mu sync.Mutex
		sent := map[string]bool{}
		reader := make(chan struct{})
		go func() {
			defer close(reader)
			for line := range p.lines {
				var r struct {
					ID     json.RawMessage `json:"id"`
					Result struct {
						Content []struct{ Text string } `json:"content"`
					} `json:"result"`
				}
				if json.Unmarshal([]byte(line), &r) != nil || len(r.Result.Content) == 0 {
					continue
				}
				var out struct {
					DrawerID string `json:"drawer_id"`
				}
				if json.Unmarshal([]byte(r.Result.Content[0].Text), &out) == nil && out.DrawerID != "" {
					mu.Lock()
					acked = append(acked, out.DrawerID)
					delete(sent, string(r.ID))
					mu.Unlock()
				}
			}
		}()
		stop := time.After(time.Duration(20+rand.IntN(400)) * time.Millisecond)
	writing:
		for i := 0; ; i++ {
			select {
			case <-stop:
				break writing
			default:
			}
			id := fmt.Sprintf("%d", round*1_000_000+i+10)
			mu.Lock()
			sent[id] = true
			mu.Unlock()
			if _, err := p.stdin.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"memory_remember","arguments":{"text":"soak round ` +
				strconv.Itoa(round) + ` write ` + strconv.Itoa(i) + ` about the lighthouse keeper"}}}` + "\n")); err != nil {
				break
			}
		}
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		<-reader
		mu.Lock()
		inFlightAtKill += len(sent)
		mu.Unlock()
	}
	have := storedIDs(t, home, "soak")
	lost := 0
	for _, id := range acked {
		if !have[id] {
			lost++
		}
	}
	t.Logf("soak kill -9: %d rounds, %d writes acknowledged, %d found, %d lost; %d unanswered at the kills, %d drawers stored in all",
		rounds, len(acked), len(acked)-lost, lost, inFlightAtKill, len(have))
	if lost > 0 {
		t.Fatalf("%d acknowledged writes lost", lost)
	}
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged; the soak measured nothing")
	}
}

// TestSoakManyProcesses: three stdio servers and a CLI loop write and
// recall one palace at once for LOCI_SOAK_SECONDS; nothing acknowledged
// is lost and no process ever reports "database is locked".
func TestSoakManyProcesses(t *testing.T) {
	home := t.TempDir()
	seconds := soakInt("LOCI_SOAK_SECONDS", 60)
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	var procs []*proc
	for range 3 {
		p := startLoci(t, home, nil, "serve", "--palace", "busy")
		p.initialize()
		procs = append(procs, p)
	}
	var mu sync.Mutex
	var acked []string
	var writes, recalls, cliRuns, cliFailures atomic.Int64
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(deadline); n++ {
				var r struct {
					DrawerID string `json:"drawer_id"`
				}
				p.tool("memory_remember", map[string]any{"text": fmt.Sprintf("process %d note %d on the ferry timetable", i, n)}, &r)
				mu.Lock()
				acked = append(acked, r.DrawerID)
				mu.Unlock()
				writes.Add(1)
				if n%5 == 0 {
					p.tool("memory_recall", map[string]any{"query": "ferry timetable", "top_k": 5}, nil)
					recalls.Add(1)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; time.Now().Before(deadline); n++ {
			cmd := exec.Command(os.Args[0], "remember", "--palace", "busy", "--format", "json",
				fmt.Sprintf("The ferry leaves pier %d at dawn", n))
			cmd.Env = append(os.Environ(), "LOCI_TEST_MAIN=1", "LOCI_HOME="+home)
			out, err := cmd.CombinedOutput()
			cliRuns.Add(1)
			if err != nil {
				cliFailures.Add(1)
				t.Errorf("loci remember: %v\n%s", err, out)
			}
		}
	}()
	wg.Wait()
	locked := 0
	for _, p := range procs {
		p.closeAndWait(5 * time.Second)
		locked += strings.Count(p.stderr.String(), "database is locked")
	}
	have := storedIDs(t, home, "busy")
	lost := 0
	for _, id := range acked {
		if !have[id] {
			lost++
		}
	}
	wal := int64(0)
	if fi, err := os.Stat(filepath.Join(home, "palaces", "busy", "palace.db-wal")); err == nil {
		wal = fi.Size()
	}
	t.Logf("soak multi-process: %d s, 3 servers + CLI; %d writes acknowledged, %d lost; %d recalls; %d CLI runs (%d failed); %d \"database is locked\"; WAL %.1f MB",
		seconds, writes.Load(), lost, recalls.Load(), cliRuns.Load(), cliFailures.Load(), locked, float64(wal)/1e6)
	if lost > 0 || locked > 0 {
		t.Fatalf("%d lost, %d lock errors", lost, locked)
	}
}
