package chatexport

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

func at(y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
}

// An Android export: a line per message, continued on the lines after it,
// the app's own lines (no sender) left out, placeholders kept as text.
func TestReadWhatsAppAndroid(t *testing.T) {
	export := "\ufeff12/05/2023, 14:02 - Messages and calls are end-to-end encrypted. No one outside of this chat can read them.\n" +
		"12/05/2023, 14:02 - Ana: we adopted a greyhound\n" +
		"her name is Pixel\n" +
		"\n" +
		"she sleeps all day\n" +
		"12/05/2023, 14:03 - Ana: <Media omitted>\n" +
		"13/05/2023, 09:15 - Ben Ode: so cute!!\n" +
		"13/05/2023, 09:16 - Ben Ode added Cy\n" +
		"13/05/2023, 09:17 - Ben Ode changed the subject to \"Pixel: the first week\"\n"
	c, err := ReadWhatsApp(strings.NewReader(export), "Ana", OrderAuto)
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 2, 0), Text: "we adopted a greyhound\nher name is Pixel\n\nshe sleeps all day", Line: 2},
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 3, 0), Text: "<Media omitted>", Line: 6},
		{Sender: "Ben Ode", Time: at(2023, 5, 13, 9, 15, 0), Text: "so cute!!", Line: 7},
	}
	if !reflect.DeepEqual(c.Messages, want) || c.AppLines != 3 || c.Name != "Ana" || c.Format != FormatWhatsApp {
		t.Errorf("read %+v (%d app lines)", c, c.AppLines)
	}
}

// An iPhone export: the time in brackets with seconds, a left-to-right
// mark before the app's lines and its placeholders.
func TestReadWhatsAppIPhone(t *testing.T) {
	export := "[12/05/2023, 14:02:33] Ana: \u200eMessages and calls are end-to-end encrypted. No one outside of this chat can read them.\n" +
		"\u200e[12/05/2023, 14:02:40] Ana: \u200e<attached: 00000012-PHOTO-2023-05-12-14-02-40.jpg>\n" +
		"[12/05/2023, 14:03:05] Ana: look at her ears\n" +
		"[12/05/2023, 14:04:10] Ben: \u200eimage omitted\n"
	c, err := ReadWhatsApp(strings.NewReader(export), "Ana", OrderAuto)
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 2, 40), Text: "<attached: 00000012-PHOTO-2023-05-12-14-02-40.jpg>", Line: 2},
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 3, 5), Text: "look at her ears", Line: 3},
		{Sender: "Ben", Time: at(2023, 5, 12, 14, 4, 10), Text: "image omitted", Line: 4},
	}
	if !reflect.DeepEqual(c.Messages, want) || c.AppLines != 1 {
		t.Errorf("read %+v (%d app lines)", c.Messages, c.AppLines)
	}
}

// A date's order is read from the file: a number above 12 says which is
// the day; a file that never shows it is read month first when its clock
// has AM and PM, day first otherwise, unless the order is given.
func TestWhatsAppDateOrder(t *testing.T) {
	for _, c := range []struct {
		name, export, order string
		want                time.Time
	}{
		{"day above 12", "03/04/2023, 10:00 - Ana: hi\n13/04/2023, 10:00 - Ana: hi", OrderAuto, at(2023, 4, 3, 10, 0, 0)},
		{"month second above 12", "04/03/2023, 10:00 - Ana: hi\n04/13/2023, 10:00 - Ana: hi", OrderAuto, at(2023, 4, 3, 10, 0, 0)},
		{"a 12-hour clock", "3/4/23, 2:05\u202fPM - Ana: hi", OrderAuto, at(2023, 3, 4, 14, 5, 0)},
		{"midnight on a 12-hour clock", "[3/4/23, 12:05:09 AM] Ana: hi", OrderAuto, at(2023, 3, 4, 0, 5, 9)},
		{"a 24-hour clock", "03/04/2023, 10:00 - Ana: hi", OrderAuto, at(2023, 4, 3, 10, 0, 0)},
		{"given", "03/04/2023, 10:00 - Ana: hi", OrderMDY, at(2023, 3, 4, 10, 0, 0)},
		{"year first", "2023-04-03, 10:00 - Ana: hi", OrderMDY, at(2023, 4, 3, 10, 0, 0)},
		{"dots", "03.04.23, 10:00 - Ana: hi", OrderAuto, at(2023, 4, 3, 10, 0, 0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			chat, err := ReadWhatsApp(strings.NewReader(c.export), "Ana", c.order)
			if err != nil {
				t.Fatal(err)
			}
			if got := chat.Messages[0].Time; !got.Equal(c.want) {
				t.Errorf("read %v, want %v", got, c.want)
			}
		})
	}
}

