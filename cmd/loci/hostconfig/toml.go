package hostconfig

import (
	"fmt"
	"strings"
)

// Codex keeps its MCP servers in TOML (~/.codex/config.toml). loci edits
// that file as text, touching only the [mcp_servers.loci] table (and its
// sub-tables on uninstall), so comments, ordering and every other table
// stay byte for byte. It needs no TOML library: it only has to find table
// headers, which it does line by line while skipping multi-line strings.

// tomlSection is a table of a TOML document: its header's key path and the
// lines [start, end) it spans, header included. The root section (before
// any header) has a nil path and no header line.
type tomlSection struct {
	path       []string
	array      bool // [[array.of.tables]]
	start, end int
}

// scanTOML splits a document's lines into sections.
func scanTOML(lines []string) []tomlSection {
	secs := []tomlSection{{start: 0}}
	state := 0 // 0 normal, 1 inside """, 2 inside '''
	depth := 0 // open brackets of a value array spanning lines
	for i, line := range lines {
		if state == 0 && depth == 0 {
			if t := strings.TrimSpace(line); strings.HasPrefix(t, "[") {
				if path, array, ok := parseTOMLHeader(t); ok {
					secs[len(secs)-1].end = i
					secs = append(secs, tomlSection{path: path, array: array, start: i})
					continue
				}
			}
		}
		var delta int
		state, delta = tomlLineState(line, state)
		depth = max(depth+delta, 0)
	}
	secs[len(secs)-1].end = len(lines)
	return secs
}

// tomlLineState returns the multi-line string state after line and the
// change in open brackets outside strings and comments.
func tomlLineState(line string, state int) (int, int) {
	delta := 0
	for i := 0; i < len(line); {
		switch state {
		case 1:
			j := strings.Index(line[i:], `"""`)
			if j < 0 {
				return 1, delta
			}
			if k := i + j; k > 0 && line[k-1] == '\\' && !evenBackslashes(line[:k]) {
				i = k + 1
				continue
			}
			i, state = i+j+3, 0
		case 2:
			j := strings.Index(line[i:], `'''`)
			if j < 0 {
				return 2, delta
			}
			i, state = i+j+3, 0
		default:
			switch {
			case line[i] == '#':
				return 0, delta
			case line[i] == '[':
				delta, i = delta+1, i+1
			case line[i] == ']':
				delta, i = delta-1, i+1
			case strings.HasPrefix(line[i:], `"""`):
				i, state = i+3, 1
			case strings.HasPrefix(line[i:], `'''`):
				i, state = i+3, 2
			case line[i] == '"':
				i++
				for i < len(line) && line[i] != '"' {
					if line[i] == '\\' {
						i++
					}
					i++
				}
				i++
			case line[i] == '\'':
				i++
				for i < len(line) && line[i] != '\'' {
					i++
				}
				i++
			default:
				i++
			}
		}
	}
	return state, delta
}

// evenBackslashes reports whether s ends in an even number of backslashes.
func evenBackslashes(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 0
}

// parseTOMLHeader parses "[a.b]" or "[[a.b]]" (with an optional comment).
func parseTOMLHeader(t string) (path []string, array, ok bool) {
	array = strings.HasPrefix(t, "[[")
	open, close := "[", "]"
	if array {
		open, close = "[[", "]]"
	}
	body := t[len(open):]
	end := findUnquoted(body, close)
	if end < 0 {
		return nil, false, false
	}
	rest := strings.TrimSpace(body[end+len(close):])
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return nil, false, false
	}
	path = splitTOMLKey(body[:end])
	return path, array, len(path) > 0
}

// findUnquoted is the index of sub in s outside quoted strings, or -1.
func findUnquoted(s, sub string) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch {
		case quote != 0:
			if s[i] == '\\' && quote == '"' {
				i++
			} else if s[i] == quote {
				quote = 0
			}
		case s[i] == '"' || s[i] == '\'':
			quote = s[i]
		case strings.HasPrefix(s[i:], sub):
			return i
		}
	}
	return -1
}

// splitTOMLKey splits a dotted key into its unquoted parts.
func splitTOMLKey(k string) []string {
	var parts []string
	for {
		i := findUnquoted(k, ".")
		part := k
		if i >= 0 {
			part = k[:i]
		}
		part = strings.TrimSpace(part)
		if len(part) >= 2 && (part[0] == '"' || part[0] == '\'') && part[len(part)-1] == part[0] {
			part = part[1 : len(part)-1]
		}
		parts = append(parts, part)
		if i < 0 {
			return parts
		}
		k = k[i+1:]
	}
}

