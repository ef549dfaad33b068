package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loci-mem/loci/cmd/loci/chatexport"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/archive"
)

func init() {
	commands["import"] = command{"import a palace export (JSONL), or a chat exported from WhatsApp, into a palace", cli(importCmd)}
}

// importCmd is `loci import FILE [--on-conflict skip|fail]`; FILE "-"
// reads stdin. The target palace (--palace, else the repository's) is
// created if needed. The import is one transaction: all or nothing.
// With --from whatsapp (the default for a .txt or .zip) FILE is a chat
// exported from WhatsApp (importChat).
func importCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	flags := flag.NewFlagSet("import", flag.ContinueOnError)
	var c commonFlags
	c.register(flags)
	onConflict := flags.String("on-conflict", "skip", "a drawer id the palace has already: skip or fail")
	from := flags.String("from", "", "what FILE is: loci (a palace export, JSONL) or whatsapp (a chat exported from WhatsApp, .txt or the .zip it shares); default whatsapp for a .txt or .zip, loci otherwise")
	name := flags.String("name", "", "--from whatsapp: the chat's name, its session's (default: from the file's name, \"WhatsApp Chat with Ana.txt\" names Ana)")
	dateOrder := flags.String("date-order", "", "--from whatsapp: dmy or mdy, how the export writes its dates (default: read from the file)")
	room := flags.String("room", "", "--from whatsapp: the room its messages go to (default: the palace's)")
	pos, err := parseFlags(env, flags, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, invalidArgs("import needs exactly one FILE", "Use `loci import palace.jsonl --palace NAME` (- reads stdin) or `loci import \"WhatsApp Chat with Ana.txt\" --palace NAME`")
	}
	if *from == "" {
		*from = "loci"
		if ext := strings.ToLower(filepath.Ext(pos[0])); ext == ".txt" || ext == ".zip" {
			*from = chatexport.FormatWhatsApp
		}
	}
	switch *from {
	case chatexport.FormatWhatsApp:
		return importChat(ctx, env, c, pos[0], *name, *dateOrder, *room)
	case "loci":
	default:
		return nil, &cliError{Type: "invalid_args", Message: "--from must be loci or whatsapp, got " + *from, Detail: map[string]any{"flag": "from"}}
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"name", *name != ""}, {"date-order", *dateOrder != ""}, {"room", *room != ""}} {
		if f.set {
			return nil, invalidArgs("--"+f.name+" is for a chat (--from whatsapp)", "A palace export keeps its drawers' own sessions and rooms")
		}
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

// importChat stores a chat exported from WhatsApp: each message a turn of
// the chat's session with its sender and time (chatexport.Store). A
// message already in the palace is skipped, so a later export of the same
// chat adds only what is new. Nothing is stored when the file is no
// export or a message would be refused.
func importChat(ctx context.Context, env *cliEnv, c commonFlags, path, name, order, room string) (*result, error) {
	if order != chatexport.OrderAuto && order != chatexport.OrderDMY && order != chatexport.OrderMDY {
		return nil, &cliError{Type: "invalid_args", Message: "--date-order must be dmy or mdy, got " + order, Detail: map[string]any{"flag": "date-order"}}
	}
	f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	f.Close()
	chat, err := chatexport.Open(path, name, order)
	if err != nil {
		return nil, &cliError{Type: "invalid_args", Message: path + ": " + err.Error(), Detail: map[string]any{"path": path},
			Hint: "Nothing was imported. Export the chat from WhatsApp (a chat's menu, More, Export chat) and name its .txt or .zip"}
	}
	if len(chat.Messages) == 0 {
		return nil, &cliError{Type: "invalid_args", Message: path + ": the chat holds no message of a person", Detail: map[string]any{"path": path},
			Hint: "Nothing was imported: every line of the file is the app's own"}
	}
	p, _, done, err := cliPalace(ctx, env, c, true)
	if err != nil {
		return nil, err
	}
	defer done()
	bar := newProgress(env, "import", "messages")
	st, err := chatexport.Store(ctx, p, chat, chatexport.StoreOptions{Room: room, Progress: func(n, total int) { bar.Set(n, total, "") }})
	bar.Done()
	if err != nil {
		var pe *palace.Error
		if errors.As(err, &pe) && pe.Code == palace.CodeInvalid {
			return nil, &cliError{Type: "invalid_args", Message: path + ": " + pe.Message, Detail: map[string]any{"path": path},
				Hint: "Nothing was imported"}
		}
		return nil, err
	}
	first, last := chat.Messages[0].Time, chat.Messages[len(chat.Messages)-1].Time
	return &result{data: map[string]any{"palace": p.Name(), "path": path, "format": chat.Format, "chat": chat.Name,
		"session_id": chatexport.SessionID(chat), "messages": len(chat.Messages), "app_lines": chat.AppLines,
		"first": first.Format(time.RFC3339), "last": last.Format(time.RFC3339), "stats": st}, text: func(w io.Writer) {
		fmt.Fprintf(w, "imported the chat with %s into %s: %d messages (%d already there), %s to %s\n", chat.Name, p.Name(),
			st.Stored, st.Skipped, first.Format("2 Jan 2006"), last.Format("2 Jan 2006"))
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