// What is no export is refused with the line that shows it.
func TestReadWhatsAppRefuses(t *testing.T) {
	for _, c := range []struct{ export, order, want string }{
		{"hello there\n12/05/2023, 14:02 - Ana: hi", "", "line 1 is no WhatsApp message"},
		{"\n\n", "", "no WhatsApp message"},
		{"31/02/2023, 14:02 - Ana: hi", "", "line 1: 31/02/2023 14:02 is no date and time"},
		{"12/05/2023, 14:02 - Ana: hi", "ymd", `date order "ymd"`},
	} {
		if _, err := ReadWhatsApp(strings.NewReader(c.export), "Ana", c.order); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.export, err, c.want)
		}
	}
}

func TestChatName(t *testing.T) {
	for path, want := range map[string]string{
		"/x/WhatsApp Chat with Ana.txt": "Ana",
		"WhatsApp Chat - Ben Ode.zip":   "Ben Ode",
		"family.txt":                    "family",
	} {
		if got := chatName(path); got != want {
			t.Errorf("chatName(%q) = %q, want %q", path, got, want)
		}
	}
}

// writeZip writes a .zip of files (name to body) at path.
func writeZip(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// The .zip an export with media shares is read through its _chat.txt.
func TestOpenZip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "WhatsApp Chat - Ana.zip")
	writeZip(t, path, map[string]string{
		"_chat.txt":                              "[12/05/2023, 14:02:33] Ana: we adopted a greyhound\n[12/05/2023, 14:02:40] Ana: \u200e<attached: 00000012-PHOTO-2023-05-12-14-02-40.jpg>\n",
		"00000012-PHOTO-2023-05-12-14-02-40.jpg": "\xff\xd8",
	})
	chats, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := chats[0]
	if len(chats) != 1 || c.Name != "Ana" || len(c.Messages) != 2 || c.Messages[0].Text != "we adopted a greyhound" {
		t.Errorf("read %+v", c)
	}
}

// Stored, a chat's messages are turns of one session with their senders
// and times, found by what they say; a second import of the same export
// stores nothing, and a later export stores only what is new.
func TestStore(t *testing.T) {
	p := palacetest.MustOpenPalace(t)
	ctx := context.Background()
	export := "12/05/2023, 14:02 - Ana: we adopted a greyhound called Pixel\n" +
		"12/05/2023, 14:02 - Ana: <Media omitted>\n" +
		"12/05/2023, 14:05 - Ben: so cute, what breed is she?\n" +
		"12/05/2023, 14:06 - Ana: a rescue from the track, four years old\n"
	read := func(s string) *Chat {
		t.Helper()
		c, err := ReadWhatsApp(strings.NewReader(s), "Ana", OrderAuto)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	st, err := Store(ctx, p, read(export), StoreOptions{})
	if err != nil || st.Stored != 4 || st.Skipped != 0 {
		t.Fatalf("stored %+v, %v", st, err)
	}
	if st, err := Store(ctx, p, read(export), StoreOptions{}); err != nil || st.Stored != 0 || st.Skipped != 4 {
		t.Fatalf("imported again: %+v, %v", st, err)
	}
	// A later export keeps the chat's latest messages: it may begin later.
	later := export[strings.Index(export, "\n")+1:] + "13/05/2023, 08:00 - Ben: how was her first night?\n" +
		"13/05/2023, 08:00 - Ana: lol\n" + "13/05/2023, 08:00 - Ana: lol\n"
	if st, err := Store(ctx, p, read(later), StoreOptions{}); err != nil || st.Stored != 3 || st.Skipped != 3 {
		t.Fatalf("a later export: %+v, %v", st, err)
	}
	hits, err := p.Search(ctx, palace.SearchRequest{Query: "How old is Ana's greyhound?", K: 3, NoAccess: true})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v, %d hits", err, len(hits))
	}
	var answer *palace.Drawer
	for _, h := range hits {
		if strings.HasSuffix(h.Drawer.Content, "four years old") {
			answer = h.Drawer
		}
	}
	if answer == nil || answer.SessionID != "whatsapp:Ana" || !reflect.DeepEqual(answer.SenderIDs, []string{"Ana"}) ||
		!answer.Timestamp.Equal(at(2023, 5, 12, 14, 6, 0)) || answer.Kind != palace.KindTurn {
		t.Errorf("the answer among the first three: %+v", answer)
	}
}

