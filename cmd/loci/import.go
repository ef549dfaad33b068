package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loci-mem/loci/cmd/loci/chatexport"
	"github.com/loci-mem/loci/cmd/loci/claudecode"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/archive"
)

func init() {
	commands["import"] = command{"import a palace export (JSONL), Claude Code sessions, or chats exported from WhatsApp, LINE, Telegram, Messenger, Slack, Google Chat, Discord, ChatGPT or Claude, into a palace", cli(importCmd)}
}

// importCmd is `loci import FILE [--on-conflict skip|fail]`; FILE "-"
// reads stdin. The target palace (--palace, else the repository's) is
// created if needed. The import is one transaction: all or nothing.
// With --from whatsapp, line, telegram, messenger, slack, discord,
// google-chat, chatgpt or claude (or auto, the default for a .txt, .json,
// .zip or a folder) FILE is an export of chats (importChats); with --from
// claude-code (the default for a .jsonl that is a Claude Code transcript)
// FILE... are sessions' transcripts (importTranscripts).
func importCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	flags := flag.NewFlagSet("import", flag.ContinueOnError)
	var c commonFlags
	c.register(flags)
	onConflict := flags.String("on-conflict", "skip", "a drawer id the palace has already: skip or fail")
	from := flags.String("from", "", "what FILE is: loci (a palace export, JSONL); claude-code (Claude Code sessions' transcripts, ~/.claude/projects/<project>/*.jsonl, one or more); whatsapp (a chat exported from WhatsApp, .txt or the .zip it shares), line (a chat's history exported from LINE, .txt), telegram (Telegram Desktop's result.json), messenger (a Messenger or Instagram thread's message_1.json, or the .zip of Meta's download), slack (a workspace's export, its .zip or the folder it unpacks to), google-chat (the Google Chat part of a Google Takeout, its .zip or folder, or one conversation's messages.json), discord (a channel's .json exported by DiscordChatExporter, or a folder of them), chatgpt or claude (the conversations.json of their export, or its .zip); or auto (one of those chats, told from the file; a .zip or a folder is read as the export it holds). Default: auto for a .txt, .json, .zip or a folder, claude-code for a .jsonl that is a transcript, loci otherwise")
	name := flags.String("name", "", "a WhatsApp or LINE chat's name, its session's (default: LINE's from its first line, WhatsApp's from the file's name: \"WhatsApp Chat with Ana.txt\" names Ana)")
	dateOrder := flags.String("date-order", "", "a WhatsApp export's dates: dmy or mdy (default: read from the file)")
	room := flags.String("room", "", "a chat's messages go to this room (default: the palace's)")
	var only []string
	flags.Func("chat", "import only the chat of this name or session id; repeat it for several (a Slack channel's name takes its threads too; --dry-run lists them)", func(v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New("a chat's name or session id")
		}
		only = append(only, strings.TrimSpace(v))
		return nil
	})
	dryRun := flags.Bool("dry-run", false, "list the chats FILE holds, with their messages and times, and store nothing")
	tz := flags.String("tz", "", "the time zone of the clock a WhatsApp, LINE or Telegram export writes, which it does not name: an IANA name such as Europe/Paris, or UTC (default: this machine's, or $TZ)")
	pos, err := parseFlags(env, flags, args)
	if err != nil {
		return nil, err
	}
	if len(pos) == 0 {
		return nil, invalidArgs("import needs a FILE", "Use `loci import palace.jsonl --palace NAME` (- reads stdin), `loci import \"WhatsApp Chat with Ana.txt\" --palace NAME` or `loci import ~/.claude/projects/<project>/*.jsonl --palace NAME`")
	}
	if *from == "" {
		*from = "loci"
		switch ext := strings.ToLower(filepath.Ext(pos[0])); {
		case ext == ".txt" || ext == ".json" || ext == ".zip" || isDir(pos[0]):
			*from = "auto"
		case ext == ".jsonl" && isTranscript(pos[0]):
			*from = fromClaudeCode
		}
	}
	set := map[string]bool{"name": *name != "", "date-order": *dateOrder != "", "room": *room != "", "on-conflict": *onConflict != "skip",
		"chat": len(only) > 0, "dry-run": *dryRun, "tz": *tz != ""}
	// given is the first of the flags named that the command line sets, for
	// flags that do not apply to what FILE is.
	given := func(names ...string) (string, bool) {
		for _, n := range names {
			if set[n] {
				return "--" + n, true
			}
		}
		return "", false
	}
	if *from == fromClaudeCode {
		if f, ok := given("name", "date-order", "room", "on-conflict", "chat", "dry-run", "tz"); ok {
			return nil, invalidArgs(f+" does not apply to Claude Code sessions", "A session is stored as the hooks store it: each turn once, under the session's own id")
		}
		return importTranscripts(ctx, env, c, pos)
	}
	if len(pos) != 1 {
		return nil, invalidArgs("import needs exactly one FILE", "Name one export; several files are read at once only as Claude Code sessions (--from claude-code)")
	}
	if f, ok := given("on-conflict"); ok && *from != "loci" {
		return nil, invalidArgs(f+" is for a palace export", "Leave it out: a chat's messages already in the palace are skipped, so importing an export again stores only what is new")
	}
	chatOpt := chatImport{open: chatexport.OpenOptions{Name: *name, Order: *dateOrder}, room: *room, only: only, dryRun: *dryRun}
	if *tz != "" {
		// The zone's rules ship inside the binary (time/tzdata), so a name
		// is read the same on every machine.
		if chatOpt.open.Zone, err = time.LoadLocation(*tz); err != nil {
			return nil, &cliError{Type: "invalid_args", Message: "--tz " + *tz + " names no time zone", Hint: "Use an IANA name such as Europe/Paris or America/New_York, or UTC; leave it out for this machine's zone",
				Detail: map[string]any{"flag": "tz"}}
		}
	}
	switch *from {
	case "auto":
		return importChats(ctx, env, c, pos[0], chatOpt)
	case "loci":
	default:
		if !slices.Contains(chatexport.Formats, *from) {
			return nil, &cliError{Type: "invalid_args", Message: "--from must be loci, " + fromClaudeCode + ", " + strings.Join(chatexport.Formats, ", ") + " or auto, got " + *from, Detail: map[string]any{"flag": "from"}}
		}
		chatOpt.open.Format = *from
		return importChats(ctx, env, c, pos[0], chatOpt)
	}
	if f, ok := given("name", "date-order", "room", "chat", "dry-run", "tz"); ok {
		return nil, invalidArgs(f+" is for chats (--from "+strings.Join(chatexport.Formats, ", ")+" or auto)", "A palace export keeps its drawers' own sessions and rooms")
	}
	if *onConflict != "skip" && *onConflict != "fail" {
		return nil, &cliError{Type: "invalid_args", Message: "--on-conflict must be skip or fail, got " + *onConflict,
			Detail: map[string]any{"flag": "on-conflict"}}
	}
	var in io.Reader = env.stdin
	path := pos[0]
	if path != "-" {
		f, err := openInput(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	p, _, done, err := cliPalace(ctx, env, c, true)
	if err != nil {
		return nil, err
	}
	defer done()
	log := newLogger(env.stderr)
	log.Debug().Str("path", path).Msg("import reading")
	bar := newProgress(env, "import", "drawers")
	st, err := archive.ImportJSONL(ctx, p, in, archive.ImportOptions{OnConflict: *onConflict,
		Progress: func(phase string, done, total int) { bar.Set(done, total, phase) }})
	bar.Done()
	if err != nil {
		var pe *palace.Error
		if errors.As(err, &pe) && pe.Code == palace.CodeInvalid {
			return nil, &cliError{Type: "invalid_args", Message: path + ": " + pe.Message,
				Hint: "Nothing was imported. The file must be a `loci export` JSONL", Detail: map[string]any{"path": path}}
		}
		return nil, err
	}
	return &result{data: map[string]any{"palace": p.Name(), "path": path, "stats": st}, text: func(w io.Writer) {
		fmt.Fprintf(w, "imported into %s: %d drawers (%d skipped), %d triples (%d skipped)", p.Name(), st.Drawers, st.Skipped, st.Triples, st.TriplesSkipped)
		if st.Renumbered > 0 {
			fmt.Fprintf(w, ", %d facts renumbered", st.Renumbered)
		}
		fmt.Fprintln(w)
	}}, nil
}

// chatImport is how `loci import` stores an export of chats.
type chatImport struct {
	open   chatexport.OpenOptions
	room   string
	only   []string // the chats to import, by name or session id (all when empty)
	dryRun bool     // list the chats, store nothing
}

// importChats stores the chats of an export (chatexport.Open), or those
// of ci.only: each message a turn of its chat's session with its sender
// and time (chatexport.Store). A message already in the palace is
// skipped, so a later export of the same chats adds only what is new; one
// the palace refuses is reported and left out. Nothing is stored when the
// file is no export, or with ci.dryRun, which lists the chats.
func importChats(ctx context.Context, env *cliEnv, c commonFlags, path string, ci chatImport) (*result, error) {
	opt, room := ci.open, ci.room
	if opt.Order != chatexport.OrderAuto && opt.Order != chatexport.OrderDMY && opt.Order != chatexport.OrderMDY {
		return nil, &cliError{Type: "invalid_args", Message: "--date-order must be dmy or mdy, got " + opt.Order, Detail: map[string]any{"flag": "date-order"}}
	}
	if !isDir(path) { // a folder is an export unpacked
		f, err := openInput(path)
		if err != nil {
			return nil, err
		}
		f.Close()
	}
	reading := newProgress(env, "import", "files read")
	opt.Progress = func(n, total int) { reading.Set(n, total, "") }
	chats, err := chatexport.Open(path, opt)
	reading.Done()
	if err != nil {
		return nil, &cliError{Type: "invalid_args", Message: path + ": " + err.Error(), Detail: map[string]any{"path": path},
			Hint: "Nothing was imported. Name a chat exported from WhatsApp (a chat's menu, More, Export chat: its .txt or .zip) or LINE (its .txt), Telegram Desktop's result.json, a Messenger or Instagram thread's message_1.json (or the .zip of Meta's download), a Slack workspace's export (its .zip or folder), Google Chat's Takeout (its .zip or folder), a Discord channel's .json exported by DiscordChatExporter (or a folder of them), or the conversations.json (or .zip) of ChatGPT's or Claude's data export; a .zip or a folder may also be the unpacked export of any of them"}
	}
	if len(ci.only) > 0 {
		if chats, err = chosenChats(chats, ci.only, path); err != nil {
			return nil, err
		}
	}
	messages := 0
	for _, ch := range chats {
		messages += len(ch.Messages)
	}
	if messages == 0 {
		return nil, &cliError{Type: "invalid_args", Message: path + ": the export holds no message of a person or an assistant", Detail: map[string]any{"path": path},
			Hint: "Nothing was imported: every line of the file is the app's own"}
	}
	if ci.dryRun {
		return chatsListed(path, chats, messages), nil
	}
	p, _, done, err := cliPalace(ctx, env, c, true)
	if err != nil {
		return nil, err
	}
	defer done()
	bar := newProgress(env, "import", "messages")
	var total chatexport.Stats
	refused := 0
	var out []map[string]any
	stored := 0
	for _, ch := range chats {
		if len(ch.Messages) == 0 {
			continue
		}
		st, err := chatexport.Store(ctx, p, ch, chatexport.StoreOptions{Room: room,
			Progress: func(n, _ int) { bar.Set(stored+n, messages, "") }})
		stored += len(ch.Messages)
		if err != nil {
			bar.Done()
			return nil, err
		}
		total.Stored += st.Stored
		total.Skipped += st.Skipped
		total.Redactions += st.Redactions
		refused += len(st.Refused)
		listed := chatListed(ch)
		listed["stats"] = st
		out = append(out, listed)
		for _, r := range st.Refused {
			fmt.Fprintf(env.stderr, "import: %s: the message of line %d was not stored: %s\n", ch.Name, r.Line, r.Reason)
		}
	}
	bar.Done()
	return &result{data: map[string]any{"palace": p.Name(), "path": path, "chats": out,
		"stats": map[string]any{"stored": total.Stored, "skipped": total.Skipped, "refused": refused, "redactions": total.Redactions}}, text: func(w io.Writer) {
		noun := "chats"
		if len(out) == 1 {
			noun = "chat"
		}
		fmt.Fprintf(w, "imported %d %s into %s: %d messages stored, %d already there", len(out), noun, p.Name(), total.Stored, total.Skipped)
		if refused > 0 {
			fmt.Fprintf(w, ", %d refused (on stderr)", refused)
		}
		fmt.Fprintln(w)
	}}, nil
}

// chatListed is what the envelope says of a chat (its stats aside).
func chatListed(ch *chatexport.Chat) map[string]any {
	return map[string]any{"chat": ch.Name, "format": ch.Format, "session_id": chatexport.SessionID(ch),
		"messages": len(ch.Messages), "app_lines": ch.AppLines, "first": ch.Messages[0].Time.UTC().Format(time.RFC3339),
		"last": ch.Messages[len(ch.Messages)-1].Time.UTC().Format(time.RFC3339)}
}

// chatsListed is --dry-run's result: the chats an export holds, nothing
// stored.
func chatsListed(path string, chats []*chatexport.Chat, messages int) *result {
	var out []map[string]any
	for _, ch := range chats {
		if len(ch.Messages) > 0 {
			out = append(out, chatListed(ch))
		}
	}
	return &result{data: map[string]any{"path": path, "dry_run": true, "chats": out, "stats": map[string]any{"messages": messages}}, text: func(w io.Writer) {
		fmt.Fprintf(w, "%s holds %d chats, %d messages (nothing stored):\n", path, len(out), messages)
		for _, ch := range out {
			fmt.Fprintf(w, "  %s  %s  %d messages, %s to %s\n", ch["chat"], ch["session_id"], ch["messages"], ch["first"], ch["last"])
		}
	}}
}

// chosenChats are the chats of names (--chat): a chat whose name or
// session id is one of them, case aside, or a Slack thread of a channel
// named ("#ops: …" of "#ops"). A name that no chat has is refused, with
// the names there are.
func chosenChats(chats []*chatexport.Chat, names []string, path string) ([]*chatexport.Chat, error) {
	named := func(ch *chatexport.Chat, n string) bool {
		return strings.EqualFold(ch.Name, n) || chatexport.SessionID(ch) == n ||
			len(ch.Name) > len(n)+2 && strings.EqualFold(ch.Name[:len(n)+2], n+": ")
	}
	var out []*chatexport.Chat
	var have []string          // names to suggest, at most 20
	found := map[string]bool{} // the names that name a chat
	for _, ch := range chats {
		if len(have) < 20 && len(ch.Messages) > 0 {
			have = append(have, ch.Name)
		}
		chosen := false
		for _, n := range names {
			if named(ch, n) {
				found[n], chosen = true, true
			}
		}
		if chosen {
			out = append(out, ch)
		}
	}
	for _, n := range names {
		if !found[n] {
			return nil, &cliError{Type: "invalid_args", Message: "--chat: " + path + " holds no chat named " + n, Detail: map[string]any{"flag": "chat", "chat": n},
				Hint: "Nothing was imported. Chats it holds: " + strings.Join(have, ", ") + " (`--dry-run` lists them all)"}
		}
	}
	return out, nil
}

// isDir reports whether path names a folder (an export unpacked).
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// fromClaudeCode names Claude Code's transcripts for --from.
const fromClaudeCode = "claude-code"

// isTranscript reports whether the file at path opens as a Claude Code
// transcript does: a JSON line of a session ("sessionId"), where a palace
// export opens with its header.
func isTranscript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var probe struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionId"`
			Summary   string `json:"summary"`
		}
		if json.Unmarshal(line, &probe) != nil || probe.Type == "header" {
			return false
		}
		if probe.SessionID != "" {
			return true
		}
		// A transcript may open with lines of no session (a summary, a
		// file-history snapshot); read on, a little.
		if probe.Type != "summary" && probe.Type != "file-history-snapshot" {
			return false
		}
	}
	return false
}

