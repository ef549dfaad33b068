package chatexport

import (
	"encoding/json"
	"fmt"
	"html"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// FormatSlack names a Slack workspace's export: a .zip (or the folder it
// unpacks to) holding users.json, channels.json (and groups.json,
// mpims.json and dms.json where the export has private channels and
// direct messages) and a folder a conversation, with a file a day of its
// messages (general/2023-05-12.json).
const FormatSlack = "slack"

// slackFiles are the files of a Slack export among names (the .json files
// of a .zip or a folder): its users.json and conversation lists, and the
// day files of the folders beside them; nil when names hold no users.json
// or channels.json, or no day file beside it.
func slackFiles(names []string) []string {
	root := ""
	found := false
	for _, name := range names {
		if base := path.Base(name); base == "users.json" || base == "channels.json" {
			root, found = path.Dir(name), true
			break
		}
	}
	if !found {
		return nil
	}
	var lists, days []string
	for _, name := range names {
		dir := path.Dir(name)
		switch {
		case dir == root && slackLists[path.Base(name)]:
			lists = append(lists, name)
		case path.Dir(dir) == root && reSlackDay.MatchString(path.Base(name)):
			days = append(days, name)
		}
	}
	if len(days) == 0 {
		return nil
	}
	sort.Strings(days) // a conversation's days in order
	return append(lists, days...)
}

// slackLists are the files of a Slack export that name its people and
// its conversations.
var slackLists = map[string]bool{"users.json": true, "channels.json": true, "groups.json": true, "mpims.json": true, "dms.json": true}

var reSlackDay = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}\.json$`)

type slackUser struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	RealName string `json:"real_name"`
	Profile  struct {
		DisplayName string `json:"display_name"`
		RealName    string `json:"real_name"`
	} `json:"profile"`
}

// name is how the workspace shows a person: the name they chose to be
// shown by, else their full name, else their user name.
func (u slackUser) name() string {
	for _, s := range []string{u.Profile.DisplayName, u.Profile.RealName, u.RealName, u.Name} {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return u.ID
}

type slackConversation struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Members []string `json:"members"`
}

type slackMessage struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	User        string `json:"user"`
	Username    string `json:"username"` // an integration's post
	Text        string `json:"text"`
	TS          string `json:"ts"`
	ThreadTS    string `json:"thread_ts"`
	UserProfile *struct {
		DisplayName string `json:"display_name"`
		RealName    string `json:"real_name"`
		Name        string `json:"name"`
	} `json:"user_profile"`
	BotProfile *struct {
		Name string `json:"name"`
	} `json:"bot_profile"`
	Files []struct {
		Mimetype string `json:"mimetype"`
	} `json:"files"`
}

// slackKept are the subtypes of a message someone wrote: a plain
// message, a reply also sent to the channel, a file shared with a
// comment, an integration's post, and /me. The others are the app's own
// lines (someone joined, a topic set, a message pinned).
var slackKept = map[string]bool{"": true, "thread_broadcast": true, "file_share": true, "bot_message": true, "me_message": true}

// readSlack reads a Slack export (files as slackFiles lists them): one
// chat a channel, private channel or direct conversation, and one a
// thread. A thread is a conversation of its own, its first message and
// the replies to it, which Slack shows apart from the channel: a reply
// answers the thread, not the channel's message before it. A thread
// whose replies the export does not hold stays in its channel. Times are
// UTC: the export has no one's wall clock.
func readSlack(files []*exportFile) ([]*Chat, error) {
	users := map[string]string{}     // user id -> name
	channels := map[string]string{}  // channel id -> name, for "<#C…>"
	convs := map[string]*slackConv{} // folder -> conversation
	var folders []string             // in the order their days are read
	for _, f := range files {
		base := path.Base(f.name)
		if !slackLists[base] {
			break // the lists come first
		}
		data, err := f.load()
		if err != nil {
			return nil, err
		}
		if base == "users.json" {
			var us []slackUser
			if err := json.Unmarshal(data, &us); err != nil {
				return nil, fmt.Errorf("not a Slack export's users.json: %v", err)
			}
			for _, u := range us {
				users[u.ID] = u.name()
			}
			f.data = nil
			continue
		}
		var cs []slackConversation
		if err := json.Unmarshal(data, &cs); err != nil {
			return nil, fmt.Errorf("not a Slack export's %s: %v", base, err)
		}
		f.data = nil
		for _, c := range cs {
			folder := c.Name
			if base == "dms.json" {
				folder = c.ID // a direct conversation's folder is its id
			}
			convs[folder] = &slackConv{id: c.ID, kind: base, name: c.Name, members: c.Members}
			if c.Name != "" {
				channels[c.ID] = c.Name
			}
		}
	}
	for _, f := range files {
		if !reSlackDay.MatchString(path.Base(f.name)) {
			continue
		}
		folder := path.Base(path.Dir(f.name))
		conv := convs[folder]
		if conv == nil {
			conv = &slackConv{id: folder, name: folder}
			convs[folder] = conv
		}
		if conv.chat == nil {
			conv.chat = &Chat{ID: conv.id, Name: conv.title(users), Format: FormatSlack}
			folders = append(folders, folder)
		}
		data, err := f.load()
		if err != nil {
			return nil, err
		}
		var ms []slackMessage
		if err := json.Unmarshal(data, &ms); err != nil {
			return nil, fmt.Errorf("not a Slack export's day of messages (%s): %v", f.name, err)
		}
		f.data = nil
		for _, m := range ms {
			conv.add(m, users, channels)
		}
	}
	if len(folders) == 0 {
		return nil, fmt.Errorf("not a Slack export: no users.json beside folders of days (general/2023-05-12.json)")
	}
	var chats []*Chat
	for _, folder := range folders {
		chats = append(chats, convs[folder].chats()...)
	}
	return chats, nil
}

// slackConv is a conversation of a Slack export as it is read: the
// channel's own messages and those of each thread (threaded).
type slackConv struct {
	id, kind, name string
	members        []string
	threaded
}

// title is a conversation's name as Slack shows it: "#general" for a
// channel, the people of a direct conversation.
func (c *slackConv) title(users map[string]string) string {
	switch c.kind {
	case "dms.json", "mpims.json":
		var names []string
		for _, id := range c.members {
			names = append(names, nameOr(users, id))
		}
		if len(names) > 0 {
			return strings.Join(names, ", ")
		}
	}
	return "#" + c.name
}

func nameOr(users map[string]string, id string) string {
	if n := users[id]; n != "" {
		return n
	}
	return id
}

// add reads one message into the channel or its thread.
func (c *slackConv) add(m slackMessage, users, channels map[string]string) {
	if m.Type != "message" || !slackKept[m.Subtype] {
		c.chat.AppLines++
		return
	}
	when, ok := slackTime(m.TS)
	if !ok {
		return
	}
	sender := users[m.User]
	switch {
	case sender != "":
	case m.UserProfile != nil:
		sender = firstOf(m.UserProfile.DisplayName, m.UserProfile.RealName, m.UserProfile.Name)
	case m.BotProfile != nil:
		sender = strings.TrimSpace(m.BotProfile.Name)
	}
	sender = firstOf(sender, m.Username, m.User)
	text := clean(slackText(m.Text, users, channels))
	if text == "" && len(m.Files) > 0 {
		text = fileLine(m.Files[0].Mimetype)
	}
	if text == "" || sender == "" {
		return
	}
	c.put(Message{Sender: sender, Time: when, Text: text}, m.ThreadTS, m.ThreadTS == m.TS)
}

// slackTime reads a message's ts ("1683900100.000200": Unix seconds and
// microseconds, the message's id in its channel).
func slackTime(ts string) (time.Time, bool) {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || s <= 0 {
		return time.Time{}, false
	}
	var us int64
	if frac != "" {
		frac = (frac + "000000")[:6]
		if us, err = strconv.ParseInt(frac, 10, 64); err != nil {
			return time.Time{}, false
		}
	}
	return time.Unix(s, us*1000).UTC(), true
}

// reSlackMarkup is Slack's markup in a message's text: a mention, a
// channel, a link, each between angle brackets.
var reSlackMarkup = regexp.MustCompile(`<([^<>\n]*)>`)

// slackText is a message's text as Slack shows it: "<@U123>" as "@Ana",
// "<#C123|general>" as "#general", "<!here>" as "@here", a link as its
// label and address ("<https://x.io|the doc>" as "the doc (https://x.io)"),
// and the three characters Slack escapes unescaped.
func slackText(s string, users, channels map[string]string) string {
	s = reSlackMarkup.ReplaceAllStringFunc(s, func(m string) string {
		target, label, _ := strings.Cut(m[1:len(m)-1], "|")
		switch {
		case strings.HasPrefix(target, "@"):
			return "@" + firstOf(label, nameOr(users, target[1:]))
		case strings.HasPrefix(target, "#"):
			return "#" + firstOf(label, channels[target[1:]], target[1:])
		case strings.HasPrefix(target, "!subteam^"):
			return firstOf(label, "@team")
		case strings.HasPrefix(target, "!date^"):
			return label
		case strings.HasPrefix(target, "!"):
			return "@" + strings.TrimPrefix(target, "!")
		case strings.HasPrefix(target, "mailto:"):
			return firstOf(label, strings.TrimPrefix(target, "mailto:"))
		case label != "" && label != target:
			return label + " (" + target + ")"
		}
		return target
	})
	return html.UnescapeString(s)
}

// opening is the start of a text, to name a thread by.
func opening(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const n = 48
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	return strings.TrimSpace(string(r)) + "…"
}

// fileLine is the line a message of a file and no text is stored as, by
// the file's type.
func fileLine(mime string) string {
	switch kind, _, _ := strings.Cut(mime, "/"); {
	case mime == "image/gif":
		return lineGIF
	case kind == "image":
		return linePhoto
	case kind == "video":
		return lineVideo
	case kind == "audio":
		return lineVoice
	}
	return lineFile
}

// firstOf is the first of ss that is not blank, trimmed.
func firstOf(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}