// A message the palace refuses (over its limit of a text) is left out and
// reported with its line; the others are stored.
func TestStoreReportsRefused(t *testing.T) {
	p := palacetest.MustOpenPalace(t)
	c := &Chat{Name: "Ana", Format: FormatWhatsApp, Messages: []Message{
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 2, 0), Text: "hi", Line: 1},
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 3, 0), Text: strings.Repeat("x", palace.MaxContentBytes), Line: 2},
		{Sender: "Ben", Time: at(2023, 5, 12, 14, 4, 0), Text: "hello", Line: 40},
	}}
	st, err := Store(context.Background(), p, c, StoreOptions{})
	if err != nil || st.Stored != 2 || len(st.Refused) != 1 || st.Refused[0].Line != 2 || !strings.Contains(st.Refused[0].Reason, "the limit is") {
		t.Fatalf("stored %+v, %v", st, err)
	}
}

// A secret pasted into a chat is redacted before it is stored, as
// wherever text enters the palace, and counted.
func TestStoreRedacts(t *testing.T) {
	p := palacetest.MustOpenPalace(t)
	ctx := context.Background()
	secret := "ghp_" + strings.Repeat("aB3", 12)
	c := &Chat{Name: "Ana", Format: FormatWhatsApp, Messages: []Message{
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 2, 0), Text: "the deploy token is " + secret, Line: 1},
	}}
	st, err := Store(ctx, p, c, StoreOptions{})
	if err != nil || st.Stored != 1 || st.Redactions != 1 {
		t.Fatalf("stored %+v, %v", st, err)
	}
	d, err := p.Get(ctx, Drawers(c, "")[0].ID)
	if err != nil || strings.Contains(d.Content, secret) || !strings.Contains(d.Content, "ghp_[REDACTED]") {
		t.Fatalf("stored %q (%v)", d.Content, err)
	}
}

// memFile is a file of an export held in memory.
func memFile(name, data string) *exportFile {
	return &exportFile{name: name, open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }}
}

// A folder of chats exported one by one is read as each of them, each
// named from its file; a name given for all of them is refused, as is a
// folder with a text that is no chat (named in the error).
func TestOpenFolderOfChats(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "WhatsApp Chat with Ana.txt"), []byte("12/05/2023, 14:02 - Ana: we adopted a greyhound\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "WhatsApp Chat with Ben.txt"), []byte("11/05/2023, 09:00 - Ben: lunch?\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "IMG-20230512-WA0007.jpg"), []byte("\xff\xd8"), 0o600)
	chats, err := Open(dir, OpenOptions{})
	if err != nil || len(chats) != 2 || chats[0].Name != "Ben" || chats[1].Name != "Ana" || SessionID(chats[1]) != "whatsapp:Ana" {
		t.Fatalf("%d chats, %v", len(chats), err)
	}
	if _, err := Open(dir, OpenOptions{Name: "Ana"}); err == nil || !strings.Contains(err.Error(), "a name is for one chat") {
		t.Errorf("a name for two chats: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("buy milk\n"), 0o600)
	if _, err := Open(dir, OpenOptions{}); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("a folder with notes: %v", err)
	}
}

// A message that names the message it answers is stored naming that
// message's drawer; a reply to a message the chat does not hold (older
// than the export) names none.
func TestDrawersReplies(t *testing.T) {
	c := &Chat{ID: "7", Name: "Climbers", Format: FormatTelegram, Messages: []Message{
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 2, 0), Text: "who brings the rope?", ID: "1"},
		{Sender: "Cy", Time: at(2023, 5, 12, 14, 3, 0), Text: "anyone see the game?", ID: "2"},
		{Sender: "Ben", Time: at(2023, 5, 12, 14, 4, 0), Text: "me", ID: "3", ReplyTo: "1"},
		{Sender: "Cy", Time: at(2023, 5, 12, 14, 5, 0), Text: "as I said", ID: "4", ReplyTo: "0"},
	}}
	ds := Drawers(c, "")
	if got := ds[2].Meta[palace.MetaReplyTo]; got != ds[0].ID {
		t.Errorf("the reply names %v, not %s", got, ds[0].ID)
	}
	if ds[0].Meta != nil || ds[1].Meta != nil || ds[3].Meta != nil {
		t.Errorf("messages that answer what is before them name a message: %v %v %v", ds[0].Meta, ds[1].Meta, ds[3].Meta)
	}
}

