package chatexport

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// LINE's export in English: the header names the chat, a date line heads
// each day, a message is its time, sender and text between tabs; a text
// over several lines is quoted, its quotes doubled; LINE's own lines (no
// sender) are left out and counted; a photo is its placeholder line.
func TestReadLINE(t *testing.T) {
	export := "\ufeff[LINE] Chat history with Ana\r\n" +
		"Saved on: 2023/05/13 10:00\r\n" +
		"\r\n" +
		"2023/05/12(Fri)\r\n" +
		"14:02\tAna\twe adopted a greyhound\r\n" +
		"14:03\tAna\t[Photo]\r\n" +
		"14:05\tBen\t\"so cute!\r\n" +
		"what is her \"\"name\"\"?\"\r\n" +
		"14:06\t\tAna unsent a message.\r\n" +
		"\r\n" +
		"Sat, 5/13/2023\r\n" +
		"9:15 AM\tAna\tPixel\r\n" +
		"下午2:00\tBen\t\"see you\"\r\n" +
		"下午2:01\tAna\t\"she said \"\"hi\"\"\r\n" +
		"to me \"\"twice\"\"\"\r\n"
	path := filepath.Join(t.TempDir(), "[LINE] Chat with Ana.txt")
	os.WriteFile(path, []byte(export), 0o600)
	chats, err := Open(path, OpenOptions{Zone: time.UTC})
	if err != nil || len(chats) != 1 {
		t.Fatalf("%d chats, %v", len(chats), err)
	}
	c := chats[0]
	want := []Message{
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 2, 0), Text: "we adopted a greyhound", Line: 5},
		{Sender: "Ana", Time: at(2023, 5, 12, 14, 3, 0), Text: "[Photo]", Line: 6},
		{Sender: "Ben", Time: at(2023, 5, 12, 14, 5, 0), Text: "so cute!\nwhat is her \"name\"?", Line: 7},
		{Sender: "Ana", Time: at(2023, 5, 13, 9, 15, 0), Text: "Pixel", Line: 12},
		{Sender: "Ben", Time: at(2023, 5, 13, 14, 0, 0), Text: "\"see you\"", Line: 13},
		{Sender: "Ana", Time: at(2023, 5, 13, 14, 1, 0), Text: "she said \"hi\"\nto me \"twice\"", Line: 14},
	}
	if c.Name != "Ana" || c.Format != FormatLINE || c.AppLines != 1 || SessionID(c) != "line:Ana" || !reflect.DeepEqual(c.Messages, want) {
		t.Errorf("read %+v", c)
	}
	// A name given is the chat's, over the header's.
	if named, err := Open(path, OpenOptions{Name: "Ana Kim"}); err != nil || named[0].Name != "Ana Kim" {
		t.Errorf("named: %v", err)
	}
}

// The header's other languages name the chat; a file that is no export
// is refused with its line.
func TestReadLINEForms(t *testing.T) {
	for header, name := range map[string]string{
		"[LINE] Chat history in Climbers": "Climbers",
		"[LINE] アナとのトーク履歴":                "アナ",
		"[LINE] 与安娜的聊天记录":                 "安娜",
		"[LINE] 登山社的聊天記錄":                 "登山社",
	} {
		c, err := readLINE([]byte(header+"\n\n2023.05.12 Friday\n午後2:05\tアナ\tこんにちは\n"), "file")
		if err != nil || c.Name != name || len(c.Messages) != 1 || c.Messages[0].Time != at(2023, 5, 12, 14, 5, 0) {
			t.Errorf("%s: %+v, %v", header, c, err)
		}
	}
	for _, bad := range []string{
		"hello\n",
		"[LINE] Chat history with Ana\n\n2023/05/12(Fri)\nnot a message\tat all\n",
		"[LINE] Chat history with Ana\n\n2023/02/30(Thu)\n14:02\tAna\thi\n",
	} {
		if _, err := readLINE([]byte(bad), "file"); err == nil || !strings.Contains(err.Error(), "line") {
			t.Errorf("%q read: %v", bad, err)
		}
	}
}
