// Package chatexport reads the files chat apps export and stores their
// messages in a palace as conversation turns, each with its sender and
// its own time, so that a person's chats are recalled as the turns of any
// conversation are (palace/RECALL.md): a message borrows the one it
// answers, a silence ends an episode, a hit lifts the messages around it.
//
// # API
//
//	Open(path, name, order) (*Chat, error)   read an export: WhatsApp's .txt, or the .zip it shares
//	ReadWhatsApp(r, name, order) (*Chat, error)
//	Store(ctx, p, chat, opt) (Stats, error)  write a chat's messages, skipping those already stored
//
// A message's drawer id is made from the chat, the message's place in it,
// its time, sender and text, so importing the same export twice, or a
// later export of the same chat, stores each message once.
package chatexport

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
)

// FormatWhatsApp names WhatsApp's export, the one format read so far.
const FormatWhatsApp = "whatsapp"

const (
	maxLine   = 4 << 20 // a message's line: the palace's own limit on a text
	maxSender = 100     // a sender's name as an export writes it
	maxFile   = 1 << 30 // an export's text
	batchSize = 500     // messages stored in one transaction
)

// Chat is one conversation read from an export.
type Chat struct {
	Name     string // the person or group the chat is with
	Format   string
	Messages []Message
	// AppLines counts the lines of the app's own left out (the
	// encryption notice, "Ana added Ben").
	AppLines int
}

// Message is one message of a chat.
type Message struct {
	Sender string
	Time   time.Time // the wall clock the export writes, as UTC
	Text   string
	Line   int // where it starts in the export
}

// Open reads the export at path: a WhatsApp .txt, or the .zip WhatsApp
// shares when the chat is exported with its media (its _chat.txt is read;
// the media are left out, and the export's lines stand for them). name,
// when empty, is read from the file's name ("WhatsApp Chat with Ana.txt"
// names Ana).
func Open(path, name, order string) (*Chat, error) {
	if name == "" {
		name = chatName(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if strings.EqualFold(filepath.Ext(path), ".zip") {
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		zr, err := zip.NewReader(f, st.Size())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var txt *zip.File
		for _, zf := range zr.File {
			if strings.EqualFold(filepath.Ext(zf.Name), ".txt") && (txt == nil || filepath.Base(zf.Name) == "_chat.txt") {
				txt = zf
			}
		}
		if txt == nil {
			return nil, fmt.Errorf("%s holds no chat: no .txt in it", path)
		}
		rc, err := txt.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer rc.Close()
		return read(io.LimitReader(rc, maxFile+1), name, order)
	}
	return read(io.LimitReader(f, maxFile+1), name, order)
}

func read(r io.Reader, name, order string) (*Chat, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("the chat is over %d bytes", maxFile)
	}
	return ReadWhatsApp(bytes.NewReader(data), name, order)
}

// chatName is the chat's name as WhatsApp names the file it exports
// ("WhatsApp Chat with Ana.txt", "WhatsApp Chat - Ana.zip"), or the file's
// name without its extension.
func chatName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	for _, lead := range []string{"WhatsApp Chat with ", "WhatsApp Chat - ", "WhatsApp-Chat mit "} {
		if rest, ok := strings.CutPrefix(base, lead); ok && rest != "" {
			return rest
		}
	}
	return base
}

// StoreOptions are where a chat's messages go.
type StoreOptions struct {
	Room string // the palace's default when empty
	// Progress, when set, is told how many messages are stored so far.
	Progress func(done, total int)
}

// Stats is what Store did.
type Stats struct {
	Stored     int `json:"stored"`
	Skipped    int `json:"skipped"` // already in the palace
	Redactions int `json:"redactions"`
}

// SessionID is the session a chat's messages are stored in.
func SessionID(c *Chat) string { return c.Format + ":" + c.Name }

// Drawers are a chat's messages as the turn drawers Store writes, in
// order, with their ids.
func Drawers(c *Chat, room string) []*palace.Drawer {
	out := make([]*palace.Drawer, len(c.Messages))
	for i, m := range c.Messages {
		out[i] = &palace.Drawer{
			ID:        messageID(c, i, m),
			Kind:      palace.KindTurn,
			Content:   m.Sender + ": " + m.Text,
			Room:      room,
			SessionID: SessionID(c),
			SenderIDs: []string{m.Sender},
			Timestamp: m.Time,
		}
	}
	return out
}

// Store writes a chat's messages to p as turns of one session
// (SessionID), in order and in batches, each message once: one already
// stored (the same export imported again) is skipped. Every message is
// checked before any is written; one the palace would refuse fails the
// import with its line named.
func Store(ctx context.Context, p *palace.Palace, c *Chat, opt StoreOptions) (Stats, error) {
	var st Stats
	ds := Drawers(c, opt.Room)
	for i, d := range ds {
		if err := palace.CheckDrawer(d); err != nil {
			return st, palace.Invalidf("the message of line %d: %v", c.Messages[i].Line, err)
		}
	}
	for lo := 0; lo < len(ds); lo += batchSize {
		batch := ds[lo:min(lo+batchSize, len(ds))]
		ids := make([]string, len(batch))
		for i, d := range batch {
			ids[i] = d.ID
		}
		have, err := p.Store().Drawers().Existing(ctx, ids)
		if err != nil {
			return st, palace.StoreError("import chat", err)
		}
		var todo []*palace.Drawer
		for _, d := range batch {
			if have[d.ID] {
				st.Skipped++
				continue
			}
			todo = append(todo, d)
		}
		if err := p.AddMany(ctx, todo); err != nil {
			return st, err
		}
		for _, d := range todo {
			st.Redactions += d.Redactions
		}
		st.Stored += len(todo)
		if opt.Progress != nil {
			opt.Progress(lo+len(batch), len(ds))
		}
	}
	return st, nil
}

// messageID is a message's drawer id: a UUID whose first 48 bits are the
// message's time in milliseconds (as the palace's own ids, UUID version 7,
// order by time) and whose rest is a hash of the chat, the message's place
// in it, and its time, sender and text.
func messageID(c *Chat, i int, m Message) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s\x00%s", c.Format, c.Name, i, m.Time.UnixMilli(), m.Sender, m.Text)))
	var b [16]byte
	ms := uint64(max(m.Time.UnixMilli(), 0))
	for j := range 6 {
		b[j] = byte(ms >> (40 - 8*j))
	}
	copy(b[6:], h[:10])
	b[6] = b[6]&0x0f | 0x70 // version 7
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