// tomlKeyOf returns the key path of a "key = value" line, or nil.
func tomlKeyOf(line string) []string {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "[") {
		return nil
	}
	eq := findUnquoted(t, "=")
	if eq <= 0 {
		return nil
	}
	return splitTOMLKey(t[:eq])
}

func hasPrefixPath(path, prefix []string) bool {
	if len(path) < len(prefix) {
		return false
	}
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}

// tomlString renders s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlServerBlock is the [mcp_servers.<name>] table loci writes.
func tomlServerBlock(name, command string, args []string) []string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = tomlString(a)
	}
	return []string{
		"[mcp_servers." + name + "]",
		"command = " + tomlString(command),
		"args = [" + strings.Join(quoted, ", ") + "]",
	}
}

// tomlSignificant drops blank and comment-only lines and trims the rest.
func tomlSignificant(lines []string) []string {
	var out []string
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			out = append(out, t)
		}
	}
	return out
}

// tomlConflict reports a definition of mcp_servers.<name> that is not a
// [mcp_servers.<name>] table (a dotted key or an inline table), which loci
// will not try to rewrite.
func tomlConflict(lines []string, secs []tomlSection, name string) error {
	for _, s := range secs {
		var prefix []string
		switch {
		case s.path == nil:
			prefix = []string{"mcp_servers"}
		case len(s.path) == 1 && s.path[0] == "mcp_servers":
			prefix = []string{name}
		default:
			continue
		}
		for i := s.start; i < s.end; i++ {
			if s.path != nil && i == s.start {
				continue
			}
			k := tomlKeyOf(lines[i])
			if k == nil || !hasPrefixPath(k, prefix) {
				continue
			}
			if s.path == nil && len(k) > 1 && k[1] != name {
				continue
			}
			return fmt.Errorf("line %d defines mcp_servers.%s with a dotted key or an inline table; "+
				"remove it (or turn it into a [mcp_servers.%s] table) and run again", i+1, name, name)
		}
	}
	return nil
}

// tomlLines splits a document into lines without their newline.
func tomlLines(doc string) []string {
	doc = strings.TrimSuffix(doc, "\n")
	if doc == "" {
		return nil
	}
	return strings.Split(doc, "\n")
}

func tomlJoin(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// tomlInstallServer makes [mcp_servers.<name>] hold block. It returns the
// new document and whether anything changed.
func tomlInstallServer(doc, name string, block []string) (string, bool, error) {
	lines := tomlLines(doc)
	secs := scanTOML(lines)
	if err := tomlConflict(lines, secs, name); err != nil {
		return "", false, err
	}
	for _, s := range secs {
		if s.array || len(s.path) != 2 || s.path[0] != "mcp_servers" || s.path[1] != name {
			continue
		}
		if strings.Join(tomlSignificant(lines[s.start:s.end]), "\n") == strings.Join(block, "\n") {
			return doc, false, nil
		}
		end := s.end // keep the blank lines that end the table
		for end > s.start+1 && strings.TrimSpace(lines[end-1]) == "" {
			end--
		}
		out := append(append(append([]string{}, lines[:s.start]...), block...), lines[end:]...)
		return strings.Join(out, "\n") + "\n", true, nil
	}
	out := append([]string{}, lines...)
	if len(out) > 0 && strings.TrimSpace(out[len(out)-1]) != "" {
		out = append(out, "")
	}
	out = append(out, block...)
	return strings.Join(out, "\n") + "\n", true, nil
}

// tomlRemoveServer removes [mcp_servers.<name>] and its sub-tables.
func tomlRemoveServer(doc, name string) (string, bool) {
	lines := tomlLines(doc)
	drop := map[int]bool{}
	for _, s := range scanTOML(lines) {
		if s.path != nil && hasPrefixPath(s.path, []string{"mcp_servers", name}) {
			for i := s.start; i < s.end; i++ {
				drop[i] = true
			}
		}
	}
	if len(drop) == 0 {
		return doc, false
	}
	var out []string
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l)
		}
	}
	return tomlJoin(out), true
}