// importTranscripts stores Claude Code sessions from their transcripts as
// the hooks would have stored them (claudecode.ImportTranscript): each
// turn once, the session summarised. Every file is checked to exist
// before anything is stored.
func importTranscripts(ctx context.Context, env *cliEnv, c commonFlags, paths []string) (*result, error) {
	for _, path := range paths {
		f, err := openInput(path)
		if err != nil {
			return nil, err
		}
		f.Close()
	}
	p, _, done, err := cliPalace(ctx, env, c, true)
	if err != nil {
		return nil, err
	}
	defer done()
	bar := newProgress(env, "import", "sessions")
	owners := claudecode.Owners{UserID: os.Getenv("LOCI_USER_ID"), AgentID: "claude-code"} // as `loci hook` stores them
	var sessions []claudecode.ImportStats
	var total struct{ stored, skipped, summaries int }
	for i, path := range paths {
		st, warnings, err := claudecode.ImportTranscript(ctx, p, path, owners, time.Now())
		if err != nil {
			bar.Done()
			return nil, &cliError{Type: "invalid_args", Message: path + ": " + err.Error(), Detail: map[string]any{"path": path, "sessions_stored": i},
				Hint: "The sessions before it are stored; importing them again stores nothing twice"}
		}
		for _, w := range warnings {
			fmt.Fprintf(env.stderr, "import: %s: %v\n", path, w)
		}
		sessions = append(sessions, st)
		total.stored += st.Stored
		total.skipped += st.Skipped
		if st.Summary {
			total.summaries++
		}
		bar.Set(i+1, len(paths), "")
	}
	bar.Done()
	return &result{data: map[string]any{"palace": p.Name(), "format": fromClaudeCode, "sessions": sessions,
		"stats": map[string]any{"stored": total.stored, "skipped": total.skipped, "summaries": total.summaries}}, text: func(w io.Writer) {
		fmt.Fprintf(w, "imported %d Claude Code sessions into %s: %d turns stored, %d already there\n", len(sessions), p.Name(), total.stored, total.skipped)
	}}, nil
}

func openInput(path string) (*os.File, error) {
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &cliError{Type: "not_found", Message: path + " does not exist", Detail: map[string]any{"path": path},
			Hint: "Name a file that exists (a relative path is read from the current directory)"}
	case err != nil:
		return nil, &cliError{Type: "io", Message: err.Error(), Detail: map[string]any{"path": path}}
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &cliError{Type: "invalid_args", Message: path + " is a directory", Detail: map[string]any{"path": path}}
	}
	return f, nil
}
