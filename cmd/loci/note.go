package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
)

func init() {
	commands["note"] = command{"store a memory now, recallable at once (memory_remember): TEXT, or - to read it from stdin", cli(noteCmd)}
}

// noteCmd is `loci note TEXT... | - [--room R] [--tags a,b] [--importance
// W] [--session S] [--speaker NAME] [--reply-to DRAWER_ID] [--timestamp
// T]`: the CLI's memory_remember, for an agent or a script without an MCP
// client (a git hook, a cron job). The words of TEXT are joined with
// spaces; "-" reads the text from stdin.
func noteCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("note", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	room := fs.String("room", "", "room (default General)")
	tags := fs.String("tags", "", "tags, separated by commas")
	importance := fs.Float64("importance", 0.5, "importance weight in [0.01,1]")
	session := fs.String("session", "", "the conversation the text belongs to: the texts of one session are read as one conversation")
	speaker := fs.String("speaker", "", "who said the text: it is stored as a transcript line, 'speaker: text'")
	replyTo := fs.String("reply-to", "", "the drawer id of the message this text answers, when it answers an earlier one than the last")
	stamp := fs.String("timestamp", "", "when the remembered event happened: RFC 3339 or epoch milliseconds (default the date the text's header names, else now)")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	text := strings.Join(pos, " ")
	if len(pos) == 1 && pos[0] == "-" {
		b, err := io.ReadAll(io.LimitReader(env.stdin, palace.MaxContentBytes+1))
		if err != nil {
			return nil, asIOError(err)
		}
		if len(b) > palace.MaxContentBytes { // only the limit and a byte were read
			return nil, invalidArgs(fmt.Sprintf("stdin holds more than %d bytes, the limit of a memory", palace.MaxContentBytes),
				"Split the text into several notes")
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return nil, invalidArgs("missing TEXT", "Use `loci note \"We deploy on Fridays\" --room Backend`, or `loci note - < notes.txt`")
	}
	o := palace.RememberOptions{Room: *room, Importance: *importance, ReplyTo: strings.TrimSpace(*replyTo)}
	if err := palace.CheckUnit("--importance", *importance); err != nil || *importance < 0.01 {
		return nil, &cliError{Type: "invalid_args", Message: fmt.Sprintf("--importance must be between 0.01 and 1, got %v", *importance),
			Detail: map[string]any{"flag": "importance"}}
	}
	for _, t := range strings.Split(*tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			o.Tags = append(o.Tags, t)
		}
	}
	if o.Session, err = palace.CheckSessionName("--session", *session); err != nil {
		return nil, flagError("session", err)
	}
	if o.Speaker, err = palace.CheckSpeakerName("--speaker", *speaker); err != nil {
		return nil, flagError("speaker", err)
	}
	if *stamp != "" {
		if o.When, err = eventTime(*stamp); err != nil {
			return nil, flagError("timestamp", err)
		}
	}
	p, _, done, err := cliPalace(ctx, env, c, true)
	if err != nil {
		return nil, err
	}
	defer done()
	d, err := p.Remember(ctx, text, o)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"drawer_id": d.ID, "palace": p.Name(), "status": "stored", "room": d.Room,
		"timestamp": d.Timestamp.UTC().Format(time.RFC3339)}
	if d.SessionID != "" {
		data["session"] = d.SessionID
	}
	if sp := palace.SpeakerOf(d); sp != "" {
		data["speaker"] = sp
	}
	return &result{data: data, text: func(w io.Writer) {
		fmt.Fprintf(w, "stored %s in %s of palace %s\n", d.ID, d.Room, p.Name())
	}}, nil
}

// flagError is err, a palace argument error about --flag, in the CLI's
// envelope.
func flagError(flag string, err error) error {
	if palace.ErrorCode(err) != palace.CodeInvalid {
		return err
	}
	return &cliError{Type: "invalid_args", Message: err.Error(), Detail: map[string]any{"flag": flag}}
}

// eventTime reads a time given as RFC 3339 or as epoch milliseconds (or
// seconds: palace.Epoch, as mem_save_turn reads one).
func eventTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 || n > 1e15 {
			return time.Time{}, palace.Invalidf("--timestamp must be positive epoch milliseconds, got %d", n)
		}
		return palace.Epoch(n), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, palace.Invalidf("--timestamp must be RFC 3339 or epoch milliseconds, got %q", s)
	}
	return t, nil
}
