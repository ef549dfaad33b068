package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	hooks "github.com/loci-mem/loci/cmd/loci/claudecode"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/redact"
	"github.com/rs/zerolog"
)

func init() {
	commands["hook"] = command{"answer a Claude Code hook: session-start, prompt-submit, stop or session-end", runHook}
}

// hookBudgets is each hook's wall-clock budget, from start to exit. Claude
// Code waits for hooks before it goes on, so they must be quick whatever
// the palace's size; the hooks.json timeouts are only a backstop.
// prompt-submit keeps 150 ms of its 1 s for starting and ending the process.
var hookBudgets = map[string]time.Duration{
	hooks.EventSessionStart:     3 * time.Second,
	hooks.EventUserPromptSubmit: 850 * time.Millisecond,
	hooks.EventStop:             5 * time.Second,
	hooks.EventSessionEnd:       5 * time.Second,
}

// hookCloseReserve is the part of a budget kept for printing the answer
// and closing the palace after the work itself.
const hookCloseReserve = 150 * time.Millisecond

// runHook is `loci hook EVENT [--palace NAME] [--data-dir DIR]`. It reads
// Claude Code's hook JSON on stdin and prints only hook JSON on stdout, and
// it always exits 0: whatever goes wrong (bad input, a broken palace, the
// budget running out) it prints {"continue":true} and logs why. With
// LOCI_DEBUG=1 it appends debug lines to <data dir>/logs/hooks.log.
func runHook(ctx context.Context, env *cliEnv, args []string) int {
	start := time.Now()
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	palaceFlag := fs.String("palace", "", "palace to use (default: $LOCI_PALACE, else derived from the git root of the hook's cwd, else \"default\")")
	var h homeFlags
	h.register(fs)
	budgetFlag := fs.Duration("budget", 0, "wall-clock budget of the hook (default: 3s session-start, 850ms prompt-submit, 5s stop and session-end)")
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: loci hook session-start|prompt-submit|stop|session-end [flags] < hook-input.json\n\n")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(env, fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	out := hooks.FailOpen()
	printed := false
	emit := func() {
		if !printed {
			printed = true
			env.stdout.Write(out.Encode())
		}
	}
	defer emit() // early returns fail open
	if err == nil && len(pos) != 1 {
		err = fmt.Errorf("want exactly one event (session-start, prompt-submit, stop or session-end), got %d arguments", len(pos))
	}
	event := ""
	if err == nil {
		var ok bool
		if event, ok = hooks.EventForCommand(pos[0]); !ok {
			err = fmt.Errorf("unknown hook event %q: want session-start, prompt-submit, stop or session-end", pos[0])
		}
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "loci hook: %v\n", err)
		return 0
	}
	budget := hookBudgets[event]
	if *budgetFlag > 0 {
		budget = *budgetFlag
	}
	deadline := start.Add(budget)
	log, closeLog := hookLogger(env.stderr, h.dataDir, pos[0])
	defer closeLog()

	work, cancel := context.WithDeadline(ctx, deadline.Add(-hookCloseReserve))
	defer cancel()
	raw, err := readAllContext(work, env.stdin, hooks.MaxInputBytes)
	if err != nil {
		log.Warn().Err(err).Msg("read hook input")
		return 0
	}
	in, err := hooks.DecodeInput(raw)
	if err != nil {
		log.Warn().Err(err).Msg("decode hook input")
		return 0
	}
	log.Debug().RawJSON("input", bytes.TrimSpace(redact.JSON(raw))).Msg("hook input")

	name, err := hookPalace(*palaceFlag, in.Cwd)
	if err != nil {
		log.Warn().Err(err).Msg("choose palace")
		return 0
	}
	log = log.With().Str("palace", name).Logger()
	reg, err := openRegistry(h, log, nil)
	if err != nil {
		log.Warn().Err(err).Msg("open data dir")
		return 0
	}
	defer closeWithin(reg, log, deadline)

	runner := hooks.New(hooks.Config{
		Palace: func(ctx context.Context, create bool) (*palace.Palace, error) {
			if !create && !reg.Exists(name) {
				return nil, nil
			}
			return reg.OpenOrCreate(ctx, name)
		},
		Now:          hookClock(log),
		Logger:       log,
		MinRelevance: envFloat(log, "LOCI_HOOK_MIN_RELEVANCE"),
		UserID:       os.Getenv("LOCI_USER_ID"),
		AgentID:      "claude-code",
	})
	type answer struct {
		out hooks.Output
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- answer{hooks.FailOpen(), fmt.Errorf("panic: %v", r)}
			}
		}()
		o, err := runner.Run(work, event, in)
		done <- answer{o, err}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			log.Warn().Err(a.err).Msg("hook failed open")
		} else {
			out = a.out
		}
	case <-work.Done():
		log.Warn().Dur("budget", budget).Msg("hook ran out of time; failing open")
		// Most often the palace's indexes were cold: built from the store
		// in this process, which exits before it can save them, so the next
		// hook would run out of time too. A process of its own builds and
		// saves them.
		if reg.Exists(name) {
			if p, err := reg.Open(context.Background(), name); err == nil {
				warmInBackground(h, p.Dir(), name, log)
			}
		}
	}
	emit() // before closing the palace (deferred above)
	log.Debug().RawJSON("output", bytes.TrimSpace(out.Encode())).Dur("took", time.Since(start)).Msg("hook output")
	return 0
}

