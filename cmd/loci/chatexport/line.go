package chatexport

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// FormatLINE names LINE's "Export chat history": a .txt whose first line
// is "[LINE] Chat history with Ana" (or its Japanese, Chinese or Thai
// form), then a date line before each day's messages and a message a
// line: its time, sender and text separated by tabs.
const FormatLINE = "line"

var (
	// reLINEDate is a date line: "2023/05/12(Fri)", "2023.05.12 Friday"
	// (year first), or "Fri, 5/12/2023" (the US form, month first).
	reLINEDate   = regexp.MustCompile(`^(\d{4})[/.](\d{1,2})[/.](\d{1,2})(?:\s*\(.*\)|\s+\S+)?$`)
	reLINEDateUS = regexp.MustCompile(`^[A-Z][a-z]{2,8},\s+(\d{1,2})/(\d{1,2})/(\d{4})$`)
	// reLINETime is a message's time: "14:02", "2:02 PM", "2:02PM", and
	// the Chinese and Japanese forms of before and after noon ("下午2:02",
	// "午後2:02").
	reLINETime = regexp.MustCompile(`^(上午|下午|午前|午後|AM|PM)?\s*(\d{1,2}):(\d{2})\s*([AaPp][Mm])?$`)
	// reLINEName takes the chat's name from the header's first line, in
	// the forms LINE writes it.
	reLINEName = regexp.MustCompile(`^\[LINE\]\s*(?:Chat history (?:with|in) (.+)|(.+?)(?:とのトーク履歴|のトーク履歴)|与(.+)的聊天记录|(.+)的聊天记录|與(.+)的聊天記錄|(.+)的聊天記錄|ประวัติการ(?:สนทนา|แชท)กับ\s*(.+)|(.+))$`)
)

// isLINE reports whether a text file is LINE's export: its first line
// opens with "[LINE]".
func isLINE(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(data, "\ufeff \t\r\n"), []byte("[LINE]"))
}

// readLINE reads LINE's export of a chat. A message's text that runs
// over several lines is written between double quotes, its own quotes
// doubled; a line that is neither a date, a message nor part of a quoted
// text goes on the message before it. A line with a time and no sender
// is LINE's own ("Ana joined the group", a call) and is left out and
// counted. Times are the wall clock the export writes, as WhatsApp's are.
func readLINE(data []byte, fallbackName string) (*Chat, error) {
	c := &Chat{Name: fallbackName, Format: FormatLINE}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var day time.Time
	var last *Message
	quoted := false // inside a text that runs over lines
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
			if m := reLINEName.FindStringSubmatch(line); m != nil {
				for _, name := range m[1:] {
					if name = strings.TrimSpace(name); name != "" {
						c.Name = name
						break
					}
				}
				continue
			}
			return nil, fmt.Errorf("line 1 is not LINE's header (\"[LINE] Chat history with …\")")
		}
		if quoted {
			last.Text += "\n" + line
			if closesQuote(line) {
				last.Text = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(last.Text, `"`), `"`), `""`, `"`)
				quoted = false
			}
			continue
		}
		if d, ok := lineDate(line); ok {
			day, last = d, nil
			continue
		}
		fields := strings.SplitN(line, "\t", 3)
		if len(fields) >= 2 {
			if h, m, ok := lineClock(fields[0]); ok {
				if day.IsZero() {
					return nil, fmt.Errorf("line %d is a message before any date line (\"2023/05/12(Fri)\")", n)
				}
				if len(fields) == 2 || strings.TrimSpace(fields[1]) == "" {
					c.AppLines++ // LINE's own line
					last = nil
					continue
				}
				text := fields[2]
				if strings.HasPrefix(text, `"`) && !closesQuote(text[1:]) {
					quoted = true
				}
				c.Messages = append(c.Messages, Message{Sender: strings.TrimSpace(fields[1]),
					Time: day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute), Text: text, Line: n})
				last = &c.Messages[len(c.Messages)-1]
				continue
			}
		}
		switch {
		case last != nil:
			last.Text += "\n" + line
		case strings.TrimSpace(line) == "" || day.IsZero():
			// the header's saved-on line, blank lines between days
		default:
			return nil, fmt.Errorf("line %d is no LINE message: %.60q", n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	kept := c.Messages[:0]
	for _, m := range c.Messages {
		if m.Text = clean(strings.TrimRight(m.Text, "\n")); m.Text != "" {
			kept = append(kept, m)
		}
	}
	c.Messages = kept
	return c, nil
}

// closesQuote reports whether a line of a quoted text ends it: it ends
// in an odd number of quotes (a quote of the text is written doubled).
func closesQuote(line string) bool {
	n := len(line) - len(strings.TrimRight(line, `"`))
	return n%2 == 1
}

// lineDate reads a date line.
func lineDate(line string) (time.Time, bool) {
	line = strings.TrimSpace(line)
	var y, mo, d int
	if m := reLINEDate.FindStringSubmatch(line); m != nil {
		y, mo, d = atoi(m[1]), atoi(m[2]), atoi(m[3])
	} else if m := reLINEDateUS.FindStringSubmatch(line); m != nil {
		y, mo, d = atoi(m[3]), atoi(m[1]), atoi(m[2])
	} else {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
	if t.Year() != y || int(t.Month()) != mo || t.Day() != d {
		return time.Time{}, false // no such day
	}
	return t, true
}

// lineClock reads a message's time as hours and minutes of its day.
func lineClock(s string) (int, int, bool) {
	m := reLINETime.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, 0, false
	}
	h, mi := atoi(m[2]), atoi(m[3])
	half := strings.ToUpper(m[1] + m[4])
	switch {
	case h > 23 || mi > 59:
		return 0, 0, false
	case half == "":
	case h < 1 || h > 12:
		return 0, 0, false
	case half == "AM" || half == "上午" || half == "午前":
		h %= 12
	default: // after noon
		h = h%12 + 12
	}
	return h, mi, true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
