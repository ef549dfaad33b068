// Package chatexport reads the files chat apps export and stores their
// messages in a palace as conversation turns, each with its sender and
// its own time, so that a person's chats are recalled as the turns of any
// conversation are (palace/RECALL.md): a message borrows the one it
// answers, a silence ends an episode, a hit lifts the messages around it.
// The exports read are WhatsApp's (a chat between people) and ChatGPT's
// and Claude's (a person's chats with an assistant).
//
// # API
//
//	Open(path, opt) ([]*Chat, error)          read an export, its format told by its name and content
//	ReadWhatsApp(r, name, order) (*Chat, error)
//	ReadAssistantChats(data) ([]*Chat, error) ChatGPT's or Claude's conversations.json
//	Store(ctx, p, chat, opt) (Stats, error)   write a chat's messages, skipping those already stored
//
// A message's drawer id is made from the chat and the message's time,
// sender and text, so importing the same export twice, or a later export
// of the same chat, stores each message once.
package chatexport

import (
	"archive/zip"
	"bytes"
	"cmp"
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

// FormatWhatsApp names WhatsApp's export of a chat.
const FormatWhatsApp = "whatsapp"

const (
	maxLine   = 16 << 20 // a message's line: beyond the palace's limit on a text, which refuses the message alone
	maxSender = 100      // a sender's name as an export writes it
	maxFile   = 1 << 30  // an export's text
	batchSize = 500      // messages stored in one transaction
)

// Chat is one conversation read from an export.
type Chat struct {
	// ID is the export's own id of the conversation (ChatGPT's and
	// Claude's); a WhatsApp chat has none, and its Name stands for it.
	ID       string
	Name     string // the person or group the chat is with, or its title
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

// OpenOptions say how to read an export.
type OpenOptions struct {
	// Format is FormatWhatsApp, FormatChatGPT or FormatClaude, or empty to
	// tell it from the file: a .txt, or a .zip holding one, is WhatsApp's;
	// a .json, or a .zip holding conversations.json, ChatGPT's or Claude's
	// (by its fields).
	Format string
	// Name is a WhatsApp chat's name; empty, it is read from the file's
	// name ("WhatsApp Chat with Ana.txt" names Ana).
	Name string
	// Order is a WhatsApp export's date order (OrderAuto, OrderDMY or
	// OrderMDY).
	Order string
}

// Open reads the export at path: WhatsApp's .txt, or the .zip WhatsApp
// shares when a chat is exported with its media (its _chat.txt is read;
// the media are left out, and the export's lines stand for them); or the
// conversations.json of ChatGPT's or Claude's export, alone or in the .zip
// they send. Its chats are given in the order they began.
func Open(path string, opt OpenOptions) ([]*Chat, error) {
	switch opt.Format {
	case "", FormatWhatsApp, FormatChatGPT, FormatClaude:
	default:
		return nil, fmt.Errorf("unknown format %q: use whatsapp, chatgpt or claude", opt.Format)
	}
	name := opt.Name
	if name == "" {
		name = chatName(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	inner := filepath.Base(path)
	if strings.EqualFold(filepath.Ext(path), ".zip") {
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		zr, err := zip.NewReader(f, st.Size())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		zf := exportIn(zr)
		if zf == nil {
			return nil, fmt.Errorf("%s holds no chat: neither a chat's .txt nor conversations.json", path)
		}
		rc, err := zf.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer rc.Close()
		r, inner = rc, zf.Name
	}
	data, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("the export is over %d bytes", maxFile)
	}
	format := opt.Format
	if format == "" {
		format = FormatWhatsApp
		if strings.EqualFold(filepath.Ext(inner), ".json") {
			format = FormatChatGPT // or Claude's: ReadAssistantChats tells them apart
		}
	}
	if format == FormatWhatsApp {
		c, err := ReadWhatsApp(bytes.NewReader(data), name, opt.Order)
		if err != nil {
			return nil, err
		}
		return []*Chat{c}, nil
	}
	chats, err := ReadAssistantChats(data)
	if err != nil {
		return nil, err
	}
	for _, c := range chats {
		if opt.Format != "" && c.Format != opt.Format {
			return nil, fmt.Errorf("conversation %q is %s's export, not %s's", c.Name, c.Format, opt.Format)
		}
	}
	sortChats(chats)
	return chats, nil
}

// exportIn is the file of a .zip that holds its chats: conversations.json,
// or WhatsApp's _chat.txt (or its one .txt).
func exportIn(zr *zip.Reader) *zip.File {
	var txt *zip.File
	for _, zf := range zr.File {
		switch base := filepath.Base(zf.Name); {
		case base == "conversations.json":
			return zf
		case strings.EqualFold(filepath.Ext(base), ".txt") && (txt == nil || base == "_chat.txt"):
			txt = zf
		}
	}
	return txt
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
	Stored     int       `json:"stored"`
	Skipped    int       `json:"skipped"` // already in the palace
	Redactions int       `json:"redactions"`
	Refused    []Refusal `json:"refused,omitempty"`
}

// Refusal is a message the palace refused, and why.
type Refusal struct {
	// Line is where the message starts in a WhatsApp export, or its place
	// in its conversation in a JSON export.
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// SessionID is the session a chat's messages are stored in: its format's
// name and its id ("chatgpt:67a1…"), or a WhatsApp chat's name
// ("whatsapp:Ana").
func SessionID(c *Chat) string { return c.Format + ":" + cmp.Or(c.ID, c.Name) }

// Drawers are a chat's messages as the turn drawers Store writes, in
// order, with their ids.
func Drawers(c *Chat, room string) []*palace.Drawer {
	out := make([]*palace.Drawer, len(c.Messages))
	seen := map[string]int{} // a message's key -> how many such came before
	for i, m := range c.Messages {
		key := messageKey(c, m)
		n := seen[key]
		seen[key]++
		out[i] = &palace.Drawer{
			ID:        messageID(key, n, m.Time),
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
// stored (the same export imported again) is skipped. A message the
// palace refuses (over its limit of a text) is left out and reported in
// Stats.Refused, and the rest are stored.
func Store(ctx context.Context, p *palace.Palace, c *Chat, opt StoreOptions) (Stats, error) {
	var st Stats
	var ds []*palace.Drawer
	for i, d := range Drawers(c, opt.Room) {
		if err := palace.CheckDrawer(d); err != nil {
			st.Refused = append(st.Refused, Refusal{Line: c.Messages[i].Line, Reason: err.Error()})
			continue
		}
		ds = append(ds, d)
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

// messageKey is what tells a message from the others of its chat: the
// chat, and the message's time, sender and text.
func messageKey(c *Chat, m Message) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%s\x00%s", c.Format, cmp.Or(c.ID, c.Name), m.Time.UnixMilli(), m.Sender, m.Text)
}

// messageID is a message's drawer id: a UUID whose first 48 bits are the
// message's time in milliseconds (as the palace's own ids, UUID version 7,
// order by time) and whose rest is a hash of its key (messageKey) and of
// how many messages of the same key came before it ("lol" sent twice in a
// minute is two messages). A message's place in the export is not in it:
// an export keeps a chat's latest messages (WhatsApp's, 40,000 without
// media), so a later one may begin later, and its messages keep their ids.
func messageID(key string, n int, t time.Time) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", key, n)))
	var b [16]byte
	ms := uint64(max(t.UnixMilli(), 0))
	for j := range 6 {
		b[j] = byte(ms >> (40 - 8*j))
	}
	copy(b[6:], h[:10])
	b[6] = b[6]&0x0f | 0x70 // version 7
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
