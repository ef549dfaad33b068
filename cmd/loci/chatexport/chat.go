// Package chatexport reads the files chat apps export and stores their
// messages in a palace as conversation turns, each with its sender and
// its own time, so that a person's chats are recalled as the turns of any
// conversation are (palace/RECALL.md): a message borrows the one it
// answers, a silence ends an episode, a hit lifts the messages around it.
// The exports read are WhatsApp's, LINE's, Telegram's and Messenger's
// (chats between people), Slack's, Google Chat's and Discord's (a team's
// channels and threads, each thread a conversation of its own) and ChatGPT's and Claude's (a
// person's chats with an assistant); each as the file, the .zip or the
// folder it unpacks to.
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
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
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
	// Time is when the message was sent: the instant an export records
	// (Slack's, Messenger's, Discord's, Google Chat's, the assistants'),
	// or, read by Open, the wall clock WhatsApp, LINE and Telegram write
	// in OpenOptions.Zone (the parsers give that wall clock as UTC).
	Time time.Time
	Text string
	Line int // where it starts in the export
	// ID is the export's own id of the message, and ReplyTo that of the
	// message it answers, where the export records a reply to a message
	// (Telegram's and Discord's do; "" otherwise).
	ID, ReplyTo string
}

// OpenOptions say how to read an export.
type OpenOptions struct {
	// Format is one of the Format constants, or empty to tell it from the
	// file (Open).
	Format string
	// Name is a WhatsApp chat's name; empty, it is read from the file's
	// name ("WhatsApp Chat with Ana.txt" names Ana).
	Name string
	// Order is a WhatsApp export's date order (OrderAuto, OrderDMY or
	// OrderMDY).
	Order string
	// Progress, when set, is told how many of the export's files are read
	// so far (a workspace's export holds a file a channel and day).
	Progress func(read, total int)
	// Zone is the time zone of the wall clock a WhatsApp, LINE or Telegram
	// export writes (the phone's or computer's that exported it, which
	// the export does not name); nil is this machine's (time.Local).
	Zone *time.Location
}

// wallClockFormats are the exports that write a wall clock without its
// zone.
var wallClockFormats = []string{FormatWhatsApp, FormatLINE, FormatTelegram}

// inZone reads the wall clocks of chats' messages in zone: those given
// as UTC (time.UTC); a message whose export named its zone (Telegram's
// date_unixtime) carries that zone already.
func inZone(chats []*Chat, zone *time.Location) {
	for _, c := range chats {
		if !slices.Contains(wallClockFormats, c.Format) {
			continue
		}
		for i, m := range c.Messages {
			if t := m.Time; t.Location() == time.UTC {
				c.Messages[i].Time = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), zone)
			}
		}
	}
}

// Formats lists the exports Open reads.
var Formats = []string{FormatWhatsApp, FormatLINE, FormatTelegram, FormatMessenger, FormatSlack, FormatDiscord, FormatGoogleChat, FormatChatGPT, FormatClaude}