// mustReadAs stops the test when the chats read are not those wanted,
// after logging them.
func mustReadAs(t *testing.T, chats, want []*Chat) {
	t.Helper()
	if !reflect.DeepEqual(chats, want) {
		for _, c := range chats {
			t.Logf("%+v", *c)
		}
		t.Fatal("read otherwise")
	}
}

// A wall clock an export writes without its zone (WhatsApp's, Telegram's)
// is read in the zone given, this machine's by default: the message keeps
// the instant it names. The message's drawer is the same whichever zone it
// is read in, so that an export imported again elsewhere, or with another
// zone, stores nothing twice. An export that writes instants (Slack's)
// reads the same in every zone.
func TestWallClocksAreReadInAZone(t *testing.T) {
	dir := t.TempDir()
	whatsapp := filepath.Join(dir, "WhatsApp Chat with Ana.txt")
	os.WriteFile(whatsapp, []byte("30/05/2023, 00:30 - Ana: the plumber finally came\n30/05/2023, 00:31 - Ben: at midnight?\n"), 0o600)
	telegram := filepath.Join(dir, "result.json")
	os.WriteFile(telegram, []byte(`{"name":"Ana","type":"personal_chat","id":7,"messages":[
		{"id":1,"type":"message","date":"2023-05-30T00:30:00","from":"Ana","text":"the plumber finally came"}]}`), 0o600)
	newYork := time.FixedZone("EDT", -4*3600)
	for _, path := range []string{whatsapp, telegram} {
		read := func(zone *time.Location) *Chat {
			t.Helper()
			chats, err := Open(path, OpenOptions{Zone: zone})
			if err != nil || len(chats) != 1 {
				t.Fatalf("%s: %v %v", path, chats, err)
			}
			return chats[0]
		}
		ny, utc := read(newYork), read(time.UTC)
		if got := ny.Messages[0].Time.UTC().Format(time.RFC3339); got != "2023-05-30T04:30:00Z" {
			t.Errorf("%s read in New York: %s, want 04:30 UTC", filepath.Base(path), got)
		}
		if got := utc.Messages[0].Time.UTC().Format(time.RFC3339); got != "2023-05-30T00:30:00Z" {
			t.Errorf("%s read in UTC: %s", filepath.Base(path), got)
		}
		a, b := Drawers(ny, ""), Drawers(utc, "")
		for i := range a {
			if a[i].ID != b[i].ID || !a[i].Timestamp.Equal(ny.Messages[i].Time) {
				t.Errorf("%s message %d: drawer %s read in New York, %s in UTC; want one drawer", filepath.Base(path), i, a[i].ID, b[i].ID)
			}
		}
	}
}

// A Telegram export that gives each message's instant beside its wall
// clock (date_unixtime) names the zone it was written in: the message
// keeps that instant in whatever zone it is read, and its drawer is the
// one the wall clock alone names.
func TestTelegramInstantsNameTheirZone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	os.WriteFile(path, []byte(`{"name":"Ana","type":"personal_chat","id":7,"messages":[
		{"id":1,"type":"message","date":"2023-05-30T00:30:00","date_unixtime":"1685421000","from":"Ana","text":"the plumber finally came"},
		{"id":2,"type":"message","date":"2023-05-30T00:31:00","date_unixtime":"not a time","from":"Ben","text":"at midnight?"}]}`), 0o600)
	tokyo := time.FixedZone("JST", 9*3600)
	chats, err := Open(path, OpenOptions{Zone: tokyo})
	if err != nil {
		t.Fatal(err)
	}
	m := chats[0].Messages
	if got := m[0].Time.UTC().Format(time.RFC3339); got != "2023-05-30T04:30:00Z" {
		t.Errorf("a message with its instant, read in Tokyo: %s, want the instant, 04:30 UTC", got)
	}
	if got := m[1].Time.UTC().Format(time.RFC3339); got != "2023-05-29T15:31:00Z" {
		t.Errorf("a message without a readable instant, read in Tokyo: %s, want its wall clock there", got)
	}
	plain := filepath.Join(t.TempDir(), "result.json")
	os.WriteFile(plain, []byte(`{"name":"Ana","type":"personal_chat","id":7,"messages":[
		{"id":1,"type":"message","date":"2023-05-30T00:30:00","from":"Ana","text":"the plumber finally came"}]}`), 0o600)
	wallOnly, err := Open(plain, OpenOptions{Zone: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := Drawers(chats[0], "")[0].ID, Drawers(wallOnly[0], "")[0].ID; a != b {
		t.Errorf("drawer %s with the instant, %s without; want one", a, b)
	}
}
