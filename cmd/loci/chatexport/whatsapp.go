package chatexport

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A WhatsApp export ("Export chat" on a phone) is a text file of one line
// per message, continued on the lines after it when the message has line
// breaks. The line opens with the message's date and time, in the phone's
// locale, and its sender:
//
//	12/05/2023, 14:02 - Ana: we adopted a greyhound        (Android)
//	5/12/23, 2:02 PM - Ana: we adopted a greyhound         (Android, United States)
//	[12/05/2023, 14:02:33] Ana: we adopted a greyhound     (iPhone)
//
// A line of the app's own (the chat's encryption notice, "Ana added Ben")
// has no sender on Android; on an iPhone it has the chat's name as its
// sender and opens its text with a left-to-right mark. Photos and files
// are written as placeholders ("<Media omitted>", "‎<attached: …>",
// "IMG-….jpg (file attached)"), which the palace reads as such.
var (
	waAndroid = regexp.MustCompile(`^\x{200e}?(\d{1,4})[/.-](\d{1,2})[/.-](\d{1,4}),? (\d{1,2}):(\d{2})(?::(\d{2}))?[\s\x{202f}]?([AaPp]\.? ?[Mm]\.?)? - (.*)$`)
	waIOS     = regexp.MustCompile(`^\x{200e}?\[(\d{1,4})[/.-](\d{1,2})[/.-](\d{1,4}),? (\d{1,2}):(\d{2})(?::(\d{2}))?[\s\x{202f}]?([AaPp]\.? ?[Mm]\.?)?\] (.*)$`)
)

// Date orders of a numeric date: which of its first two numbers is the day.
const (
	// OrderAuto reads the order from the file: a first number above 12 is
	// a day, a second above 12 a day; a file that shows neither is read
	// month first when its clock has AM and PM, as the United States
	// write both, and day first otherwise.
	OrderAuto = ""
	// OrderDMY reads 03/04/2023 as 3 April.
	OrderDMY = "dmy"
	// OrderMDY reads 03/04/2023 as 4 March.
	OrderMDY = "mdy"
)

// waLine is one header line of a WhatsApp export, its fields as written.
type waLine struct {
	a, b, c      int // the date's three numbers, in the order written
	hour, minute int
	second       int
	meridiem     string // "am", "pm" or ""
	rest         string // "Ana: text" or an app's line
	ios          bool
	line         int
}

// ReadWhatsApp reads a WhatsApp export. name is the chat's name (the
// person or group it is with); order is OrderAuto, OrderDMY or OrderMDY.
// A line before the first message is an error: the file is no export.
func ReadWhatsApp(r io.Reader, name, order string) (*Chat, error) {
	if order != OrderAuto && order != OrderDMY && order != OrderMDY {
		return nil, fmt.Errorf("date order %q: use dmy or mdy", order)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var heads []waLine
	var texts []*strings.Builder
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if h, ok := readWALine(line); ok {
			h.line = n
			heads = append(heads, h)
			var b strings.Builder
			b.WriteString(h.rest)
			texts = append(texts, &b)
			continue
		}
		if len(heads) == 0 {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return nil, fmt.Errorf("line %d is no WhatsApp message (a message opens with its date, time and sender: \"12/05/2023, 14:02 - Ana: …\" or \"[12/05/2023, 14:02:33] Ana: …\")", n)
		}
		b := texts[len(texts)-1]
		b.WriteByte('\n')
		b.WriteString(line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("no WhatsApp message in the file")
	}
	dayFirst := waDayFirst(heads, order)
	chat := &Chat{Name: name, Format: FormatWhatsApp}
	for i, h := range heads {
		when, err := h.time(dayFirst)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", h.line, err)
		}
		text := clean(texts[i].String())
		sender, said, ok := waSender(text, h.ios, name)
		if !ok {
			chat.AppLines++
			continue
		}
		chat.Messages = append(chat.Messages, Message{Sender: sender, Time: when, Text: said, Line: h.line})
	}
	return chat, nil
}

func readWALine(line string) (waLine, bool) {
	m, ios := waIOS.FindStringSubmatch(line), true
	if m == nil {
		m, ios = waAndroid.FindStringSubmatch(line), false
	}
	if m == nil {
		return waLine{}, false
	}
	num := func(s string) int { v, _ := strconv.Atoi(s); return v }
	h := waLine{a: num(m[1]), b: num(m[2]), c: num(m[3]), hour: num(m[4]), minute: num(m[5]), second: num(m[6]), rest: m[8], ios: ios}
	if mer := strings.ToLower(strings.NewReplacer(".", "", " ", "").Replace(m[7])); mer != "" {
		h.meridiem = mer
	}
	return h, true
}

// waDayFirst decides the order of the file's dates (OrderAuto above).
// A date written year first (2023-05-12) says its order itself.
func waDayFirst(heads []waLine, order string) bool {
	switch order {
	case OrderDMY:
		return true
	case OrderMDY:
		return false
	}
	meridiem := false
	for _, h := range heads {
		if h.a > 31 {
			continue
		}
		if h.a > 12 {
			return true
		}
		if h.b > 12 {
			return false
		}
		meridiem = meridiem || h.meridiem != ""
	}
	return !meridiem
}

// time is the line's date and time, the wall clock as the export writes
// it (an export names no time zone).
func (h waLine) time(dayFirst bool) (time.Time, error) {
	year, month, day := h.c, h.b, h.a
	switch {
	case h.a > 31: // year first: 2023-05-12
		year, month, day = h.a, h.b, h.c
	case !dayFirst:
		month, day = h.a, h.b
	}
	if year < 100 {
		year += 2000
	}
	hour := h.hour
	switch h.meridiem {
	case "am":
		if hour == 12 {
			hour = 0
		}
	case "pm":
		if hour < 12 {
			hour += 12
		}
	}
	t := time.Date(year, time.Month(month), day, hour, h.minute, h.second, 0, time.UTC)
	if t.Month() != time.Month(month) || t.Day() != day || hour > 23 || h.minute > 59 || h.second > 59 {
		return time.Time{}, fmt.Errorf("%02d/%02d/%d %02d:%02d is no date and time", h.a, h.b, h.c, h.hour, h.minute)
	}
	return t, nil
}

// waSender splits a message's text into its sender and what it says, and
// reports false for a line of the app's own: on Android a line without a
// sender, on an iPhone one whose text opens with a left-to-right mark and
// that no placeholder is (the app's notices name the chat as their
// sender there).
func waSender(text string, ios bool, chat string) (sender, said string, ok bool) {
	sender, said, found := strings.Cut(text, ": ")
	if !found || strings.ContainsAny(sender, "\n\"“”") || len(sender) > maxSender {
		// An app's line that quotes ("Ana changed the subject to
		// "Trip: Lisbon"") names no sender before its colon.
		return "", "", false
	}
	if ios && strings.HasPrefix(said, "\u200e") && !strings.HasPrefix(said, "\u200e<attached:") && !strings.HasSuffix(said, " omitted") &&
		(sender == chat || strings.Contains(said, "end-to-end encrypted")) {
		return "", "", false
	}
	if strings.Contains(said, "Messages and calls are end-to-end encrypted") {
		return "", "", false
	}
	return strings.TrimSpace(sender), strings.TrimSpace(strings.TrimPrefix(said, "\u200e")), true
}