// Open reads the export at path, its format told from the file unless
// given: a .txt is LINE's (its first line "[LINE] …") or WhatsApp's; a .json is ChatGPT's or Claude's
// conversations.json (a list), Telegram's result.json (a chat, or every
// chat), a Messenger or Instagram thread's message_1.json (its
// participants) or DiscordChatExporter's export of a channel (its guild
// and channel); a .zip, or a folder (an export unpacked), holds one of
// those: WhatsApp's _chat.txt (a chat exported with its media, which are
// left out: the export's lines stand for them), conversations.json,
// result.json, the message_N.json of every thread of Meta's download, a
// Slack workspace's export (users.json beside a folder a channel), the
// Google Chat part of a Google Takeout (Groups/…/messages.json), or
// Discord channels' .json files. Its chats are given in the order they
// began.
func Open(path string, opt OpenOptions) ([]*Chat, error) {
	if opt.Format != "" && !slices.Contains(Formats, opt.Format) {
		return nil, fmt.Errorf("unknown format %q: use %s", opt.Format, strings.Join(Formats, ", "))
	}
	name := opt.Name
	if name == "" {
		name = chatName(path)
	}
	files, done, err := readExport(path)
	defer done()
	if err != nil {
		return nil, err
	}
	if opt.Progress != nil {
		read := 0
		for _, f := range files {
			f.loaded = func() { read++; opt.Progress(read, len(files)) }
		}
	}
	format, err := formatOf(files, opt.Format)
	if err != nil {
		return nil, err
	}
	var chats []*Chat
	switch format {
	case FormatWhatsApp:
		chats, err = readTexts(files, path, opt.Name, name, func(data []byte, name string) (*Chat, error) {
			return ReadWhatsApp(bytes.NewReader(data), name, opt.Order)
		})
	case FormatLINE:
		chats, err = readTexts(files, path, opt.Name, name, func(data []byte, name string) (*Chat, error) {
			c, err := readLINE(data, name)
			if err == nil && opt.Name != "" {
				c.Name = opt.Name // over the header's
			}
			return c, err
		})
	case FormatTelegram:
		var data []byte
		if data, err = files[0].load(); err == nil {
			chats, err = readTelegram(data)
		}
	case FormatMessenger:
		chats, err = readEach(files, readMessenger)
	case FormatSlack:
		chats, err = readSlack(files)
	case FormatDiscord:
		chats, err = readEach(files, readDiscord)
	case FormatGoogleChat:
		chats, err = readGoogleChat(files)
	default:
		var data []byte
		if data, err = files[0].load(); err == nil {
			chats, err = ReadAssistantChats(data)
		}
		for _, c := range chats {
			if err == nil && opt.Format != "" && c.Format != opt.Format {
				err = fmt.Errorf("conversation %q is %s's export, not %s's", c.Name, c.Format, opt.Format)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	inZone(chats, cmp.Or(opt.Zone, time.Local))
	sortChats(chats)
	return chats, nil
}

// readTexts reads the chats of text exports (WhatsApp's, LINE's): one
// file, named name, or a folder of chats exported one by one, each named
// from its file (a name given for all of them is refused).
func readTexts(files []*exportFile, path, given, name string, read func(data []byte, name string) (*Chat, error)) ([]*Chat, error) {
	if len(files) > 1 && given != "" {
		return nil, fmt.Errorf("a name is for one chat, and %s holds %d (%s, …): leave the name out, and each chat is named from its file", path, len(files), filepath.Base(filepath.FromSlash(files[0].name)))
	}
	var chats []*Chat
	for _, f := range files {
		data, err := f.load()
		if err != nil {
			return nil, err
		}
		if len(files) > 1 {
			name = chatName(f.name) // a folder of chats, each exported alone
		}
		c, err := read(data, name)
		if err != nil {
			if len(files) > 1 {
				err = fmt.Errorf("%s: %w", f.name, err)
			}
			return nil, err
		}
		f.data = nil
		chats = append(chats, c)
	}
	return chats, nil
}

// readEach reads files one at a time with read (a file's chats), so that
// one file's bytes are in memory at once, and joins the chats of one id
// that several files hold (a thread's message_1.json and message_2.json, a
// channel exported in parts), its messages in the order they were sent,
// each numbered by its place.
func readEach(files []*exportFile, read func(name string, data []byte) ([]*Chat, error)) ([]*Chat, error) {
	byID := map[string]*Chat{}
	var chats []*Chat
	for _, f := range files {
		data, err := f.load()
		if err != nil {
			return nil, err
		}
		got, err := read(f.name, data)
		f.data = nil
		if err != nil {
			return nil, err
		}
		for _, c := range got {
			if have := byID[c.ID]; have != nil {
				have.Messages = append(have.Messages, c.Messages...)
				have.AppLines += c.AppLines
				continue
			}
			byID[c.ID] = c
			chats = append(chats, c)
		}
	}
	for _, c := range chats {
		sort.SliceStable(c.Messages, func(i, j int) bool { return c.Messages[i].Time.Before(c.Messages[j].Time) })
		for i := range c.Messages {
			c.Messages[i].Line = i + 1
		}
	}
	return chats, nil
}

// sortChats orders chats by their first message's time, the order a
// person had them in.
func sortChats(chats []*Chat) {
	sort.SliceStable(chats, func(i, j int) bool { return first(chats[i]).Before(first(chats[j])) })
}

func first(c *Chat) time.Time {
	if len(c.Messages) == 0 {
		return time.Time{}
	}
	return c.Messages[0].Time
}

// exportFile is a file of an export: its name (within a .zip or a folder)
// and its bytes, read when a reader asks for them (load), so that an export
// of many files (a workspace's channels, Meta's threads) is held in memory
// a file at a time.
type exportFile struct {
	name   string
	open   func() (io.ReadCloser, error)
	data   []byte // once loaded
	loaded func() // told when the file is read, if set
}

// load reads the file, at most maxFile bytes, once.
func (f *exportFile) load() ([]byte, error) {
	if f.data != nil {
		return f.data, nil
	}
	rc, err := f.open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := readAtMost(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	f.data = data
	if f.loaded != nil {
		f.loaded()
	}
	return data, nil
}

// readExport lists the files of the export at path: the file itself, or
// of a .zip or a folder (an export unpacked) the files that hold its chats
// (exportIn). release closes the .zip once its files are read.
func readExport(path string) (files []*exportFile, release func(), err error) {
	release = func() {}
	st, err := os.Stat(path)
	if err != nil {
		return nil, release, err
	}
	var fsys fs.FS
	switch {
	case st.IsDir():
		fsys = os.DirFS(path)
	case strings.EqualFold(filepath.Ext(path), ".zip"):
		f, err := os.Open(path)
		if err != nil {
			return nil, release, err
		}
		zr, err := zip.NewReader(f, st.Size())
		if err != nil {
			f.Close()
			return nil, release, fmt.Errorf("%s: %w", path, err)
		}
		fsys, release = zr, func() { f.Close() }
	default:
		return []*exportFile{{name: filepath.Base(path), open: func() (io.ReadCloser, error) { return os.Open(path) }}}, release, nil
	}
	var names []string
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			names = append(names, name)
		}
		return err
	})
	if err != nil {
		return nil, release, fmt.Errorf("%s: %w", path, err)
	}
	for _, name := range exportIn(names) {
		files = append(files, &exportFile{name: name, open: func() (io.ReadCloser, error) { return fsys.Open(name) }})
	}
	if len(files) == 0 {
		return nil, release, fmt.Errorf("%s holds no chat: no _chat.txt, conversations.json, result.json, messages/inbox/…/message_1.json, Slack's users.json and channel folders, Google Chat's Groups/…/messages.json, or a Discord channel's .json", path)
	}
	return files, release, nil
}

func readAtMost(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err == nil && len(data) > maxFile {
		err = fmt.Errorf("over %d bytes", maxFile)
	}
	return data, err
}

// exportIn are the files of a .zip or a folder (names, slash-separated)
// that hold its chats: conversations.json or result.json; the
// message_N.json of Meta's threads; Google Chat's Groups/…/messages.json
// and group_info.json; a Slack workspace's users.json,
// channels.json and day files (slackFiles); WhatsApp's _chat.txt, or its
// .txt files (an Android export's one, or a folder of chats exported one
// by one); or else its .json files (DiscordChatExporter writes a file a
// channel). Files beside them (photos, voice notes) are left out.
func exportIn(names []string) []string {
	var chat string
	var txts, threads, gchat, jsons []string
	for _, name := range names {
		base := path.Base(name)
		switch {
		case base == "conversations.json" || base == "result.json":
			return []string{name}
		case reThreadFile.MatchString(name):
			threads = append(threads, name)
		case reGoogleChatFile.MatchString(name):
			gchat = append(gchat, name)
		case base == "_chat.txt":
			chat = name
		case strings.EqualFold(path.Ext(base), ".txt"):
			txts = append(txts, name)
		case strings.EqualFold(path.Ext(base), ".json"):
			jsons = append(jsons, name)
		}
	}
	switch {
	case len(threads) > 0:
		return threads
	case len(gchat) > 0:
		return gchat
	case slackFiles(jsons) != nil:
		return slackFiles(jsons)
	case chat != "":
		return []string{chat}
	case len(txts) > 0:
		return txts
	}
	return jsons
}

// reThreadFile is a file of a Messenger or Instagram thread in Meta's
// download: messages/inbox/<thread>/message_<n>.json.
var reThreadFile = regexp.MustCompile(`(?:^|/)messages/(?:inbox|archived_threads|filtered_threads|e2ee_cutover)/[^/]+/message_\d+\.json$`)

// formatOf is the format of an export's files: the one given, or the one
// their names and first file's bytes show.
func formatOf(files []*exportFile, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	var names []string
	for _, f := range files {
		names = append(names, f.name)
	}
	if slackFiles(names) != nil {
		return FormatSlack, nil
	}
	if reGoogleChatFile.MatchString(names[0]) {
		return FormatGoogleChat, nil
	}
	f := files[0]
	data, err := f.load()
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(filepath.Ext(f.name), ".json") {
		if isLINE(data) {
			return FormatLINE, nil
		}
		return FormatWhatsApp, nil
	}
	data = bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(data) > 0 && data[0] == '[' {
		return FormatChatGPT, nil // or Claude's: ReadAssistantChats tells them apart
	}
	var probe struct {
		Participants json.RawMessage `json:"participants"`
		Guild        json.RawMessage `json:"guild"`
		Channel      json.RawMessage `json:"channel"`
		Messages     []struct {
			Creator json.RawMessage `json:"creator"`
		} `json:"messages"`
	}
	if json.Unmarshal(data, &probe) == nil {
		switch {
		case probe.Participants != nil:
			return FormatMessenger, nil
		case probe.Guild != nil && probe.Channel != nil:
			return FormatDiscord, nil
		case len(probe.Messages) > 0 && probe.Messages[0].Creator != nil:
			return FormatGoogleChat, nil
		}
	}
	return FormatTelegram, nil
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
	seen := map[string]int{}      // a message's key -> how many such came before
	drawer := map[string]string{} // an export's message id -> its drawer's
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
		// A reply to an earlier message borrows it (palace.MetaReplyTo),
		// not the message sent just before it.
		if to := drawer[m.ReplyTo]; m.ReplyTo != "" && to != "" {
			out[i].Meta = map[string]any{palace.MetaReplyTo: to}
		}
		if m.ID != "" {
			drawer[m.ID] = out[i].ID
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
// chat, and the message's time (as the export writes it: wallMillis),
// sender and text.
func messageKey(c *Chat, m Message) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%s\x00%s", c.Format, cmp.Or(c.ID, c.Name), wallMillis(m.Time), m.Sender, m.Text)
}

// wallMillis is t's reading on the clock of its own zone, in milliseconds
// as if that clock were UTC: the time an export writes, whichever zone it
// is read in. A message's id rests on it, so that an export imported on
// machines in other zones, or with --tz, names its messages the same
// drawers, and one imported before wall clocks were read in a zone too.
func wallMillis(t time.Time) int64 {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC).UnixMilli()
}

// messageID is a message's drawer id: a UUID whose first 48 bits are the
// message's time as its export writes it, in milliseconds (wallMillis; as
// the palace's own ids, UUID version 7, order by time) and whose rest is
// a hash of its key (messageKey) and of how many messages of the same key
// came before it ("lol" sent twice in a minute is two messages). A message's place in the export is not in it:
// an export keeps a chat's latest messages (WhatsApp's, 40,000 without
// media), so a later one may begin later, and its messages keep their ids.
func messageID(key string, n int, t time.Time) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", key, n)))
	var b [16]byte
	ms := uint64(max(wallMillis(t), 0))
	for j := range 6 {
		b[j] = byte(ms >> (40 - 8*j))
	}
	copy(b[6:], h[:10])
	b[6] = b[6]&0x0f | 0x70 // version 7
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
