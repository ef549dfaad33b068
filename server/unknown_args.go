package server

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/server/argname"
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
// ignored (argname.Warning): each with the argument it likely meant, or,
// where none is likely, with the arguments the tool takes; at most
// argname.MaxNamed of them, and a count of the rest.
func argWarnings(tool string, unknown []string, t reflect.Type) []string {
	plan := planOf(t)
	names := make([]string, len(plan.fields))
	for i, f := range plan.fields {
		names[i] = f.name
	}
	out := make([]string, 0, min(len(unknown), argname.MaxNamed))
	for _, name := range unknown[:min(len(unknown), argname.MaxNamed)] {
		out = append(out, argname.Warning("argument", name, "", tool, names))
	}
	return argname.Bound("argument", out, len(unknown))
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