// closeWithin closes the registry (flushing the palace) but gives up at the
// deadline: the process exits right after, and SQLite's transactions and
// the index's atomic snapshot writes make an abandoned close harmless.
func closeWithin(reg *palace.Registry, log zerolog.Logger, deadline time.Time) {
	closed := make(chan struct{})
	go func() {
		if err := reg.Close(); err != nil {
			log.Warn().Err(err).Msg("close palace")
		}
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(time.Until(deadline)):
		log.Debug().Msg("palace close abandoned at the budget's end")
	}
}

// hookPalace picks the palace a hook works on: --palace, else $LOCI_PALACE,
// else the project palace of the hook's cwd (autoPalace).
func hookPalace(flagValue, cwd string) (string, error) {
	if flagValue != "" && flagValue != "auto" {
		return flagValue, palace.ValidateName(flagValue)
	}
	if v := os.Getenv("LOCI_PALACE"); v != "" && flagValue == "" {
		return v, palace.ValidateName(v)
	}
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		cwd = wd
	}
	return autoPalace(cwd), nil
}

// autoPalace is the palace of the project around dir: the one
// palace.ProjectName derives from its git root (the same from every
// subdirectory and worktree), or "default" outside any git repository. The
// hooks and `loci serve --palace auto` both use it, so they agree.
func autoPalace(dir string) string {
	name, err := palace.ProjectName(dir)
	if err != nil || palace.ValidateName(name) != nil {
		return "default"
	}
	return name
}

// hookClock is time.Now, or the fixed time in $LOCI_HOOK_NOW (RFC 3339),
// which makes relative ages in hook output reproducible for tests.
func hookClock(log zerolog.Logger) func() time.Time {
	v := strings.TrimSpace(os.Getenv("LOCI_HOOK_NOW"))
	if v == "" {
		return time.Now
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		log.Warn().Str("LOCI_HOOK_NOW", v).Msg("not an RFC 3339 time; using the real clock")
		return time.Now
	}
	return func() time.Time { return t }
}

func envFloat(log zerolog.Logger, key string) float64 {
	v := strings.TrimSpace(os.Getenv(key))
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || f > 1 {
		log.Warn().Str(key, v).Msg("want a number in (0,1]; using the default")
		return 0
	}
	return f
}

// hookLogger logs to stderr at $LOCI_LOG's level (default warn) and, when
// LOCI_DEBUG=1, every level to <data dir>/logs/hooks.log as JSON lines.
// Both are redacted.
func hookLogger(stderr io.Writer, dataDir, name string) (zerolog.Logger, func()) {
	level := zerolog.WarnLevel
	if l, err := zerolog.ParseLevel(strings.ToLower(strings.TrimSpace(os.Getenv("LOCI_LOG")))); err == nil && l != zerolog.NoLevel {
		level = l
	}
	var w zerolog.LevelWriter = &zerolog.FilteredLevelWriter{
		Writer: zerolog.LevelWriterAdapter{Writer: redact.Writer(stderr)}, Level: level}
	closer := func() {}
	minLevel := level
	if os.Getenv("LOCI_DEBUG") == "1" {
		if f, err := openHookLog(dataDir); err == nil {
			w = zerolog.MultiLevelWriter(w, zerolog.LevelWriterAdapter{Writer: redact.Writer(f)})
			closer = func() { f.Close() }
			minLevel = zerolog.DebugLevel
		} else {
			fmt.Fprintf(stderr, "loci hook: debug log: %v\n", err)
		}
	}
	return zerolog.New(w).Level(minLevel).With().Timestamp().Str("hook", name).Logger(), closer
}

