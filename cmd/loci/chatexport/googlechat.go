package chatexport

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"
)

// FormatGoogleChat names the Google Chat part of a Google Takeout: a
// folder a conversation (Google Chat/Groups/Space …/ or DM …/), each
// with its messages.json and group_info.json.
const FormatGoogleChat = "google-chat"

// reGoogleChatFile is a file of a conversation of Google Chat's Takeout.
var reGoogleChatFile = regexp.MustCompile(`(?:^|/)Groups/[^/]+/(?:messages|group_info)\.json$`)

type googleChatPerson struct {
	Name     string `json:"name"`
	Email    string `json:"email"`
	UserType string `json:"user_type"`
}

type googleChatMessages struct {
	Messages []struct {
		Creator       googleChatPerson `json:"creator"`
		CreatedDate   string           `json:"created_date"`
		Text          string           `json:"text"`
		TopicID       string           `json:"topic_id"`
		MessageID     string           `json:"message_id"`
		AttachedFiles []struct {
			ExportName   string `json:"export_name"`
			OriginalName string `json:"original_name"`
		} `json:"attached_files"`
	} `json:"messages"`
}

// googleChatLayout is how Google Chat's Takeout writes a message's time
// ("Thursday, November 3, 2016 at 11:59:50 AM UTC").
const googleChatLayout = "Monday, January 2, 2006 at 3:04:05 PM MST"

// readGoogleChat reads the conversations of Google Chat's Takeout (files
// as exportIn lists them: each conversation's messages.json, and its
// group_info.json where there is one). A space is a chat named by its
// name, a direct conversation by its people; a thread (the messages of
// one topic, two or more) is a chat of its own, as Slack's are
// (threaded). Times are UTC, as the export writes them.
func readGoogleChat(files []*exportFile) ([]*Chat, error) {
	type group struct {
		info *exportFile
		msgs *exportFile
	}
	groups := map[string]*group{}
	var order []string
	for _, f := range files {
		dir := path.Dir(f.name)
		g := groups[dir]
		if g == nil {
			g = &group{}
			groups[dir] = g
			order = append(order, dir)
		}
		if path.Base(f.name) == "group_info.json" {
			g.info = f
		} else {
			g.msgs = f
		}
	}
	var chats []*Chat
	for _, dir := range order {
		g := groups[dir]
		if g.msgs == nil {
			continue // a conversation without messages
		}
		name, err := googleChatTitle(g.info, path.Base(dir))
		if err != nil {
			return nil, err
		}
		data, err := g.msgs.load()
		if err != nil {
			return nil, err
		}
		var gm googleChatMessages
		if err := json.Unmarshal(data, &gm); err != nil {
			return nil, fmt.Errorf("not Google Chat's messages.json (%s): %v", g.msgs.name, err)
		}
		g.msgs.data = nil
		c := threaded{chat: &Chat{ID: path.Base(dir), Name: name, Format: FormatGoogleChat}}
		topics := map[string]int{} // a topic -> its messages
		for _, m := range gm.Messages {
			topics[m.TopicID]++
		}
		seen := map[string]bool{} // topics met so far
		for i, m := range gm.Messages {
			when, err := time.Parse(googleChatLayout, strings.Join(strings.Fields(m.CreatedDate), " "))
			if err != nil {
				return nil, fmt.Errorf("%s, message %d: date %q: %v", g.msgs.name, i+1, m.CreatedDate, err)
			}
			sender := firstOf(m.Creator.Name, m.Creator.Email)
			text := clean(m.Text)
			if text == "" && len(m.AttachedFiles) > 0 {
				text = attachmentLine(firstOf(m.AttachedFiles[0].OriginalName, m.AttachedFiles[0].ExportName))
			}
			if text == "" || sender == "" {
				continue
			}
			thread := ""
			if topics[m.TopicID] > 1 && m.TopicID != "" {
				thread = m.TopicID
			}
			c.put(Message{Sender: sender, Time: when.UTC(), Text: text, ID: m.MessageID}, thread, thread != "" && !seen[thread])
			seen[m.TopicID] = true
		}
		chats = append(chats, c.chats()...)
	}
	if len(chats) == 0 && len(order) == 0 {
		return nil, fmt.Errorf("not Google Chat's Takeout: no Groups/…/messages.json")
	}
	return chats, nil
}

// googleChatTitle names a conversation: a space by its name, a direct
// conversation by its people, else by its folder ("DM k6oxHQAAAAE").
func googleChatTitle(info *exportFile, folder string) (string, error) {
	if folder == "." {
		folder = "Google Chat" // a messages.json named alone
	}
	if info == nil {
		return folder, nil
	}
	data, err := info.load()
	if err != nil {
		return "", err
	}
	info.data = nil
	var gi struct {
		Name    string             `json:"name"`
		Members []googleChatPerson `json:"members"`
	}
	if err := json.Unmarshal(data, &gi); err != nil {
		return "", fmt.Errorf("not Google Chat's group_info.json (%s): %v", info.name, err)
	}
	if gi.Name != "" {
		return gi.Name, nil
	}
	var names []string
	for _, m := range gi.Members {
		if n := firstOf(m.Name, m.Email); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return folder, nil
	}
	return strings.Join(names, ", "), nil
}
