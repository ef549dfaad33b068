package chatexport

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Formats of the JSON exports of two messaging apps: Telegram Desktop's
// "Export chat history" (result.json, one chat or every chat) and the
// Messenger and Instagram messages of Meta's "Download your information"
// (messages/inbox/<thread>/message_1.json, …).
const (
	FormatTelegram  = "telegram"
	FormatMessenger = "messenger"
)

// Lines a message that holds a photo, a sticker or a file and no text is
// stored as: the lines other apps' exports write for them, which the
// palace reads as placeholders (they say nothing of their own, and the
// reply after one is a reply to the message before it).
const (
	linePhoto   = "[Photo]"
	lineVideo   = "[Video]"
	lineVoice   = "[Voice message]"
	lineFile    = "[File]"
	lineGIF     = "[GIF]"
	lineSticker = "[Sticker]"
)

// telegramChat is one chat of Telegram Desktop's JSON export.
type telegramChat struct {
	Name     string      `json:"name"`
	Type     string      `json:"type"`
	ID       json.Number `json:"id"`
	Messages []struct {
		ID           json.Number     `json:"id"`
		ReplyTo      json.Number     `json:"reply_to_message_id"`
		Type         string          `json:"type"`
		Date         string          `json:"date"`
		DateUnix     json.RawMessage `json:"date_unixtime"`
		From         string          `json:"from"`
		Text         json.RawMessage `json:"text"`
		Photo        string          `json:"photo"`
		File         string          `json:"file"`
		MediaType    string          `json:"media_type"`
		StickerEmoji string          `json:"sticker_emoji"`
	} `json:"messages"`
}

// telegramZoned is a message's wall clock (as UTC) in the zone it was
// written in, where the export gives its instant too (date_unixtime,
// which Telegram Desktop writes beside date since 2022): the zone is the
// difference between the two, and the message keeps its exact instant
// whichever zone it is imported in (Open reads only a wall clock given as
// UTC in a zone). Without it, or with an offset no zone has, the wall
// clock is left to Open.
func telegramZoned(wall time.Time, unix json.RawMessage) time.Time {
	sec, err := strconv.ParseInt(strings.Trim(string(unix), `"`), 10, 64)
	if err != nil {
		return wall
	}
	off := wall.Unix() - sec
	if off%60 != 0 || off < -12*3600 || off > 14*3600 {
		return wall
	}
	return time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), 0, time.FixedZone("", int(off)))
}