// hookLogPath is where LOCI_DEBUG=1 sends hook debug lines.
func hookLogPath(dataDir string) (string, error) {
	if dataDir == "" {
		d, err := palace.DefaultDataDir()
		if err != nil {
			return "", err
		}
		dataDir = d
	}
	return filepath.Join(dataDir, "logs", "hooks.log"), nil
}

func openHookLog(dataDir string) (*os.File, error) {
	path, err := hookLogPath(dataDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
}

// readAllContext reads r to the end, at most limit bytes, giving up when
// ctx ends (a hook run by hand with a terminal on stdin).
func readAllContext(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	ch := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, limit+1))
		ch <- read{b, err}
	}()
	select {
	case x := <-ch:
		if x.err == nil && int64(len(x.b)) > limit {
			return nil, fmt.Errorf("hook input exceeds %d bytes", limit)
		}
		return x.b, x.err
	case <-ctx.Done():
		return nil, fmt.Errorf("no hook input on stdin: %w", ctx.Err())
	}
}

// warmLockFile, in a palace's directory, says a warm-up of the palace
// (`loci palace warm`) is running; the warm-up removes it when it ends.
const warmLockFile = ".warming"

// warmedFile, in a palace's directory, says when the last warm-up ended
// (its modification time) and how long it took (its text, in
// milliseconds).
const warmedFile = ".warmed"

// warmLockAge is how long a warm-up lock holds: one older is a warm-up
// that died without removing it. Warming a million drawers takes a few
// minutes.
const warmLockAge = 15 * time.Minute

// warmSpacing bounds the share of time warm-ups started by hooks take: a
// warm-up that took d starts no other for warmSpacing·d after it ended, so
// they run at most a tenth of the time. A palace too large for any hook's
// budget, whose every prompt runs out of time however warm its indexes
// are, would otherwise be warmed again and again, one warm-up after the
// other.
const warmSpacing = 10

// warmDue reports whether a hook that ran out of time at now should start
// a warm-up of the palace in dir: none is running (a lock younger than
// warmLockAge), and the last one ended long enough ago (warmSpacing).
func warmDue(dir string, now time.Time) bool {
	if st, err := os.Stat(filepath.Join(dir, warmLockFile)); err == nil && now.Sub(st.ModTime()) < warmLockAge {
		return false
	}
	path := filepath.Join(dir, warmedFile)
	st, err := os.Stat(path)
	if err != nil {
		return true
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return true
	}
	ms, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || ms < 0 {
		return true // not written by a warm-up: no record of one
	}
	return now.Sub(st.ModTime()) >= warmSpacing*time.Duration(ms)*time.Millisecond
}

// warmEnded records a warm-up of the palace in dir that took d (warmedFile)
// and only then releases its lock, so that a hook always sees one or the
// other.
func warmEnded(dir string, d time.Duration) {
	os.WriteFile(filepath.Join(dir, warmedFile), []byte(strconv.FormatInt(d.Milliseconds(), 10)+"\n"), 0o600)
	os.Remove(filepath.Join(dir, warmLockFile))
}

// warmInBackground starts `loci palace warm NAME` as a process of its own,
// detached from the hook's (its own session, no standard streams), when a
// warm-up is due (warmDue). It takes the lock the warm-up releases, so a
// burst of prompts starts one.
func warmInBackground(h homeFlags, dir, name string, log zerolog.Logger) {
	if !warmDue(dir, time.Now()) {
		return
	}
	lock := filepath.Join(dir, warmLockFile)
	if st, err := os.Stat(lock); err == nil && time.Since(st.ModTime()) >= warmLockAge {
		os.Remove(lock) // a warm-up that died holding it
	}
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return // another hook has just taken it, or the directory is not writable
	}
	f.Close()
	exe, err := os.Executable()
	if err != nil {
		os.Remove(lock)
		return
	}
	args := []string{"palace", "warm", name}
	if h.dataDir != "" {
		args = append(args, "--data-dir", h.dataDir)
	}
	cmd := exec.Command(exe, args...)
	if h.store != "" {
		// In the environment, not the arguments: a store URL may hold a
		// password, and any local user can read a process's arguments.
		cmd.Env = append(os.Environ(), "LOCI_STORE="+h.store)
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		os.Remove(lock)
		log.Debug().Err(err).Msg("start a warm-up of the palace")
		return
	}
	log.Info().Int("pid", cmd.Process.Pid).Msg("warming the palace's indexes in the background")
	cmd.Process.Release()
}
