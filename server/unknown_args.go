package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/loci-mem/loci/palace"
)

// Arguments a tool does not take. JSON Schema lets an object hold members
// its schema does not name, and the contracts' schemas do not forbid them,
// so a call with one is answered as it always was. But an argument that is
// ignored is most often a misspelt one ("tags" for memory_recall's "tag",
// "k" or "limit" for its "top_k", "id" for memory_forget's "drawer_id"),
// and a filter dropped in silence gives an agent results it believes are
// filtered. So a call that had one says so:
//
//   - a result that is a JSON object gains "warnings", one sentence an
//     argument ("unknown argument 'tags' ignored; did you mean 'tag'?"),
//     after the members the contract gives it;
//   - a markdown result (the mem_* tools') ends with the same sentences;
//   - a result of another shape (the recall tool's array, the remember
//     tool's line: seed 004's) is sent as it is, since a client parses it
//     whole, and the warnings go to the log;
//   - a failure's message ("missing 'text'", as the contract words it)
//     goes on with them, which says why a required argument is missing
//     when the call named it otherwise ("content").
//
// Only the arguments object's own members are read; the members of a
// nested object (mem_save_turn's messages) are decoded by their own rules.

// takes reports whether name is an argument of the plan, or an alias of one.
func (p *argPlan) takes(name string) bool {
	for _, f := range p.fields {
		if f.name == name || f.alias != "" && f.alias == name {
			return true
		}
	}
	return false
}

// argWarnings are the sentences that say a call's unknown arguments were
// ignored: each with the argument it likely meant, or, where none is
// likely, with the arguments the tool takes.
func argWarnings(tool string, unknown []string, t reflect.Type) []string {
	plan := planOf(t)
	names := make([]string, len(plan.fields))
	for i, f := range plan.fields {
		names[i] = f.name
	}
	takes := strings.Join(names, ", ")
	out := make([]string, 0, min(len(unknown), maxArgWarnings+1))
	for i, name := range unknown {
		if i == maxArgWarnings {
			out = append(out, fmt.Sprintf("%d more unknown arguments ignored", len(unknown)-i))
			break
		}
		shown := clipArgName(name)
		if meant := plan.meant(name); meant != "" {
			out = append(out, fmt.Sprintf("unknown argument '%s' ignored; did you mean '%s'?", shown, meant))
			continue
		}
		out = append(out, fmt.Sprintf("unknown argument '%s' ignored; %s takes %s", shown, tool, takes))
	}
	return out
}

// maxArgWarnings is how many unknown arguments a call's warnings name one
// by one; the rest are counted, so that what a call is told stays short
// whatever it sends.
const maxArgWarnings = 5

// maxArgNameShown bounds how much of an unknown argument's name a warning
// repeats: a name is the caller's input, and may be anything.
const maxArgNameShown = 64

func clipArgName(name string) string {
	if r := []rune(name); len(r) > maxArgNameShown {
		return string(r[:maxArgNameShown]) + "…"
	}
	return name
}

// Names by which other memory APIs call an argument that loci names
// otherwise: how many results (mem0's limit, LangChain's k), and the text
// to store.
var (
	countNames = []string{"k", "n", "limit", "count", "size", "max", "top", "topn", "maxresults", "numresults", "topk"}
	textNames  = []string{"text", "content", "memory", "body", "message", "note", "fact"}
)

// meant is the argument a name most likely stands for, or "": the same
// name written in another case or with other separators (topK, top-k),
// its singular or plural, a misspelling of one or two letters, a part of
// one and of no other ("id" of drawer_id), or a name another memory API
// gives it (countNames, textNames).
func (p *argPlan) meant(name string) string {
	n := squash(name)
	if n == "" {
		return ""
	}
	near, nearest := "", 3 // the closest misspelling, and its distance
	var part []string
	for _, f := range p.fields {
		k := squash(f.name)
		if k == n || k == n+"s" || k+"s" == n || k == n+"es" || k+"es" == n {
			return f.name
		}
		if d := editDistance(n, k, 2); d < nearest && (d == 1 || len(k) > 5) {
			near, nearest = f.name, d
		}
		if len(n) >= 2 && (strings.HasPrefix(k, n) || strings.HasSuffix(k, n)) ||
			len(k) >= 3 && strings.HasPrefix(n, k) {
			part = append(part, f.name)
		}
	}
	if near != "" {
		return near
	}
	if len(part) == 1 {
		return part[0]
	}
	for _, group := range [][]string{countNames, textNames} {
		if !slices.Contains(group, n) {
			continue
		}
		for _, f := range p.fields {
			if k := squash(f.name); k != n && slices.Contains(group, k) {
				return f.name
			}
		}
	}
	return ""
}

// squash writes an argument's name in lower case without separators, so
// that top_k, topK and top-k read alike.
func squash(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r != '_' && r != '-' && r != ' ' && r != '.' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// editDistance is the Levenshtein distance between a and b (bytes), or
// limit+1 once it is certain to exceed limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			low = min(low, cur[j])
		}
		if low > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// withWarnings adds warnings to a JSON object's text as its "warnings"
// member, after the others.
func withWarnings(text string, warnings []string) string {
	if len(warnings) == 0 {
		return text
	}
	w, err := resultJSON(warnings)
	if err != nil {
		return text
	}
	if strings.TrimSpace(text[1:len(text)-1]) == "" {
		return `{"warnings":` + w + `}`
	}
	return text[:len(text)-1] + `,"warnings":` + w + `}`
}

// isJSONObject reports whether a result's text is one JSON object, which
// a member can be added to without changing its shape.
func isJSONObject(text string) bool {
	return strings.HasPrefix(text, "{") && strings.HasSuffix(text, "}") && json.Valid([]byte(text))
}

// withNotes adds warnings to markdown as closing lines.
func withNotes(md string, warnings []string) string {
	if len(warnings) == 0 {
		return md
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(md, "\n"))
	b.WriteString("\n\n")
	for _, w := range warnings {
		b.WriteString("> Note: " + w + "\n")
	}
	return b.String()
}

// noteWarnings logs the warnings of a result whose shape has no place for
// them (a JSON array, seed 004's one line), where the host keeps loci's log.
func (s *Server) noteWarnings(tool string, warnings []string) {
	if len(warnings) > 0 {
		s.log.Warn().Str("tool", tool).Strs("warnings", warnings).Msg("tool call with arguments the tool does not take")
	}
}

// errWithWarnings adds warnings to the message of a failure meant for the
// caller, after the contract's own text, keeping its code; an internal
// failure, shown without detail, is returned as it is.
func errWithWarnings(err error, warnings []string) error {
	var pe *palace.Error
	if len(warnings) == 0 || !errors.As(err, &pe) || pe.Code == palace.CodeInternal || pe.Error() == "" {
		return err
	}
	out := *pe
	out.Message = pe.Error() + " (" + strings.Join(warnings, "; ") + ")"
	return &out
}
