package httpapi

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"unicode/utf8"
)

// blockTags end a line when reducing HTML to text.
var blockTags = map[string]bool{
	"p": true, "div": true, "br": true, "li": true, "ul": true, "ol": true, "tr": true, "table": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "section": true, "article": true,
	"header": true, "footer": true, "blockquote": true, "pre": true, "hr": true, "title": true, "dt": true, "dd": true,
}

// skipTags have content that is not text.
var skipTags = map[string]bool{"script": true, "style": true, "noscript": true, "template": true, "svg": true}

// htmlToText reduces an HTML document to its visible text: scripts, styles
// and comments are dropped, block elements end lines, entities are
// decoded and runs of whitespace collapse.
func htmlToText(doc string) string {
	var b strings.Builder
	skip := ""
	for i := 0; i < len(doc); {
		if strings.HasPrefix(doc[i:], "<!--") {
			end := strings.Index(doc[i+4:], "-->")
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		if doc[i] != '<' {
			j := strings.IndexByte(doc[i:], '<')
			if j < 0 {
				j = len(doc) - i
			}
			if skip == "" {
				b.WriteString(html.UnescapeString(doc[i : i+j]))
			}
			i += j
			continue
		}
		end := strings.IndexByte(doc[i:], '>')
		if end < 0 {
			break
		}
		tag := doc[i+1 : i+end]
		i += end + 1
		closing := strings.HasPrefix(tag, "/")
		name := strings.ToLower(strings.TrimLeft(tag, "/!"))
		if k := strings.IndexAny(name, " \t\r\n/"); k >= 0 {
			name = name[:k]
		}
		switch {
		case skip != "":
			if closing && name == skip {
				skip = ""
			}
		case skipTags[name] && !closing && !strings.HasSuffix(tag, "/"):
			skip = name
		case blockTags[name]:
			b.WriteByte('\n')
		case name == "td" || name == "th":
			b.WriteByte(' ')
		}
	}
	var out []string
	for _, line := range strings.Split(b.String(), "\n") {
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// emailToText renders an RFC 5322 message as its main headers and its
// text body (text/plain preferred, else text/html reduced).
func emailToText(raw []byte) (string, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return "", mediaErrf("the email cannot be parsed: %v", err)
	}
	var b strings.Builder
	dec := new(mime.WordDecoder)
	for _, h := range []string{"From", "To", "Cc", "Date", "Subject"} {
		if v := msg.Header.Get(h); v != "" {
			if d, err := dec.DecodeHeader(v); err == nil {
				v = d
			}
			fmt.Fprintf(&b, "%s: %s\n", h, v)
		}
	}
	body, err := mailBody(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body, 0)
	if err != nil {
		return "", mediaErrf("the email body cannot be read: %v", err)
	}
	b.WriteString("\n")
	b.WriteString(strings.TrimSpace(body))
	return strings.TrimSpace(b.String()), nil
}

func mailBody(ctype, encoding string, r io.Reader, depth int) (string, error) {
	if depth > 5 {
		return "", errors.New("multipart nesting is too deep")
	}
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil || ctype == "" {
		mt = "text/plain"
	}
	r = transferDecode(encoding, r)
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(r, params["boundary"])
		var plain, htmlText string
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return "", err
			}
			text, err := mailBody(part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"), part, depth+1)
			if err != nil {
				return "", err
			}
			pmt, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
			switch {
			case plain == "" && (pmt == "text/plain" || pmt == "" || strings.HasPrefix(pmt, "multipart/")):
				plain = text
			case htmlText == "" && pmt == "text/html":
				htmlText = text
			}
		}
		if plain != "" {
			return plain, nil
		}
		return htmlText, nil
	}
	data, err := io.ReadAll(io.LimitReader(r, 16<<20))
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	switch mt {
	case "text/html":
		return htmlToText(string(data)), nil
	case "text/plain", "text/markdown":
		return string(data), nil
	default:
		return "", nil // attachments are not text
	}
}

func transferDecode(encoding string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &newlineStripper{r: r})
	}
	return r
}

// newlineStripper drops CR and LF so base64 bodies wrapped at 76 columns
// decode.
type newlineStripper struct{ r io.Reader }

func (s *newlineStripper) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	j := 0
	for _, c := range p[:n] {
		if c != '\r' && c != '\n' {
			p[j] = c
			j++
		}
	}
	return j, err
}
