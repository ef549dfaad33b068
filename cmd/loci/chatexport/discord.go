package chatexport

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"
)

// FormatDiscord names DiscordChatExporter's JSON export of a Discord
// channel, direct conversation or thread: a file each (a folder of them,
// or a .zip), a channel exported in parts joined by its id. Discord's own
// data package holds only its user's side of each conversation, so it
// is not read.
const FormatDiscord = "discord"

// discordChannel is one file of DiscordChatExporter's JSON export.
type discordChannel struct {
	Guild *struct {
		Name string `json:"name"`
	} `json:"guild"`
	Channel *struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Name     string `json:"name"`
		Category string `json:"category"`
	} `json:"channel"`
	Messages []struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Content   string `json:"content"`
		Author    struct {
			Name     string `json:"name"`
			Nickname string `json:"nickname"`
		} `json:"author"`
		Attachments []struct {
			FileName string `json:"fileName"`
		} `json:"attachments"`
		Embeds []struct {
			Title       string `json:"title"`
			Description string `json:"description"`
		} `json:"embeds"`
		Stickers []json.RawMessage `json:"stickers"`
		Mentions []struct {
			ID       string `json:"id"`
			Name     string `json:"name"`
			Nickname string `json:"nickname"`
		} `json:"mentions"`
		Reference *struct {
			MessageID string `json:"messageId"`
		} `json:"reference"`
	} `json:"messages"`
}

// discordKept are the types of a message someone wrote: a message, and
// one that replies to another. The others are Discord's own (someone
// joined, a message pinned, a call, a thread started).
var discordKept = map[string]bool{"Default": true, "Reply": true}

// readDiscord reads one file of DiscordChatExporter's JSON export: a
// channel, a direct conversation or a thread (a conversation of its own,
// as Discord shows it). A message's time is the instant the export
// writes (its wall clock with the exporting computer's offset). A
// message of a sticker or an attachment and no text is stored as the line
// another app's export writes for it, and an integration's post of an
// embed and no text as the embed's title and description.
func readDiscord(name string, data []byte) ([]*Chat, error) {
	var dc discordChannel
	if err := json.Unmarshal(data, &dc); err != nil {
		return nil, fmt.Errorf("not DiscordChatExporter's JSON export of a channel (%s): %v", name, err)
	}
	if dc.Guild == nil || dc.Channel == nil || dc.Channel.ID == "" {
		return nil, fmt.Errorf("not DiscordChatExporter's JSON export of a channel (%s): no \"guild\" and \"channel\"", name)
	}
	c := &Chat{ID: dc.Channel.ID, Name: discordTitle(dc), Format: FormatDiscord}
	for i, m := range dc.Messages {
		if !discordKept[m.Type] {
			c.AppLines++
			continue
		}
		when, err := time.Parse(time.RFC3339Nano, m.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("%s, message %d: timestamp %q: %v", name, i+1, m.Timestamp, err)
		}
		sender := firstOf(m.Author.Nickname, m.Author.Name)
		mentioned := map[string]string{}
		for _, x := range m.Mentions {
			mentioned[x.ID] = firstOf(x.Nickname, x.Name)
		}
		text := clean(discordText(m.Content, mentioned))
		switch {
		case text != "":
		case len(m.Stickers) > 0:
			text = lineSticker
		case len(m.Attachments) > 0:
			text = attachmentLine(m.Attachments[0].FileName)
		case len(m.Embeds) > 0:
			text = clean(strings.TrimSpace(m.Embeds[0].Title + "\n" + m.Embeds[0].Description))
		}
		if text == "" || sender == "" {
			continue
		}
		msg := Message{Sender: sender, Time: when.UTC(), Text: text, ID: m.ID}
		if m.Reference != nil {
			msg.ReplyTo = m.Reference.MessageID
		}
		c.Messages = append(c.Messages, msg)
	}
	return []*Chat{c}, nil
}

// discordTitle names a conversation as Discord shows it: "#general" of
// its server, a thread by its name, a direct conversation by its people.
func discordTitle(dc discordChannel) string {
	guild, ch := strings.TrimSpace(dc.Guild.Name), dc.Channel
	if guild == "" || guild == "Direct Messages" || strings.HasPrefix(ch.Type, "Direct") {
		return ch.Name
	}
	if strings.HasSuffix(ch.Type, "Thread") {
		return guild + " › " + ch.Category + " › " + ch.Name
	}
	return guild + " › #" + ch.Name
}

// reDiscordMarkup is what DiscordChatExporter leaves of Discord's markup
// in a text: a mention ("<@123>", "<@!123>"), a channel ("<#123>") and a
// custom emoji ("<:party:123>").
var reDiscordMarkup = regexp.MustCompile(`<(@!?|#|a?:[A-Za-z0-9_~]+:)(\d+)>`)

// discordText is a message's text as Discord shows it: a mention as the
// name mentioned, a custom emoji as its name (":party:").
func discordText(s string, mentioned map[string]string) string {
	return reDiscordMarkup.ReplaceAllStringFunc(s, func(m string) string {
		sub := reDiscordMarkup.FindStringSubmatch(m)
		switch kind, id := sub[1], sub[2]; {
		case strings.HasPrefix(kind, "@"):
			if n := mentioned[id]; n != "" {
				return "@" + n
			}
			return m
		case kind == "#":
			return m
		default:
			return ":" + strings.Split(kind, ":")[1] + ":"
		}
	})
}

// attachmentLine is the line a message of an attachment and no text is
// stored as, by the file's extension.
func attachmentLine(file string) string {
	switch strings.ToLower(strings.TrimPrefix(path.Ext(file), ".")) {
	case "gif":
		return lineGIF
	case "jpg", "jpeg", "png", "webp", "heic", "bmp":
		return linePhoto
	case "mp4", "mov", "webm", "mkv", "avi":
		return lineVideo
	case "ogg", "mp3", "m4a", "wav", "opus", "flac":
		return lineVoice
	}
	return lineFile
}
