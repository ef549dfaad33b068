package server

import (
	"encoding/json"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

// The MCP face's field validators: one type per kind of argument, used by
// every tool that takes it, carrying both its check and its schema.

// importance is a drawer's importance weight, in [0.01, 1].
type importance float64

func (importance) schema() *schema {
	return &schema{Type: "number", Minimum: json.RawMessage("0.01"), Maximum: json.RawMessage("1")}
}

func (v *importance) check(name string) error {
	if *v < 0.01 || *v > 1 {
		return argErrorf("'%s' must be between 0.01 and 1, got %v", name, float64(*v))
	}
	return nil
}

// confidence is a confidence in [0, 1] (facts, knowledge-graph triples).
type confidence float64

func (confidence) schema() *schema {
	return &schema{Type: "number", Minimum: json.RawMessage("0"), Maximum: json.RawMessage("1")}
}

func (v *confidence) check(name string) error {
	if *v < 0 || *v > 1 {
		return argErrorf("'%s' must be between 0 and 1, got %v", name, float64(*v))
	}
	return nil
}

// factKind is one of seed 004's kinds (facts.Kinds), matched
// case-insensitively and normalised to its canonical name; "" stays "".
type factKind string

func (factKind) schema() *schema { return &schema{Type: "string", Enum: facts.KindNames()} }

func (v *factKind) check(string) error {
	if strings.TrimSpace(string(*v)) == "" {
		*v = ""
		return nil
	}
	k, err := facts.CheckKind(string(*v))
	if err != nil {
		return err
	}
	*v = factKind(k)
	return nil
}

// roomName is a room, as a filter or a drawer's room.
type roomName string

func (v *roomName) check(name string) error {
	return palace.CheckName(name, string(*v), palace.MaxRoomBytes)
}

// sessionName names a conversation (a drawer's session), by
// palace.CheckSessionName's rules; blank is none.
type sessionName string

func (v *sessionName) check(name string) error {
	s, err := palace.CheckSessionName("'"+name+"'", string(*v))
	*v = sessionName(s)
	return err
}

// speakerName is who said a text, by palace.CheckSpeakerName's rules;
// blank is none.
type speakerName string

func (v *speakerName) check(name string) error {
	s, err := palace.CheckSpeakerName("'"+name+"'", string(*v))
	*v = speakerName(s)
	return err
}

// tagName is a tag, as a filter or one of a drawer's tags.
type tagName string

func (v *tagName) check(name string) error {
	return palace.CheckName(name, string(*v), palace.MaxTagBytes)
}

// tagStrings converts decoded tags.
func tagStrings(tags []tagName) []string {
	if tags == nil {
		return nil
	}
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = string(t)
	}
	return out
}

// filter is the room, tag, session and speaker filter that recall and
// list tools share. A speaker is matched in either case ("caroline" is
// the Caroline a label names), as a person or a model types a name.
func filter(room roomName, tag tagName, session sessionName, speaker speakerName) palace.Filter {
	f := palace.Filter{Room: string(room), SessionID: string(session)}
	if tag != "" {
		f.Tags = []string{string(tag)}
	}
	if speaker != "" {
		f.Where = &palace.Pred{Field: "sender_id", Op: "eq", Value: palace.SpeakerName(string(speaker)), Fold: true}
	}
	return f
}

// count reads a result-count argument: a value below 1 means def (seed
// 000's topK), a larger one than max is cut to max.
func count(n, def, max int) int {
	if n < 1 {
		return def
	}
	return min(n, max)
}