// readTelegram reads Telegram's result.json: one chat's (its "messages" at
// the top) or every chat's ("chats": {"list": […]}). A service message
// ("Ana joined the group") is the app's own and is left out; a message of
// a photo, sticker or file without text is stored as the line another
// app's export writes for it (a sticker as its emoji, where it has one).
func readTelegram(data []byte) ([]*Chat, error) {
	var top struct {
		telegramChat
		Chats *struct {
			List []telegramChat `json:"list"`
		} `json:"chats"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not Telegram's result.json: %v", err)
	}
	list := []telegramChat{top.telegramChat}
	if top.Chats != nil {
		list = top.Chats.List
	}
	var chats []*Chat
	for _, tc := range list {
		c := &Chat{ID: tc.ID.String(), Name: tc.Name, Format: FormatTelegram}
		if c.ID == "" {
			c.ID = tc.Name
		}
		for i, m := range tc.Messages {
			if m.Type != "message" {
				c.AppLines++
				continue
			}
			when, err := time.Parse("2006-01-02T15:04:05", m.Date)
			if err != nil {
				return nil, fmt.Errorf("chat %q, message %d: date %q: %v", tc.Name, i+1, m.Date, err)
			}
			when = telegramZoned(when, m.DateUnix)
			text := clean(telegramText(m.Text))
			if text == "" {
				text = mediaLine(m.MediaType, m.Photo != "", m.File != "", m.StickerEmoji)
			}
			if text == "" || strings.TrimSpace(m.From) == "" {
				continue
			}
			c.Messages = append(c.Messages, Message{Sender: strings.TrimSpace(m.From), Time: when, Text: text, Line: i + 1,
				ID: m.ID.String(), ReplyTo: m.ReplyTo.String()})
		}
		chats = append(chats, c)
	}
	return chats, nil
}

// telegramText is a message's text: a string, or a list of strings and
// entities ({"type": "link", "text": …}) to be joined.
func telegramText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		var ent struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(p, &s) == nil {
			b.WriteString(s)
		} else if json.Unmarshal(p, &ent) == nil {
			b.WriteString(ent.Text)
		}
	}
	return b.String()
}

// mediaLine is the line a message of media and no text is stored as, or
// "" for a message of neither.
func mediaLine(mediaType string, photo, file bool, stickerEmoji string) string {
	switch {
	case mediaType == "sticker":
		if stickerEmoji != "" {
			return stickerEmoji
		}
		return lineSticker
	case mediaType == "voice_message" || mediaType == "audio_file":
		return lineVoice
	case mediaType == "video_file" || mediaType == "video_message":
		return lineVideo
	case mediaType == "animation":
		return lineGIF
	case photo:
		return linePhoto
	case file:
		return lineFile
	}
	return ""
}

// messengerThread is one file of a Messenger or Instagram thread in Meta's
// export: its messages newest first, its text written as the bytes of its
// UTF-8 each escaped as a character ("caf\u00c3\u00a9" for café).
type messengerThread struct {
	Title        string `json:"title"`
	ThreadPath   string `json:"thread_path"`
	Participants []struct {
		Name string `json:"name"`
	} `json:"participants"`
	Messages []struct {
		SenderName  string            `json:"sender_name"`
		TimestampMS int64             `json:"timestamp_ms"`
		Content     *string           `json:"content"`
		Photos      []json.RawMessage `json:"photos"`
		Videos      []json.RawMessage `json:"videos"`
		Audio       []json.RawMessage `json:"audio_files"`
		GIFs        []json.RawMessage `json:"gifs"`
		Files       []json.RawMessage `json:"files"`
		Sticker     json.RawMessage   `json:"sticker"`
		Unsent      bool              `json:"is_unsent"`
	} `json:"messages"`
}

// readMessenger reads one file of a Messenger or Instagram thread
// (message_1.json, message_2.json, … of each; readEach joins a thread's
// files by its thread_path and orders its messages as they were sent). A
// message of media without text is stored as the line another app's
// export writes for it; an unsent one as the placeholder iMessage and
// Messenger write.
func readMessenger(name string, data []byte) ([]*Chat, error) {
	var t messengerThread
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("not a Messenger thread's message_N.json (%s): %v", name, err)
	}
	id := t.ThreadPath
	if id == "" {
		id = mojibake(t.Title)
	}
	c := &Chat{ID: id, Name: mojibake(t.Title), Format: FormatMessenger}
	for _, m := range t.Messages {
		var text string
		switch {
		case m.Unsent:
			text = mojibake(m.SenderName) + " unsent a message"
		case m.Content != nil && strings.TrimSpace(*m.Content) != "":
			text = clean(mojibake(*m.Content))
		case len(m.Photos) > 0:
			text = linePhoto
		case len(m.Videos) > 0:
			text = lineVideo
		case len(m.Audio) > 0:
			text = lineVoice
		case len(m.GIFs) > 0:
			text = lineGIF
		case len(m.Sticker) > 0 && string(m.Sticker) != "null":
			text = lineSticker
		case len(m.Files) > 0:
			text = lineFile
		}
		if text == "" || m.SenderName == "" || m.TimestampMS <= 0 {
			continue
		}
		c.Messages = append(c.Messages, Message{Sender: mojibake(m.SenderName), Time: time.UnixMilli(m.TimestampMS).UTC(), Text: text})
	}
	return []*Chat{c}, nil
}

// mojibake undoes the way Meta's export writes text: each byte of its
// UTF-8 as the character of that number ("caf\u00c3\u00a9"). A text with a
// character above U+00FF, or whose bytes are no UTF-8, was written as it
// is and stays.
func mojibake(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			return s
		}
		b = append(b, byte(r))
	}
	if !utf8.Valid(b) {
		return s
	}
	return string(b)
}
