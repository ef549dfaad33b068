// Package locomo runs the retrieval evaluation on LoCoMo, or on any file in
// LoCoMo's schema: it ingests each conversation into a fresh palace along
// one of its paths (recorded sessions, an agent's one-at-a-time
// memory_remember texts, the Claude Code Stop hook's exchanges, or the
// file's observations as facts), asks every question with evidence through
// the recall path the servers use, and scores the evidence turns' ranks
// (any@k, all@k, frac@k; ../shared/data/README.md) per category and per
// conversation range. `loci eval locomo` is its command line.
package locomo

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/loci-mem/loci/cmd/loci/chatexport"
	"github.com/loci-mem/loci/cmd/loci/claudecode"
	"github.com/loci-mem/loci/dreamer"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/bm25"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/palace/session"
	"github.com/loci-mem/loci/palace/words"
	"github.com/rs/zerolog"
)

// The LoCoMo evaluation (../shared/data/README.md): for every question with
// evidence, the turns of its own conversation are stored in a fresh palace
// through the palace API (one drawer per turn, "speaker: text" plus the
// image caption, with the session's date as event time), the question is
// asked through the same recall path as memory_recall, and the evidence turns'
// ranks give any@k, all@k and frac@k.

var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

type Sample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []QA                       `json:"qa"`
	// Observations are the facts the file states about its conversation
	// (LoCoMo's "observation": per session and speaker, a sentence and the
	// turns it rests on), in session order; the facts path stores them.
	Observations []Observation `json:"-"`
	// Observation is the file's own field, as read, for --write-data.
	Observation json.RawMessage `json:"observation,omitempty"`
	// Dropped says which items of the file could not be read and were
	// left out (a turn or a question that is not an object, a session
	// that is not a list); Run reports them.
	Dropped []string `json:"-"`
}

// UnmarshalJSON reads a conversation, leaving out, and noting in Dropped,
// the items that cannot be read: one bad item costs that item, never the
// run.
func (s *Sample) UnmarshalJSON(b []byte) error {
	if lme, ok := longMemEvalItem(b); ok {
		*s = lme
		return nil
	}
	var v struct {
		SampleID     text                       `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           json.RawMessage            `json:"qa"`
		Observation  json.RawMessage            `json:"observation"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Sample{SampleID: string(v.SampleID), Conversation: v.Conversation, Observation: v.Observation}
	s.QA, s.Dropped = readQA(v.QA)
	s.Observations = readObservations(v.Observation)
	s.Dropped = append(s.Dropped, readableSessions(s.Conversation)...)
	sessionDates(s.Conversation)
	return nil
}

// Observation is one fact a file states about its conversation and the
// turns (dia_ids) it rests on.
type Observation struct {
	Text     string
	Evidence []string
}

// readObservations reads LoCoMo's observation field, {"session_N_observation":
// {speaker: [[sentence, evidence], …]}}, sessions in their order and
// speakers by name, so a run stores them in the same order every time. An
// item that is not a sentence with evidence is left out: the facts are
// what the facts path is scored on, and a fact that rests on no turn
// cannot be scored.
func readObservations(raw json.RawMessage) []Observation {
	var sessions map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &sessions) != nil {
		return nil
	}
	keys := slices.Collect(maps.Keys(sessions))
	num := func(k string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimSuffix(k, "_observation"), "session_"))
		return n
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(num(a), num(b)), cmp.Compare(a, b)) })
	var out []Observation
	for _, k := range keys {
		var bySpeaker map[string]json.RawMessage
		if json.Unmarshal(sessions[k], &bySpeaker) != nil {
			continue
		}
		for _, who := range slices.Sorted(maps.Keys(bySpeaker)) {
			var items []json.RawMessage
			if json.Unmarshal(bySpeaker[who], &items) != nil {
				continue
			}
			for _, item := range items {
				// A sentence and its evidence, read as a question's are.
				var pair []json.RawMessage
				var said text
				var cites Evidence
				if json.Unmarshal(item, &pair) != nil || len(pair) < 2 ||
					json.Unmarshal(pair[0], &said) != nil || json.Unmarshal(pair[1], &cites) != nil {
					continue
				}
				sentence, ev := strings.TrimSpace(string(said)), normEvidence(cites)
				if sentence != "" && len(ev) > 0 {
					out = append(out, Observation{Text: sentence, Evidence: ev})
				}
			}
		}
	}
	return out
}

// sessionDateKeys are the other names a converted file may give a
// session's date (session_N_date, …), read as session_N_date_time.
var sessionDateKeys = []string{"_date", "_datetime", "_timestamp", "_time"}

// sessionDates gives each session's date LoCoMo's key, session_N_date_time,
// where the file names it another way, and writes a date given as a
// number (Unix seconds or milliseconds) as a string, as LoCoMo writes
// dates.
func sessionDates(conv map[string]json.RawMessage) {
	for _, sn := range sessionNumbers(conv) {
		key := fmt.Sprintf("session_%d_date_time", sn)
		for _, alt := range sessionDateKeys {
			if _, ok := conv[key]; ok {
				break
			}
			if raw, ok := conv[fmt.Sprintf("session_%d%s", sn, alt)]; ok {
				conv[key] = raw
			}
		}
		var n json.Number
		if raw, ok := conv[key]; ok && json.Unmarshal(raw, &n) == nil {
			conv[key], _ = json.Marshal(n.String())
		}
	}
}

// readQA reads a conversation's questions, leaving out those that are not
// objects.
func readQA(raw json.RawMessage) ([]QA, []string) {
	var items []json.RawMessage
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, []string{"qa: not a list"}
	}
	var out []QA
	var dropped []string
	for i, item := range items {
		var q QA
		if !isObject(item) || json.Unmarshal(item, &q) != nil {
			dropped = append(dropped, fmt.Sprintf("question %d: not an object", i+1))
			continue
		}
		out = append(out, q)
	}
	return out, dropped
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == '{'
}

// readableSessions leaves out of conv's sessions what cannot be a turn
// (anything but an object), and a session that is not a list, and says
// what it left out.
func readableSessions(conv map[string]json.RawMessage) []string {
	var dropped []string
	for _, sn := range sessionNumbers(conv) {
		key := fmt.Sprintf("session_%d", sn)
		var turns []json.RawMessage
		if err := json.Unmarshal(conv[key], &turns); err != nil {
			dropped = append(dropped, key+": not a list of turns")
			delete(conv, key)
			continue
		}
		kept := turns[:0]
		for i, t := range turns {
			if !isObject(t) {
				dropped = append(dropped, fmt.Sprintf("%s, turn %d: not an object", key, i+1))
				continue
			}
			kept = append(kept, t)
		}
		if len(kept) < len(turns) {
			conv[key], _ = json.Marshal(kept)
		}
	}
	return dropped
}

// QA is one question of a conversation. Its question is read leniently
// (text): a number as it is written, null or a list as "", which the run
// then reports as a question it cannot ask.
type QA struct {
	Question string   `json:"question"`
	Category Category `json:"category"`
	Evidence Evidence `json:"evidence"`
	Answer   any      `json:"answer"`
	// AdversarialAnswer is what category 5 questions carry instead.
	AdversarialAnswer any `json:"adversarial_answer"`
	// QuestionDate, when the file gives it (LongMemEval's question_date),
	// is when the question is asked; otherwise it is asked as of the
	// conversation's last turn.
	QuestionDate string `json:"question_date,omitempty"`
}

func (q *QA) UnmarshalJSON(b []byte) error {
	type plain QA
	var v struct {
		plain
		Question     text `json:"question"`
		QuestionDate text `json:"question_date"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*q = QA(v.plain)
	q.Question, q.QuestionDate = string(v.Question), string(v.QuestionDate)
	return nil
}

// text is a string field of a dataset converted to LoCoMo's schema, read
// leniently, as one bad field should cost one item, never the run: a
// number or a boolean as it is written; a list of content parts, as chat
// APIs write a message's content ([{"type":"text","text":"…"}, …]), as
// the text of its parts, one to a line; an object as its "text"; null, or
// anything else, as "".
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*t = text(partsText(v))
	return nil
}

// partsText is the text v holds: a string, a number, a boolean, a part's
// "text", or a list of those, one to a line.
func partsText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case map[string]any:
		if s, ok := v["text"].(string); ok {
			return s
		}
	case []any:
		var parts []string
		for _, p := range v {
			if s := partsText(p); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// Category is a question's category number. Another dataset converted to
// LoCoMo's schema may write it as a string, a number ("4") or a name
// ("single-hop"); one the evaluation cannot read is 0, which counts in
// the overall figures and in no category.
type Category int

func (c *Category) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = 0
	switch v := v.(type) {
	case float64:
		*c = Category(v)
	case string:
		v = strings.TrimSpace(v)
		if n, err := strconv.Atoi(v); err == nil {
			*c = Category(n)
			break
		}
		for n, name := range Categories {
			if strings.EqualFold(v, name) {
				*c = Category(n)
			}
		}
	}
	return nil
}

// Evidence is a question's evidence as the file writes it: a list of
// dia_ids (LoCoMo), or one string, or nothing (no evidence: the question
// is not asked). normEvidence reads the ids out of it.
type Evidence []any

func (e *Evidence) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case []any:
		*e = v
	case nil:
		*e = nil
	default:
		*e = Evidence{v}
	}
	return nil
}

// MarshalJSON writes no evidence as an empty list, as LoCoMo does (the
// reference script reads a list), for --write-data.
func (e Evidence) MarshalJSON() ([]byte, error) {
	if e == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]any(e))
}

// DataError is a problem with the data a run was given (a file that is
// not LoCoMo's schema, a conversation a rewrite cannot apply to), as
// opposed to a failure of the run itself. Hint, when set, says what to
// do instead.
type DataError struct {
	Err  error
	Hint string
}

func (e *DataError) Error() string { return e.Err.Error() }
func (e *DataError) Unwrap() error { return e.Err }

// Load reads the conversations of one or more files in LoCoMo's schema,
// in order: each file holds a list of conversations (locomo10.json), or
// one conversation whose sessions and questions are at its top level
// (its sample_id is its "name", or the file's name). These are the forms
// the reference script (../shared/eval/locomo_bm25.py) reads. A
// LongMemEval instance, in a list or alone, is read as a conversation of
// its own (fromLongMemEval); so is one item of LoCoMo's list alone. A file
// of JSON Lines holds a conversation a line, in any of these forms (the
// file's name and its number, "chats.jsonl#2", where it names none).
func Load(paths ...string) ([]Sample, error) {
	var out []Sample
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		raw = bytes.TrimPrefix(raw, []byte("\ufeff")) // a byte order mark
		if bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("[")) {
			var ss []Sample
			if err := json.Unmarshal(raw, &ss); err != nil {
				return nil, &DataError{Err: fmt.Errorf("%s: %w", path, err)}
			}
			out = append(out, ss...)
			continue
		}
		// One conversation, or several as JSON Lines (a conversation a
		// line), each in any of the forms above.
		dec := json.NewDecoder(bytes.NewReader(raw))
		for n := 1; ; n++ {
			var item json.RawMessage
			if err := dec.Decode(&item); err == io.EOF {
				break
			} else if err != nil {
				return nil, &DataError{Err: fmt.Errorf("%s: not a list of conversations nor one conversation: %w", path, err)}
			}
			id := path
			if dec.More() || n > 1 {
				id = fmt.Sprintf("%s#%d", path, n)
			}
			s, err := oneSample(id, item)
			if err != nil {
				return nil, &DataError{Err: fmt.Errorf("%s: %w", id, err)}
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// oneSample reads one conversation given on its own: a LongMemEval
// instance, one item of LoCoMo's list, or one whose sessions and
// questions are at its top level (its sample_id its "name", else id).
func oneSample(id string, raw []byte) (Sample, error) {
	if lme, ok := longMemEvalItem(raw); ok {
		return lme, nil
	}
	var conv map[string]json.RawMessage
	if err := json.Unmarshal(raw, &conv); err != nil {
		return Sample{}, fmt.Errorf("not a list of conversations nor one conversation: %w", err)
	}
	if isObject(conv["conversation"]) {
		// One item of LoCoMo's list: {"sample_id": …, "conversation":
		// {…}, "qa": […]}.
		var s Sample
		if err := json.Unmarshal(raw, &s); err != nil {
			return Sample{}, err
		}
		if s.SampleID == "" {
			s.SampleID = id
		}
		return s, nil
	}
	var one struct {
		Name any             `json:"name"` // a string, or whatever the file holds
		QA   json.RawMessage `json:"qa"`
	}
	if err := json.Unmarshal(raw, &one); err != nil {
		return Sample{}, err
	}
	if one.Name != nil && fmt.Sprint(one.Name) != "" {
		id = fmt.Sprint(one.Name)
	}
	qa, dropped := readQA(one.QA)
	delete(conv, "qa")
	dropped = append(dropped, readableSessions(conv)...)
	sessionDates(conv)
	return Sample{SampleID: id, Conversation: conv, QA: qa, Dropped: dropped}, nil
}

type Turn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
	// ImgURL is where the images the turn shares are (LoCoMo's img_url).
	ImgURL []string `json:"img_url,omitempty"`
}

// UnmarshalJSON reads a turn; one without text takes its clean_text, as
// the reference script reads it, or its content, and one without a
// speaker its role, as chat APIs name them. Its fields are read leniently
// (text).
func (t *Turn) UnmarshalJSON(b []byte) error {
	var v struct {
		Speaker     text `json:"speaker"`
		DiaID       text `json:"dia_id"`
		Text        text `json:"text"`
		BlipCaption text `json:"blip_caption"`
		ImgURL      text `json:"img_url"`
		CleanText   text `json:"clean_text"`
		// A chat API's names for the speaker and the text.
		Role    text `json:"role"`
		Content text `json:"content"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*t = Turn{Speaker: string(cmp.Or(v.Speaker, v.Role)), DiaID: string(v.DiaID), Text: string(cmp.Or(v.Text, v.CleanText, v.Content)),
		BlipCaption: string(v.BlipCaption)}
	if links := strings.Fields(string(v.ImgURL)); len(links) > 0 {
		t.ImgURL = links
	}
	return nil
}

// readDate reads a date as LoCoMo writes it ("1:56 pm on 8 May, 2023"),
// as Unix seconds or milliseconds written as a string, or in any other
// form a text's header date may take ("2024-03-02T09:15:00Z",
// "March 2, 2024", "2023/05/30 (Tue) 13:53", "30/05/2023, 13:53"); a
// numeric date that does not show its order is read in the given order.
// Zero when it is none of these.
func readDate(s string, order palace.DateOrder) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	if when, err := time.Parse("3:04 pm on 2 January, 2006", s); err == nil {
		return when
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && len(s) >= 9 && len(s) <= 13 {
		return palace.Epoch(n)
	}
	return palace.ReadDate(s, order)
}

// timeFields are the fields a turn's own time may be in: LoCoMo-like
// files' and chat exports' (Telegram's "date", ChatGPT's "create_time").
var timeFields = []string{"timestamp", "date_time", "created_at", "time", "date", "datetime", "create_time", "sent_at"}

// turnTime reads the time of a turn that carries its own, as a chat
// export's messages do: a field of timeFields holding a date (any form
// readDate reads) or Unix seconds or milliseconds (from 1973 on: a
// smaller number is no such time). Zero when it has none.
func turnTime(raw json.RawMessage, order palace.DateOrder) (time.Time, string) {
	var fields map[string]any
	if json.Unmarshal(raw, &fields) != nil {
		return time.Time{}, ""
	}
	for _, key := range timeFields {
		switch v := fields[key].(type) {
		case string:
			if when := readDate(v, order); !when.IsZero() {
				return when, strings.TrimSpace(v)
			}
		case float64:
			if v >= 1e8 {
				when := palace.Epoch(int64(v))
				return when, when.Format(time.RFC3339)
			}
		}
	}
	return time.Time{}, ""
}

// dateOrder is the order a conversation's numeric dates show: "30/05/2023"
// is day first, "5/30/2023" month first, and the other dates of one export
// are written the same way. OrderUnknown when none shows it, or they
// disagree.
func dateOrder(conv map[string]json.RawMessage) palace.DateOrder {
	seen := map[palace.DateOrder]bool{}
	look := func(s string) { seen[palace.NumericDateOrder(s)] = true }
	for key, raw := range conv {
		var s string
		if strings.HasSuffix(key, "_date_time") && json.Unmarshal(raw, &s) == nil {
			look(s)
			continue
		}
		var turns []map[string]any
		if !sessKeyR.MatchString(key) || json.Unmarshal(raw, &turns) != nil {
			continue
		}
		for _, t := range turns {
			for _, f := range timeFields {
				if s, ok := t[f].(string); ok {
					look(s)
				}
			}
		}
	}
	switch {
	case seen[palace.DayFirst] == seen[palace.MonthFirst]:
		return palace.OrderUnknown
	case seen[palace.DayFirst]:
		return palace.DayFirst
	}
	return palace.MonthFirst
}

var (
	evidRe   = regexp.MustCompile(`D:?(\d+):(\d+)`)
	turnIDRe = regexp.MustCompile(`^D:?(\d+):(\d+)$`)
	// rangeRe is a run of turns within one session, "D12:3-D12:5".
	rangeRe  = regexp.MustCompile(`D(\d+):(\d+)\s*-\s*D(\d+):(\d+)`)
	sessKeyR = regexp.MustCompile(`^session_(\d+)$`)
)

// normEvidence applies the baseline's normalisation: "D8:6; D9:17" splits,
// "D30:05" becomes "D30:5", "D:11:26" becomes "D11:26", and a run within
// one session, "D12:3-D12:5", is every turn of it.
func normEvidence(ev []any) []string {
	seen := map[string]bool{}
	var out []string
	add := func(a, b int) {
		if id := fmt.Sprintf("D%d:%d", a, b); !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, e := range ev {
		s := fmt.Sprint(e)
		for _, m := range rangeRe.FindAllStringSubmatch(s, -1) {
			n := atoiAll(m[1:])
			if n[0] == n[2] {
				for t := n[1]; t <= n[3]; t++ {
					add(n[0], t)
				}
			}
		}
		for _, m := range evidRe.FindAllStringSubmatch(s, -1) {
			n := atoiAll(m[1:])
			add(n[0], n[1])
		}
	}
	return out
}

func atoiAll(ss []string) []int {
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i], _ = strconv.Atoi(s)
	}
	return out
}

// normID normalises a turn's own dia_id as normEvidence does evidence
// ("D30:05" becomes "D30:5"); an id it cannot read whole stays as it is.
func normID(id string) string {
	if m := turnIDRe.FindStringSubmatch(id); m != nil {
		n := atoiAll(m[1:])
		return fmt.Sprintf("D%d:%d", n[0], n[1])
	}
	return id
}

// TurnText is one turn as the evaluation stores it: "speaker: text",
// with the image caption when the turn shares one.
func TurnText(t Turn) string {
	text := t.Text
	if t.BlipCaption != "" {
		text += " " + imageNote(t.BlipCaption)
	}
	return t.Speaker + ": " + text
}

// imageLead opens the note of a shared image in a turn's text.
const imageLead = "[shares image: "

// imageNote is how a turn's text tells of an image it shares: the image's
// caption, as LoCoMo's evaluations give it to a text-only reader.
func imageNote(caption string) string { return imageLead + caption + "]" }

// agentText is a turn as an agent would store it on its own through
// memory_remember: "[D1:3] (8 May, 2023) Caroline: …", or without its id
// ("(8 May, 2023) Caroline: …") when withID is false.
func agentText(d *palace.Drawer, date string, withID bool) string {
	if i := strings.Index(date, " on "); i >= 0 {
		date = date[i+len(" on "):]
	}
	// A date the text's header would not be read back as (a numeric one
	// whose order only the rest of its conversation shows) is written as
	// the day it was read as.
	if date = strings.TrimSpace(date); date != "" && !d.Timestamp.IsZero() &&
		palace.ReadTextMeta("("+date+") .").When.IsZero() {
		date = d.Timestamp.Format("2 January, 2006")
	}
	prefix := ""
	if withID {
		prefix = "[" + d.Meta["dia_id"].(string) + "] "
	}
	if date != "" {
		prefix += "(" + date + ") "
	}
	return prefix + d.Content
}

// AgentTurn is a turn as the agent path stores it: the text written
// through memory_remember and the LoCoMo session whose connection writes
// it (an agent's session, one process or stream each).
type AgentTurn struct {
	DiaID, Session, Text string
}

// AgentTurns returns a conversation's turns as the agent path (PathAgent,
// with the turns' ids) writes them, in order, for a face to store as an
// agent does and be measured against the path's figures.
func AgentTurns(conv map[string]json.RawMessage) ([]AgentTurn, error) {
	ds, err := Drawers(conv)
	if err != nil {
		return nil, err
	}
	out := make([]AgentTurn, len(ds))
	for i, d := range ds {
		date, _ := d.Meta["date"].(string)
		out[i] = AgentTurn{DiaID: d.Meta["dia_id"].(string), Session: d.SessionID, Text: agentText(d, date, true)}
	}
	return out, nil
}

// Drawers turns a conversation into turn drawers in session order,
// each with its session's date string in meta "date", or its own time
// where the turn carries one (turnTime).
func Drawers(conv map[string]json.RawMessage) ([]*palace.Drawer, error) {
	var out []*palace.Drawer
	order := dateOrder(conv)
	for _, sn := range sessionNumbers(conv) {
		var raws []json.RawMessage
		if err := json.Unmarshal(conv[fmt.Sprintf("session_%d", sn)], &raws); err != nil {
			return nil, fmt.Errorf("session_%d: %w", sn, err)
		}
		var when time.Time
		var date string
		if raw, ok := conv[fmt.Sprintf("session_%d_date_time", sn)]; ok && json.Unmarshal(raw, &date) == nil {
			when = readDate(date, order)
		}
		for i, raw := range raws {
			var t Turn
			if err := json.Unmarshal(raw, &t); err != nil {
				return nil, fmt.Errorf("session_%d, turn %d: %w", sn, i+1, err)
			}
			id := normID(t.DiaID)
			d := &palace.Drawer{
				Kind:      palace.KindTurn,
				Content:   TurnText(t),
				SessionID: fmt.Sprintf("session_%d", sn),
				SenderIDs: []string{t.Speaker},
				Meta:      map[string]any{"dia_id": id, "date": date},
			}
			if own, ownDate := turnTime(raw, order); !own.IsZero() {
				// A turn with its own time, as a chat export's messages
				// have, keeps it.
				d.Timestamp, d.Meta["date"] = own, ownDate
			} else if !when.IsZero() {
				d.Timestamp = when.Add(time.Duration(i) * time.Second)
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// maxWarnings is how many items a conversation's warnings name one by
// one; the rest are counted.
const maxWarnings = 5

// warnItems reports what happened to items of conversation n, naming up
// to maxWarnings of them and counting the rest.
func (o Options) warnItems(n int, what string, items []string) {
	if o.Warn == nil {
		return
	}
	for i, it := range items {
		if i == maxWarnings {
			o.Warn("conversation %d: %s %d more items", n, what, len(items)-i)
			return
		}
		o.Warn("conversation %d: %s %s", n, what, it)
	}
}

// unreadDates counts the turns whose date string was not read as a time,
// and gives one of those strings.
func unreadDates(ds []*palace.Drawer) (int, string) {
	n, example := 0, ""
	for _, d := range ds {
		if date, _ := d.Meta["date"].(string); date != "" && d.Timestamp.IsZero() {
			if n++; example == "" {
				example = date
			}
		}
	}
	return n, example
}

// sessionNumbers are the numbers of a conversation's sessions
// (session_N), in order.
func sessionNumbers(conv map[string]json.RawMessage) []int {
	var ns []int
	for k := range conv {
		if m := sessKeyR.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			ns = append(ns, n)
		}
	}
	sort.Ints(ns)
	return ns
}

// speaker is the name the conversation gives under key ("speaker_a",
// "speaker_b"), or "".
func (s *Sample) speaker(key string) string {
	var name string
	if raw, ok := s.Conversation[key]; ok {
		json.Unmarshal(raw, &name)
	}
	return name
}

// rewriteSessions replaces each session's turns with what f makes of them;
// f is given the session's number as its key writes it ("3" for
// session_3).
func (s *Sample) rewriteSessions(f func(session string, turns []Turn) []Turn) error {
	for k, raw := range s.Conversation {
		m := sessKeyR.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		var turns []Turn
		if err := json.Unmarshal(raw, &turns); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		b, err := json.Marshal(f(m[1], turns))
		if err != nil {
			return err
		}
		s.Conversation[k] = b
	}
	return nil
}

// LongReplies rewrites a conversation so that it reads like a user
// talking with an assistant that answers at length: every turn of the
// second speaker takes in the n−1 turns after it (whoever spoke them) as
// one reply of several paragraphs, under its own dia_id, and questions'
// evidence follows the turns into the reply that now holds them. It is a
// check on methods chosen on LoCoMo's short turns, not a dataset of its
// own: the words and the questions stay LoCoMo's.
func LongReplies(s *Sample, n int) error {
	second := s.speaker("speaker_b")
	if second == "" || n < 2 {
		return nil
	}
	into := map[string]string{} // turn -> the turn that now holds it
	err := s.rewriteSessions(func(_ string, turns []Turn) []Turn {
		var out []Turn
		for i := 0; i < len(turns); {
			t := turns[i]
			if t.Speaker != second {
				into[normID(t.DiaID)] = normID(t.DiaID)
				out = append(out, t)
				i++
				continue
			}
			group := turns[i:min(i+n, len(turns))]
			parts := make([]string, len(group))
			for j, g := range group {
				parts[j] = g.Text
				if g.BlipCaption != "" {
					parts[j] += " " + imageNote(g.BlipCaption)
				}
				into[normID(g.DiaID)] = normID(t.DiaID)
			}
			out = append(out, Turn{Speaker: second, DiaID: t.DiaID, Text: strings.Join(parts, "\n\n")})
			i += len(group)
		}
		return out
	})
	if err != nil {
		return err
	}
	for i := range s.QA {
		var ev []any
		seen := map[string]bool{}
		for _, id := range normEvidence(s.QA[i].Evidence) {
			if to, ok := into[id]; ok {
				id = to
			}
			if !seen[id] {
				seen[id] = true
				ev = append(ev, id)
			}
		}
		s.QA[i].Evidence = ev
	}
	return nil
}

// EchoReplies rewrites a conversation so that the second speaker answers
// like an assistant that restates what it was told: every turn of the
// second speaker opens with the texts of the first speaker's last n turns
// of the session (oldest first), then says its own. Turns and evidence are
// unchanged, so a question about what the first speaker said is answered
// by that short turn while long replies around it repeat its words, as
// assistant replies in a user–assistant chat do. Like LongReplies it is a
// check on methods chosen on LoCoMo, not a dataset of its own.
//
// With reworded, each repeated turn is restated in other words
// (Reworded), as a real assistant restates more often than it quotes.
func EchoReplies(s *Sample, n int, reworded bool) error {
	second := s.speaker("speaker_b")
	if second == "" || n < 1 {
		return nil
	}
	return s.rewriteSessions(func(_ string, turns []Turn) []Turn {
		var said []string // the first speaker's turns so far
		for i, t := range turns {
			if t.Speaker != second {
				said = append(said, t.Text)
				continue
			}
			parts := append([]string(nil), said[max(0, len(said)-n):]...)
			if reworded {
				for j := range parts {
					parts[j] = Reworded(parts[j])
				}
			}
			turns[i].Text = strings.Join(append(parts, t.Text), "\n\n")
		}
		return turns
	})
}

// TopicReplies rewrites a conversation so that the second speaker answers
// at length on the topic it was given, without restating it. Every turn of
// the second speaker opens with what its text says, goes on with the texts
// of the n turns of the conversation's other sessions that share the most
// content words (contentTokens, the speakers' names not counted) with the
// first speaker's last turn of the session, and closes with what its text
// asks (its sentences that end in a question mark), as an assistant's
// reply does. No question's evidence is among the texts it goes on with.
// An assistant's long reply elaborates on what the user said in the user's
// own vocabulary; here the elaboration is talk that answers no question,
// and the user's short turn must still be found among the replies. Turns
// and evidence are unchanged. Like EchoReplies it is a check on methods
// chosen on LoCoMo, not a dataset of its own; unlike a real reply, the
// texts it goes on with are copies, and one text may be copied into many
// replies.
func TopicReplies(s *Sample, n int) error {
	second := s.speaker("speaker_b")
	if second == "" || n < 1 {
		return nil
	}
	names := map[string]bool{}
	for _, k := range []string{"speaker_a", "speaker_b"} {
		for t := range contentTokens(s.speaker(k), nil) {
			names[t] = true
		}
	}
	evidence := map[string]bool{}
	for _, q := range s.QA {
		for _, id := range normEvidence(q.Evidence) {
			evidence[id] = true
		}
	}
	type source struct {
		session int
		text    string
		words   map[string]bool
	}
	var pool []source // in conversation order
	for _, n := range sessionNumbers(s.Conversation) {
		key := fmt.Sprintf("session_%d", n)
		var turns []Turn
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		for _, t := range turns {
			if w := contentTokens(t.Text, names); len(w) > 0 && !evidence[normID(t.DiaID)] {
				pool = append(pool, source{n, t.Text, w})
			}
		}
	}
	// elaborate gives the texts of the n sources from other sessions that
	// share the most words with said (earlier ones first among equals).
	elaborate := func(session int, said string) []string {
		want := contentTokens(said, names)
		type scored struct{ i, shared int }
		var best []scored
		for i, src := range pool {
			if src.session == session {
				continue
			}
			shared := 0
			for w := range want {
				if src.words[w] {
					shared++
				}
			}
			if shared > 0 {
				best = append(best, scored{i, shared})
			}
		}
		sort.SliceStable(best, func(a, b int) bool { return best[a].shared > best[b].shared })
		var out []string
		for _, b := range best[:min(n, len(best))] {
			out = append(out, pool[b.i].text)
		}
		return out
	}
	return s.rewriteSessions(func(key string, turns []Turn) []Turn {
		session, _ := strconv.Atoi(key) // digits (sessKeyR), as sessionNumbers reads them
		said := ""
		for i, t := range turns {
			if t.Speaker != second {
				said = t.Text
				continue
			}
			if said == "" {
				continue
			}
			// An assistant's reply opens with what it says to the
			// message, elaborates, and closes with what it asks.
			var says, asks []string
			for _, sen := range sentences(t.Text) {
				if strings.HasSuffix(sen, "?") {
					asks = append(asks, sen)
				} else {
					says = append(says, sen)
				}
			}
			var parts []string
			if len(says) > 0 {
				parts = append(parts, strings.Join(says, " "))
			}
			parts = append(parts, elaborate(session, said)...)
			if len(asks) > 0 {
				parts = append(parts, strings.Join(asks, " "))
			}
			turns[i].Text = strings.Join(parts, "\n\n")
		}
		return turns
	})
}

// Reworded restates a text the way a reply restates what it was told,
// mechanically, so that a restatement is not a copy: every sentence
// opens "You mentioned that", first-person words become second-person
// ("I" → "you", "my" → "your"), every third word is left out, and every
// fourth word kept, of four letters or more, becomes a vague one ("thing",
// "stuff", "bit", "part", in turn, keeping its punctuation).
func Reworded(text string) string {
	var out []string
	vague := 0
	for _, s := range sentences(text) {
		var kept []string
		for k, w := range strings.Fields(s) {
			core := strings.ToLower(strings.TrimFunc(w, unicode.IsPunct))
			if you, ok := secondPerson[core]; ok {
				w = you
			}
			if k%3 == 2 {
				continue
			}
			if utf8.RuneCountInString(core) > 3 && len(kept)%4 == 3 {
				// The word's end mark stays: the sentence still ends.
				mark := w[len(strings.TrimRightFunc(w, unicode.IsPunct)):]
				w = vagueWords[vague%len(vagueWords)] + mark
				vague++
			}
			kept = append(kept, w)
		}
		if len(kept) == 0 {
			continue
		}
		first, rest := kept[0], strings.Join(kept[1:], " ")
		out = append(out, strings.TrimSpace("You mentioned that "+strings.ToLower(first[:1])+first[1:]+" "+rest))
	}
	return strings.Join(out, " ")
}

var (
	secondPerson = map[string]string{"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
		"i'm": "you're", "i've": "you've", "i'll": "you'll", "i'd": "you'd", "we": "you", "us": "you", "our": "your"}
	vagueWords = []string{"thing", "stuff", "bit", "part"}
)

// Typos rewrites a conversation as if typed in haste: each word of three
// letters a–z or more is misspelt with probability rate by one of
// Damerau's four errors, chosen at random with equal odds (a letter left
// out, a letter added, a letter changed to another, a letter swapped with
// the next; a swap that would change nothing leaves the letter out
// instead), at a random place after the first letter (writers seldom miss
// the first). The questions stay as they are, and so does
// the evidence. The random choices are seeded by the conversation and the
// turn, so a rewrite is the same every run.
func Typos(s *Sample, rate float64) error {
	return s.rewriteSessions(func(session string, turns []Turn) []Turn {
		for i := range turns {
			turns[i].Text = misspell(turns[i].Text, rate, seeded(s.SampleID, turns[i].DiaID))
		}
		return turns
	})
}

// CrossedReplies makes that share of the replies cross the message before
// them, as messages do when both people type at once: where the speaker
// changes, the reply is sent before the last message of the run it
// answers ("A: I got the job" "B: omg congrats" "A: starting monday"). A
// message moved so is not moved again. Turns get new dia_ids in session
// order; a question's evidence stays on the turns it named.
func CrossedReplies(s *Sample, share float64) error {
	moved := map[string]string{} // old turn -> its id now
	err := s.rewriteSessions(func(session string, turns []Turn) []Turn {
		rng := seeded(s.SampleID, "crossed replies "+session)
		out := slices.Clone(turns)
		for i := 1; i < len(out); i++ {
			if out[i].Speaker != out[i-1].Speaker && rng.Float64() < share {
				out[i-1], out[i] = out[i], out[i-1]
				i++ // the message crossed is not crossed again
			}
		}
		for i := range out {
			old := normID(out[i].DiaID)
			out[i].DiaID = fmt.Sprintf("D%s:%d", session, i+1)
			moved[old] = out[i].DiaID
		}
		return out
	})
	if err != nil {
		return err
	}
	s.moveEvidence(moved)
	return nil
}

// QuotedReplies makes that share of the replies (turns of another
// speaker than the turn before) quote the message they answer above their
// own text, as a reply in mail, in markdown and in the chat apps that
// export replies that way writes it: each line of the message after "> ",
// then a blank line. The message quoted is the turn before as its speaker
// wrote it, without a quote of its own. Turns, questions and evidence stay
// as they are; the choices are seeded by the conversation and the session.
func QuotedReplies(s *Sample, share float64) error {
	return s.rewriteSessions(func(session string, turns []Turn) []Turn {
		rng := seeded(s.SampleID, "quoted replies "+session)
		prev := "" // the turn before, as written
		for i, t := range turns {
			own := t.Text
			if i > 0 && t.Speaker != turns[i-1].Speaker && strings.TrimSpace(prev) != "" && rng.Float64() < share {
				var b strings.Builder
				for line := range strings.Lines(prev) {
					b.WriteString("> " + line)
				}
				turns[i].Text = strings.TrimRight(b.String(), "\n") + "\n\n" + own
			}
			prev = own
		}
		return turns
	})
}

// EmojiWords writes that share of the turns' words that an emoji names a
// thing by as the emoji, the way people write with them in chat ("my new
// 🐕", "off to 🇯🇵", "🎂 party tomorrow"): a word, or two words together
// ("birthday cake", "ice cream"), that Unicode names an emoji of an
// animal, a food, a place, an activity, an object, a flag or a person at
// work or play by (words.EmojiFor), in any case. The questions and the
// evidence stay as they are. The choices are seeded by the conversation
// and the turn, as Typos' are.
func EmojiWords(s *Sample, rate float64) error {
	return s.rewriteSessions(func(session string, turns []Turn) []Turn {
		for i := range turns {
			turns[i].Text = withEmoji(turns[i].Text, rate, seeded(s.SampleID, turns[i].DiaID))
		}
		return turns
	})
}

// withEmoji applies EmojiWords to one text.
func withEmoji(text string, rate float64, rng *rand.Rand) string {
	var ws []words.Word
	words.Each(text, 0, func(w words.Word) { ws = append(ws, w) })
	var b strings.Builder
	at := 0
	for i := 0; i < len(ws); i++ {
		var e string
		end := ws[i].End
		if i+1 < len(ws) && text[ws[i].End:ws[i+1].Start] == " " {
			if e = words.EmojiFor(text[ws[i].Start:ws[i+1].End]); e != "" {
				end = ws[i+1].End
			}
		}
		if e == "" {
			e = words.EmojiFor(ws[i].Text)
		}
		if e == "" || isFlag(e) && !unicode.IsUpper([]rune(ws[i].Text)[0]) || rng.Float64() >= rate {
			continue // a country is a name ("Turkey", not "turkey")
		}
		b.WriteString(text[at:ws[i].Start])
		b.WriteString(e)
		at = end
		for i+1 < len(ws) && ws[i+1].Start < end {
			i++
		}
	}
	b.WriteString(text[at:])
	return b.String()
}

// isFlag reports whether the emoji e is a flag: a pair of regional
// indicators, or a black flag with the tags of a region.
func isFlag(e string) bool {
	r, _ := utf8.DecodeRuneInString(e)
	return r >= 0x1F1E6 && r <= 0x1F1FF || r == 0x1F3F4 && len(e) > 4
}

// CasualTyping rewrites every turn as chat messages are often typed on a
// phone: in lower case, without apostrophes ("dont", "im", "carolines")
// and without the marks that close sentences (".", "!", "?": "did you go",
// "cant wait"); a mark inside a word ("3.5", "e.g") stays. The questions,
// written by whoever asks them, stay as they are, and so does the
// evidence.
func CasualTyping(s *Sample) error {
	return s.rewriteSessions(func(session string, turns []Turn) []Turn {
		for i := range turns {
			turns[i].Text = casually(turns[i].Text)
		}
		return turns
	})
}

// casually applies CasualTyping to one text.
func casually(text string) string {
	rs := []rune(strings.ToLower(text))
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '\'' || r == '’':
			continue
		case strings.ContainsRune(".!?…", r):
			j := i + 1
			for j < len(rs) && strings.ContainsRune(".!?…", rs[j]) {
				j++
			}
			if j == len(rs) || !words.IsWordRune(rs[j]) {
				continue // a run of closing marks
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CasualQuestions types every question as CasualTyping types the turns:
// in lower case, without apostrophes and without the closing marks ("what
// did carolines mom give her"), as a person types a prompt on a phone.
// The turns and the evidence stay as they are.
func CasualQuestions(s *Sample) error {
	for i := range s.QA {
		s.QA[i].Question = casually(s.QA[i].Question)
	}
	return nil
}

// QuestionTypos misspells the questions' words as Typos misspells the
// turns', and leaves the turns alone: a question typed in haste, as a
// person types a prompt that a hook recalls memories for.
func QuestionTypos(s *Sample, rate float64) error {
	for i := range s.QA {
		s.QA[i].Question = misspell(s.QA[i].Question, rate, seeded(s.SampleID, fmt.Sprintf("q%d", i)))
	}
	return nil
}

// seeded is a random source fixed by a conversation and an item of it.
func seeded(sample, item string) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s", sample, item)
	return rand.New(rand.NewPCG(h.Sum64(), 0x7970))
}

// misspell applies Typos to one text.
func misspell(text string, rate float64, rng *rand.Rand) string {
	b := []byte(text)
	var out []byte
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && (b[j] >= 'a' && b[j] <= 'z' || b[j] >= 'A' && b[j] <= 'Z') {
			j++
		}
		if j == i {
			out = append(out, b[i])
			i++
			continue
		}
		w := append([]byte(nil), b[i:j]...)
		if len(w) >= 3 && rng.Float64() < rate {
			at := 1 + rng.IntN(len(w)-1)
			letter := byte('a' + rng.IntN(26))
			op := rng.IntN(4)
			if op == 3 && (at+1 == len(w) || w[at] == w[at+1]) {
				op = 0 // nothing to swap with after it
			}
			switch op {
			case 0: // left out
				w = append(w[:at], w[at+1:]...)
			case 1: // added
				w = append(w[:at], append([]byte{letter}, w[at:]...)...)
			case 2: // changed to another letter
				if letter == w[at]|0x20 {
					letter = 'a' + (letter-'a'+1)%26
				}
				w[at] = letter
			default: // swapped with the next, never the first letter
				w[at], w[at+1] = w[at+1], w[at]
			}
		}
		out = append(out, w...)
		i = j
	}
	return string(out)
}

// MediaPlaceholder is what a chat export writes in place of a photo or a
// video it leaves out (WhatsApp's, on Android).
const MediaPlaceholder = "<Media omitted>"

// MediaOmitted rewrites a conversation as a chat export writes it: a
// shared image loses its caption and becomes a message of its own, from
// the same speaker right after the turn, that reads MediaPlaceholder.
// Turns get new dia_ids in session order; a question's evidence stays on
// the turns it named (never on a placeholder, which holds nothing).
func MediaOmitted(s *Sample) error {
	return sharedMedia(s, func(Turn) []string { return []string{MediaPlaceholder} })
}

// MediaLinks rewrites a conversation as an app that shares images as
// links writes it (a chat on the web, Discord, Slack, an IRC log): a
// shared image loses its caption and each of its links becomes a message
// of its own from the same speaker right after the turn, reading the link
// alone (an image with no link reads MediaPlaceholder). Turns and evidence
// are numbered again as in MediaOmitted.
func MediaLinks(s *Sample) error {
	return sharedMedia(s, func(t Turn) []string {
		if len(t.ImgURL) == 0 {
			return []string{MediaPlaceholder}
		}
		return t.ImgURL
	})
}

// sharedMedia writes every image a turn shares as messages of their own,
// what each reads given by messages, after the turn and without its
// caption, and moves the evidence with the turns.
func sharedMedia(s *Sample, messages func(Turn) []string) error {
	moved := map[string]string{} // old turn -> its id now
	err := s.rewriteSessions(func(session string, turns []Turn) []Turn {
		var out []Turn
		for _, t := range turns {
			caption := t.BlipCaption
			t.BlipCaption = ""
			old := normID(t.DiaID)
			t.DiaID = fmt.Sprintf("D%s:%d", session, len(out)+1)
			moved[old] = t.DiaID
			shared := messages(t)
			t.ImgURL = nil
			out = append(out, t)
			if caption != "" {
				for _, m := range shared {
					out = append(out, Turn{Speaker: t.Speaker, DiaID: fmt.Sprintf("D%s:%d", session, len(out)+1), Text: m})
				}
			}
		}
		return out
	})
	if err != nil {
		return err
	}
	s.moveEvidence(moved)
	return nil
}

// moveEvidence gives every question's evidence the ids its turns have now
// (moved, old id to new).
func (s *Sample) moveEvidence(moved map[string]string) {
	for i := range s.QA {
		ev := []any{}
		for _, id := range normEvidence(s.QA[i].Evidence) {
			if now, ok := moved[id]; ok {
				ev = append(ev, now)
			}
		}
		s.QA[i].Evidence = ev
	}
}

// tapbackVerbs are the reactions iMessage writes as a text of their own
// where it cannot show them on the message.
var tapbackVerbs = []string{"Loved", "Liked", "Laughed at", "Emphasized"}

// Tapbacks rewrites a conversation as a phone that cannot show iMessage's
// reactions on a message receives them, and as an export of its texts
// writes them: after that share of the turns, the other speaker of the
// session reacts with a text of its own, the reaction's verb and the turn
// quoted whole ("Loved “I got the job!”"). Turns get new dia_ids in
// session order; a question's evidence stays on the turns it named.
func Tapbacks(s *Sample, share float64) error {
	moved := map[string]string{} // old turn -> its id now
	err := s.rewriteSessions(func(session string, turns []Turn) []Turn {
		rng := seeded(s.SampleID, "tapbacks "+session)
		var speakers []string // the session's first two
		for _, t := range turns {
			if len(speakers) < 2 && !slices.Contains(speakers, t.Speaker) {
				speakers = append(speakers, t.Speaker)
			}
		}
		var out []Turn
		for _, t := range turns {
			old := normID(t.DiaID)
			t.DiaID = fmt.Sprintf("D%s:%d", session, len(out)+1)
			moved[old] = t.DiaID
			out = append(out, t)
			other := ""
			for _, sp := range speakers {
				if sp != t.Speaker {
					other = sp
				}
			}
			if other == "" || strings.TrimSpace(t.Text) == "" || rng.Float64() >= share {
				continue
			}
			verb := tapbackVerbs[rng.IntN(len(tapbackVerbs))]
			out = append(out, Turn{Speaker: other, DiaID: fmt.Sprintf("D%s:%d", session, len(out)+1),
				Text: verb + " \u201c" + t.Text + "\u201d"})
		}
		return out
	})
	if err != nil {
		return err
	}
	s.moveEvidence(moved)
	return nil
}

// ShortMessages rewrites a conversation so that it reads like a chat in a
// messaging app: every turn is sent as its sentences, one message each, and
// a shared image as a message of its own. Messages get new dia_ids in
// session order (D1:1, D1:2, …). A question's evidence becomes the messages
// of its evidence turns that hold the most words of its answer (all of a
// turn's messages when none holds any): in a real chat the messages that state a fact
// are marked, not the whole burst around them. Like LongReplies it is a
// check on methods chosen on LoCoMo's whole turns, not a dataset of its own.
func ShortMessages(s *Sample) error {
	pieces := map[string][]Turn{} // old turn -> its messages
	err := s.rewriteSessions(func(session string, turns []Turn) []Turn {
		var out []Turn
		for _, t := range turns {
			texts := sentences(t.Text)
			if t.BlipCaption != "" {
				texts = append(texts, imageNote(t.BlipCaption))
			}
			id := normID(t.DiaID)
			for _, x := range texts {
				msg := Turn{Speaker: t.Speaker, DiaID: fmt.Sprintf("D%s:%d", session, len(out)+1), Text: x}
				out = append(out, msg)
				pieces[id] = append(pieces[id], msg)
			}
		}
		return out
	})
	if err != nil {
		return err
	}
	for i := range s.QA {
		answer := s.QA[i].Answer
		if answer == nil {
			answer = s.QA[i].AdversarialAnswer
		}
		words := answerWords(fmt.Sprint(answer))
		ev := []any{}
		for _, id := range normEvidence(s.QA[i].Evidence) {
			// The messages that hold the most of the answer's words; all
			// of the turn's when none holds any.
			var best []any
			most := 0
			for _, p := range pieces[id] {
				n := 0
				for w := range answerWords(p.Text) {
					if words[w] {
						n++
					}
				}
				switch {
				case n > most:
					best, most = []any{p.DiaID}, n
				case n == most:
					best = append(best, p.DiaID)
				}
			}
			ev = append(ev, best...)
		}
		s.QA[i].Evidence = ev
	}
	return nil
}

// pasteSizes are the sizes of the pieces Pastes cuts, in bytes: a
// snippet, a file, a long log, a whole module.
var pasteSizes = []int{3000, 10000, 30000, 100000}

// pasteLead opens every pasted turn.
const pasteLead = "Here is the file I was looking at:\n"

// Pastes rewrites a conversation so that it holds long pasted texts, as
// a user–assistant chat about a project does (a log, a source file, a
// document): every other session (the 1st, the 3rd, …) ends with a turn
// of the speaker who did not speak last, pasteLead and a piece of one of
// files (pasteSizes, from a random place, cut at line starts, the whole
// file when it is shorter). No question's evidence is in a paste: it is
// text that matches questions by chance, and a ranking must not let it
// crowd out the turns that answer them. The choices are seeded by the
// conversation and the session, so a rewrite is the same every run.
//
// With inTurn, the piece is not a turn of its own but follows the text of
// one of the first speaker's turns of the session (chosen at random, a
// blank line between them), as a person states something and pastes the
// log it is about in one message; that turn's evidence stays its
// evidence, and the statement must still be found under the paste.
func Pastes(s *Sample, files [][]byte, inTurn bool) error {
	if len(files) == 0 {
		return nil
	}
	first := s.speaker("speaker_a")
	return s.rewriteSessions(func(session string, turns []Turn) []Turn {
		if n, _ := strconv.Atoi(session); n%2 == 0 || len(turns) == 0 {
			return turns
		}
		rng := seeded(s.SampleID, "paste "+session)
		f := files[rng.IntN(len(files))]
		size := pasteSizes[rng.IntN(len(pasteSizes))]
		piece := f
		if len(f) > size {
			start := rng.IntN(len(f) - size + 1)
			piece = f[start : start+size]
			if i := bytes.IndexByte(piece, '\n'); i >= 0 && start > 0 {
				piece = piece[i+1:]
			}
			if i := bytes.LastIndexByte(piece, '\n'); i >= 0 {
				piece = piece[:i+1]
			}
		}
		if inTurn {
			var theirs []int
			for i, t := range turns {
				if t.Speaker == first {
					theirs = append(theirs, i)
				}
			}
			if len(theirs) > 0 {
				i := theirs[rng.IntN(len(theirs))]
				turns[i].Text += "\n\n" + pasteLead + string(piece)
			}
			return turns
		}
		last := turns[len(turns)-1].Speaker
		who := last
		for _, t := range turns {
			if t.Speaker != last {
				who = t.Speaker
				break
			}
		}
		return append(turns, Turn{Speaker: who, DiaID: fmt.Sprintf("D%s:%d", session, len(turns)+1), Text: pasteLead + string(piece)})
	})
}

// PasteFiles reads the files Pastes cuts from: the regular files of dir
// (not its subdirectories), in name order, that hold text (UTF-8, no NUL
// byte) of at least 8 KB, so that every piece is a paste and not a line.
func PasteFiles(dir string) ([][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if len(b) >= 8<<10 && utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no text file of 8 KB or more", dir)
	}
	return out, nil
}

// NoDates rewrites a conversation as a chat exported or converted without
// its times: the sessions lose their dates (session_N_date_time) and the
// turns their own (a turn keeps its speaker, id, text and image caption
// only), so that every drawer carries the time it was stored, the same
// for a whole conversation written at once. Turns and questions are
// unchanged; a question that names a date can then be answered by words
// only. It measures what a ranking owes to the data's dates, which a
// chat about a project, or a converted dataset, may not have.
func NoDates(s *Sample) error {
	for k := range s.Conversation {
		if strings.HasPrefix(k, "session_") && strings.HasSuffix(k, "_date_time") {
			delete(s.Conversation, k)
		}
	}
	return s.rewriteSessions(func(_ string, turns []Turn) []Turn { return turns })
}

// DateForm rewrites every date of a conversation (its sessions' and its
// turns' own times) in the given Go time layout, as another dataset or a
// chat export writes them ("2006/01/02 (Mon) 15:04", LongMemEval's;
// "02/01/2006, 15:04"), so that a run shows whether they are read. A date
// that is not read before the rewrite is left as it is.
func DateForm(s *Sample, layout string) error {
	order := dateOrder(s.Conversation)
	form := func(v string) string {
		if when := readDate(v, order); !when.IsZero() {
			return when.Format(layout)
		}
		return v
	}
	for key, raw := range s.Conversation {
		var v string
		switch {
		case strings.HasSuffix(key, "_date_time") && json.Unmarshal(raw, &v) == nil:
			s.Conversation[key], _ = json.Marshal(form(v))
		case sessKeyR.MatchString(key):
			var turns []map[string]any
			if err := json.Unmarshal(raw, &turns); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			for _, t := range turns {
				for _, f := range timeFields {
					if v, ok := t[f].(string); ok {
						t[f] = form(v)
					}
				}
			}
			s.Conversation[key], _ = json.Marshal(turns)
		}
	}
	return nil
}

// OneThread rewrites a conversation as one thread, as a chat app exports
// it: every session's turns, in order, become one session (session_1),
// each turn carrying its session's date as its own time (date_time), so
// that the turns of a day still share their day and nothing marks where
// a session ended. Turns keep their dia_id, so questions and evidence are
// unchanged.
func OneThread(s *Sample) error {
	type dated struct {
		Turn
		DateTime string `json:"date_time,omitempty"`
	}
	var thread []dated
	for _, n := range sessionNumbers(s.Conversation) {
		key := fmt.Sprintf("session_%d", n)
		var turns []Turn
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		var date string
		if raw, ok := s.Conversation[key+"_date_time"]; ok {
			_ = json.Unmarshal(raw, &date) // a date that is not a string is none
		}
		for _, t := range turns {
			thread = append(thread, dated{t, date})
		}
		delete(s.Conversation, key)
		delete(s.Conversation, key+"_date_time")
	}
	b, err := json.Marshal(thread)
	if err != nil {
		return err
	}
	s.Conversation["session_1"] = b
	return nil
}

// Interleave holds every two consecutive sessions of a conversation at
// once, as a group chat or a team's channel holds several conversations
// at a time: the turns of session 2k are sent between those of session
// 2k−1, one for one (the rest of the longer one after), as one session on
// the first one's date. A turn keeps its dia_id ("D3:5" still says which
// of the two it belongs to, and a thread of an export can be written from
// it), so questions and evidence are unchanged; what a turn answers is no
// longer the message before it. The second session's date is lost, and
// with it what its temporal questions ask of it.
func Interleave(s *Sample) error {
	ns := sessionNumbers(s.Conversation)
	sessions := map[int][]json.RawMessage{}
	extras := map[int]map[string]json.RawMessage{} // a session's other keys by suffix ("_date_time")
	for _, n := range ns {
		key := fmt.Sprintf("session_%d", n)
		var turns []json.RawMessage
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		sessions[n] = turns
		extras[n] = map[string]json.RawMessage{}
		for k, v := range s.Conversation {
			if suffix, ok := strings.CutPrefix(k, key+"_"); ok {
				extras[n]["_"+suffix] = v
				delete(s.Conversation, k)
			}
		}
		delete(s.Conversation, key)
	}
	for i := 0; i < len(ns); i += 2 {
		a, b := sessions[ns[i]], []json.RawMessage(nil)
		if i+1 < len(ns) {
			b = sessions[ns[i+1]]
		}
		merged := make([]json.RawMessage, 0, len(a)+len(b))
		for j := 0; j < max(len(a), len(b)); j++ {
			if j < len(a) {
				merged = append(merged, a[j])
			}
			if j < len(b) {
				merged = append(merged, b[j])
			}
		}
		key := fmt.Sprintf("session_%d", i/2+1)
		raw, err := json.Marshal(merged)
		if err != nil {
			return err
		}
		s.Conversation[key] = raw
		for suffix, v := range extras[ns[i]] {
			s.Conversation[key+suffix] = v
		}
	}
	return nil
}

// ForeignQuestions gives each conversation the questions of the one after
// it in the file (the last the first's), which it holds no answer to: the
// prompts about nothing stored that a face which leaves out weak matches
// (the prompt hook, the recall tool) should answer with nothing, asked of
// a palace as full as any. No recall is measured on them (Returned counts
// what came back instead): a question that had evidence names the
// conversation's first turn as its evidence, only so that it is asked,
// and the questions without evidence stay unasked.
func ForeignQuestions(samples []Sample) error {
	if len(samples) < 2 {
		return fmt.Errorf("--foreign-questions needs two conversations or more; the data has %d", len(samples))
	}
	qas := make([][]QA, len(samples))
	for i := range samples {
		qas[i] = samples[(i+1)%len(samples)].QA
	}
	for i := range samples {
		first := ""
		for _, num := range sessionNumbers(samples[i].Conversation) {
			var turns []struct {
				DiaID string `json:"dia_id"`
			}
			_ = json.Unmarshal(samples[i].Conversation[fmt.Sprintf("session_%d", num)], &turns)
			if len(turns) > 0 && turns[0].DiaID != "" {
				first = turns[0].DiaID
				break
			}
		}
		if first == "" {
			return fmt.Errorf("%s: no turn has a dia_id", samples[i].SampleID)
		}
		asked := make([]QA, len(qas[i]))
		for j, qa := range qas[i] {
			if len(normEvidence(qa.Evidence)) > 0 {
				qa.Evidence = Evidence{first}
			}
			asked[j] = qa
		}
		samples[i].QA = asked
	}
	return nil
}

// Returned says how much a face gave back for a set of questions: how
// many got anything, and how many items a question on average.
type Returned struct {
	Questions int     `json:"questions"`
	Answered  int     `json:"answered"`
	Share     float64 `json:"answered_share"`
	Mean      float64 `json:"mean_returned"`
}

// CountReturned counts what rows got back.
func CountReturned(rows []Row) Returned {
	var r Returned
	total := 0
	for _, row := range rows {
		r.Questions++
		if len(row.Top) > 0 {
			r.Answered++
		}
		total += len(row.Top)
	}
	if r.Questions > 0 {
		r.Share = float64(r.Answered) / float64(r.Questions)
		r.Mean = float64(total) / float64(r.Questions)
	}
	return r
}

// Haystack makes every conversation longer with talk that answers none of
// its questions, as a chat of many months holds far more than the part a
// question is about: each conversation gains the sessions of the n
// conversations after it in the file (the first ones again past the end),
// their speakers renamed to its own speakers, in their turns' texts too,
// and their dates moved into its own span, so that the sessions of all of
// them interleave in time. Every session is then numbered in the order of
// its date; the turns keep their dia_id (the borrowed ones get fresh ids,
// D<100·k+j>:<i> for the j-th session of the k-th conversation borrowed),
// so questions and evidence are unchanged, and the borrowed conversations'
// questions are not asked. It shows how recall and its parameters hold as
// a palace grows, which LoCoMo's conversations of 400 to 700 turns cannot.
// Conversations whose sessions are not all dated get the borrowed
// sessions after their own, undated.
func Haystack(samples []Sample, n int) error {
	if n <= 0 {
		return nil
	}
	if n >= len(samples) {
		return fmt.Errorf("--haystack %d needs more than %d conversations in the data; the file has %d", n, n, len(samples))
	}
	orig := make([]map[string]json.RawMessage, len(samples))
	for i := range samples {
		orig[i] = maps.Clone(samples[i].Conversation)
	}
	for i := range samples {
		type session struct {
			turns json.RawMessage
			date  string
			at    time.Time
		}
		var all []session
		order := dateOrder(orig[i])
		own, dated := span(orig[i], order)
		for _, num := range sessionNumbers(orig[i]) {
			key := fmt.Sprintf("session_%d", num)
			var date string
			_ = json.Unmarshal(orig[i][key+"_date_time"], &date) // no date is ""
			all = append(all, session{orig[i][key], date, readDate(date, order)})
		}
		for k := 1; k <= n; k++ {
			from := orig[(i+k)%len(samples)]
			names := map[string]string{}
			for _, key := range []string{"speaker_a", "speaker_b"} {
				var was, is string
				_ = json.Unmarshal(from[key], &was)
				_ = json.Unmarshal(orig[i][key], &is)
				if was != "" && is != "" {
					names[was] = is
				}
			}
			rename := renamer(names)
			theirOrder := dateOrder(from)
			theirs, theirsDated := span(from, theirOrder)
			for j, num := range sessionNumbers(from) {
				key := fmt.Sprintf("session_%d", num)
				var turns []map[string]any
				if err := json.Unmarshal(from[key], &turns); err != nil {
					return fmt.Errorf("%s: %w", key, err)
				}
				for t, turn := range turns {
					for _, f := range []string{"speaker", "role", "text", "clean_text", "content", "blip_caption"} {
						if v, ok := turn[f].(string); ok {
							turn[f] = rename(v)
						}
					}
					turn["dia_id"] = fmt.Sprintf("D%d:%d", 100*k+j+1, t+1)
					for _, f := range timeFields {
						delete(turn, f) // the session's date, moved, is its time
					}
				}
				b, err := json.Marshal(turns)
				if err != nil {
					return err
				}
				s := session{turns: b}
				var date string
				_ = json.Unmarshal(from[key+"_date_time"], &date)
				if when := readDate(date, theirOrder); dated && theirsDated && !when.IsZero() {
					s.at = moved(when, theirs, own)
					s.date = s.at.Format("3:04 pm on 2 January, 2006")
				}
				all = append(all, s)
			}
		}
		if dated {
			// Undated sessions (of a conversation borrowed that has none)
			// go last.
			sort.SliceStable(all, func(a, b int) bool {
				x, y := all[a].at, all[b].at
				return !x.IsZero() && (y.IsZero() || x.Before(y))
			})
		}
		conv := map[string]json.RawMessage{}
		for key, raw := range orig[i] {
			if !strings.HasPrefix(key, "session_") {
				conv[key] = raw
			}
		}
		for j, s := range all {
			key := fmt.Sprintf("session_%d", j+1)
			conv[key] = s.turns
			if s.date != "" {
				conv[key+"_date_time"], _ = json.Marshal(s.date)
			}
		}
		samples[i].Conversation = conv
	}
	return nil
}

// span is the first and last of a conversation's session dates (numeric
// ones read in order), and whether every session has one.
func span(conv map[string]json.RawMessage, order palace.DateOrder) ([2]time.Time, bool) {
	var sp [2]time.Time
	nums := sessionNumbers(conv)
	for _, num := range nums {
		var date string
		_ = json.Unmarshal(conv[fmt.Sprintf("session_%d_date_time", num)], &date)
		when := readDate(date, order)
		if when.IsZero() {
			return sp, false
		}
		if sp[0].IsZero() || when.Before(sp[0]) {
			sp[0] = when
		}
		if when.After(sp[1]) {
			sp[1] = when
		}
	}
	return sp, len(nums) > 0
}

// moved places when, a time within span from, at the same point of span
// to.
func moved(when time.Time, from, to [2]time.Time) time.Time {
	if d := from[1].Sub(from[0]); d > 0 {
		share := float64(when.Sub(from[0])) / float64(d)
		return to[0].Add(time.Duration(share * float64(to[1].Sub(to[0])))).Round(time.Minute)
	}
	return to[0]
}

// renamer replaces each name of names, as a whole word, by the name it
// maps to, in one pass (so that two speakers can trade names).
func renamer(names map[string]string) func(string) string {
	if len(names) == 0 {
		return func(s string) string { return s }
	}
	var alts []string
	for was := range names {
		alts = append(alts, regexp.QuoteMeta(was))
	}
	sort.Strings(alts)
	re := regexp.MustCompile(`\b(` + strings.Join(alts, "|") + `)\b`)
	return func(s string) string { return re.ReplaceAllStringFunc(s, func(m string) string { return names[m] }) }
}

// SlowReplies gives every turn a time of its own, as a chat export's
// messages have, and makes the conversation asynchronous, as people write
// to each other in a messaging app: a turn of the same speaker follows the
// one before by 40 seconds, a reply (a turn of another speaker) by 1 to
// 10 minutes, and share of the replies by 45 minutes to 10 hours (an
// answer the same evening or the next morning). A turn keeps its own time
// when that is later (a thread's next session). A session with no date,
// and no time on its first turn, is left as it is. Texts and evidence are
// unchanged; the delays are fixed by the conversation and the session.
func SlowReplies(s *Sample, share float64) error {
	order := dateOrder(s.Conversation)
	for _, n := range sessionNumbers(s.Conversation) {
		key := fmt.Sprintf("session_%d", n)
		var turns []map[string]any
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		var at time.Time
		if raw, ok := s.Conversation[key+"_date_time"]; ok {
			var date string
			if json.Unmarshal(raw, &date) == nil {
				at = readDate(date, order)
			}
		}
		rng := seeded(s.SampleID, key)
		prev := ""
		for i, t := range turns {
			raw, _ := json.Marshal(t)
			own, _ := turnTime(raw, order)
			speaker := fmt.Sprint(cmp.Or(t["speaker"], t["role"]))
			switch {
			case i == 0:
			case speaker == prev:
				at = at.Add(40 * time.Second)
			case rng.Float64() < share:
				at = at.Add(time.Duration(45+rng.IntN(556)) * time.Minute)
			default:
				at = at.Add(time.Duration(1+rng.IntN(10)) * time.Minute)
			}
			if own.After(at) {
				at = own
			}
			if at.IsZero() {
				break
			}
			t["timestamp"] = at.UTC().Format(time.RFC3339)
			prev = speaker
		}
		b, err := json.Marshal(turns)
		if err != nil {
			return err
		}
		s.Conversation[key] = b
	}
	return nil
}

// ChatRoles rewrites a conversation so that it reads like a person talking
// with an assistant, as a chat export records one: the first speaker's
// turns become the user's, the second's the assistant's, and every
// question is put in their voice. The user asks about themselves in the
// first person ("When did I go to the support group?", "What is my
// job?") and about the assistant in the second ("What is your hobby?").
// Turns and evidence are unchanged. Like LongReplies it is a check on
// methods chosen on LoCoMo, whose speakers have names, not a dataset of
// its own; the questions' grammar is left as it falls ("What does I
// like?"), since a search reads their words.
func ChatRoles(s *Sample) error {
	first, second := s.speaker("speaker_a"), s.speaker("speaker_b")
	if first == "" || second == "" || first == second {
		return fmt.Errorf("chat roles need two named speakers (speaker_a and speaker_b), have %q and %q", first, second)
	}
	role := map[string]string{first: RoleUser, second: RoleAssistant}
	err := s.rewriteSessions(func(_ string, turns []Turn) []Turn {
		for i := range turns {
			if r, ok := role[turns[i].Speaker]; ok {
				turns[i].Speaker = r
			}
		}
		return turns
	})
	if err != nil {
		return err
	}
	s.Conversation["speaker_a"], _ = json.Marshal(RoleUser)
	s.Conversation["speaker_b"], _ = json.Marshal(RoleAssistant)
	for i := range s.QA {
		q := inPerson(s.QA[i].Question, first, "I", "me", "my")
		s.QA[i].Question = inPerson(q, second, "you", "you", "your")
	}
	return nil
}

// UserNames records every speaker by a user name, as chat exports and logs
// write them: the name in lower case, its spaces as underscores
// ("Caroline" becomes "caroline", "Jon Snow" "jon_snow"). The questions
// still name the speakers as written, and the evidence is unchanged.
func UserNames(s *Sample) error {
	return s.renameSpeakers(func(name string) string {
		return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "_")
	})
}

// UnseenNames gives the two speakers of a conversation names that the
// built-in encoder's word vectors do not hold, everywhere a name is
// written: the speakers, the turns and their captions, the questions,
// the answers and the facts. LoCoMo's people have common English names
// ("Caroline", "John"), each a word with a vector of its own, and in a
// question that vector counts among its heaviest; the people of real
// chats are often named otherwise (Oluwaseun, Xiaoling), and then only
// the sentence encoder's pieces and the hash part see the name. Recall
// that depends on which names people have is keyed to the data, so this
// rewrite shows what it is without them. A pair of names is chosen by
// the conversation's id; a speaker recorded by a chat role keeps it.
func UnseenNames(s *Sample) error {
	a, b := s.speaker("speaker_a"), s.speaker("speaker_b")
	if a == "" || b == "" || a == b {
		return nil
	}
	h := fnv.New32a()
	h.Write([]byte(s.SampleID))
	k := 2 * int(h.Sum32()%uint32(len(unseenNames)/2))
	names := map[string]string{}
	for i, was := range []string{a, b} {
		if was != RoleUser && was != RoleAssistant {
			names[was] = unseenNames[k+i]
		}
	}
	rename := renamer(names)
	for key, raw := range s.Conversation {
		s.Conversation[key] = json.RawMessage(rename(string(raw)))
	}
	for i := range s.QA {
		s.QA[i].Question = rename(s.QA[i].Question)
		if ans, ok := s.QA[i].Answer.(string); ok {
			s.QA[i].Answer = rename(ans)
		}
	}
	for i := range s.Observations {
		s.Observations[i].Text = rename(s.Observations[i].Text)
	}
	if len(s.Observation) > 0 {
		s.Observation = json.RawMessage(rename(string(s.Observation)))
	}
	return nil
}

// unseenNames are given names of several languages that are not among the
// GloVe vocabulary's words (palace/embed/glove: Knows is false for each),
// in pairs.
var unseenNames = []string{
	"Oluwaseun", "Xiaoling", "Thandiwe", "Kwabena", "Anneliese", "Chidinma",
	"Yevgenia", "Wiremu", "Aroha", "Keoni", "Leilani", "Tsegaye",
	"Mahlet", "Bongani", "Nomvula", "Sipho", "Dragana", "Kaveh",
	"Roksana", "Tamati", "Anahera", "Ifeoma", "Chukwuemeka", "Tavita",
}

// Anonymised records the two speakers as "A" and "B", as anonymised
// dialogues write them (speaker_a is A). The questions still name them as
// written, and the evidence is unchanged.
func Anonymised(s *Sample) error {
	as := map[string]string{s.speaker("speaker_a"): "A", s.speaker("speaker_b"): "B"}
	return s.renameSpeakers(func(name string) string {
		if a, ok := as[name]; ok {
			return a
		}
		return name
	})
}

// renameSpeakers renames speaker_a, speaker_b and every turn's speaker.
func (s *Sample) renameSpeakers(rename func(string) string) error {
	for _, k := range []string{"speaker_a", "speaker_b"} {
		if name := s.speaker(k); name != "" {
			s.Conversation[k], _ = json.Marshal(rename(name))
		}
	}
	return s.rewriteSessions(func(_ string, turns []Turn) []Turn {
		for i := range turns {
			turns[i].Speaker = rename(turns[i].Speaker)
		}
		return turns
	})
}

// The speakers ChatRoles records.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// inPerson replaces name in a question with a pronoun: its possessive
// ("Caroline's") with poss, the name as the subject (first, or after an
// auxiliary verb or a comma: "When did Caroline go") with subj, and
// anywhere else with obj ("Who gave Caroline the book?").
func inPerson(q, name, subj, obj, poss string) string {
	n := regexp.QuoteMeta(name)
	q = regexp.MustCompile(`\b`+n+`'s?\b|\b`+n+`'`).ReplaceAllString(q, poss)
	re := regexp.MustCompile(`\b` + n + `\b`)
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringIndex(q, -1) {
		before := strings.Fields(q[:m[0]])
		p := subj
		if len(before) > 0 {
			prev := strings.ToLower(before[len(before)-1])
			if !auxiliaries[prev] && !strings.HasSuffix(prev, ",") {
				p = obj
			}
		}
		b.WriteString(q[last:m[0]])
		b.WriteString(p)
		last = m[1]
	}
	b.WriteString(q[last:])
	return b.String()
}

// auxiliaries are the words after which a name is a question's subject.
var auxiliaries = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`did does do is was has had will would can could should
		when where what who how why which were are am might may must`) {
		auxiliaries[w] = true
	}
}

var sentenceEnd = regexp.MustCompile(`[.!?]+["')]*\s+|\n+`)

// sentences splits a turn's text after each sentence's end mark.
func sentences(text string) []string {
	var out []string
	for len(text) > 0 {
		loc := sentenceEnd.FindStringIndex(text)
		end, next := len(text), len(text)
		if loc != nil {
			end, next = loc[1], loc[1]
		}
		if x := strings.TrimSpace(text[:end]); x != "" {
			out = append(out, x)
		}
		text = text[next:]
	}
	return out
}

// answerStop are words too common to say that a message holds an answer.
var answerStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the and for with that this was were has have had her his she him
		they them their from not but are you your our its one yes what when who how did does
		also about into than then there these those some very just been being will would can
		could out all any more most much many other over such only own same too`) {
		answerStop[w] = true
	}
}

// answerWords are the lower-cased words of three or more letters in text,
// with a plural s dropped, as a set.
func answerWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) >= 3 && !answerStop[w] {
			out[strings.TrimSuffix(w, "s")] = true
		}
	}
	return out
}

// Row is one question's outcome.
type Row struct {
	Sample   int
	Variant  int // index in Options.Variants
	Category int
	Question string
	Gold     []string
	Top      []string
	// SharesWord says whether the question shares a content word with
	// any of its evidence turns (sharesWord); nil in a file written
	// before it was recorded.
	SharesWord *bool `json:",omitempty"`
	// EvidenceBy says who said the question's evidence: EvidenceFirst
	// (all of it the conversation's first speaker, speaker_a), or
	// EvidenceSecond, or EvidenceBoth; "" where turns name no speaker, and
	// in a file written before it was recorded.
	EvidenceBy string `json:",omitempty"`
}

// Who said a question's evidence (Row.EvidenceBy). In a chat between a
// person and an assistant the person is the first speaker, and most of
// what is asked is what they said themselves (../shared/RETRIEVAL.md), so
// the report gives these questions apart.
const (
	EvidenceFirst  = "first"
	EvidenceSecond = "second"
	EvidenceBoth   = "both"
)

// evidenceBy is who said the evidence turns (their speakers, spoke) against
// the conversation's first speaker.
func evidenceBy(gold []string, spoke map[string]string, first string) string {
	firsts, seconds := 0, 0
	for _, g := range gold {
		switch sp := spoke[g]; {
		case sp == "" || first == "":
			return ""
		case sp == first:
			firsts++
		default:
			seconds++
		}
	}
	switch {
	case seconds == 0:
		return EvidenceFirst
	case firsts == 0:
		return EvidenceSecond
	}
	return EvidenceBoth
}

// contentTokens are the BM25 tokens (lower-cased, Porter-stemmed) of
// text's words of three letters or more that are not stopwords, less
// those in drop.
func contentTokens(text string, drop map[string]bool) map[string]bool {
	out := map[string]bool{}
	var toks []string
	for _, w := range words.Lower(text, words.Underscores) {
		if len(w) < 3 || words.IsStopword(w) {
			continue
		}
		toks = bm25.AppendTokens(toks[:0], w)
		for _, t := range toks {
			if !words.IsStopword(t) && !drop[t] {
				out[t] = true
			}
		}
	}
	return out
}

// sharesWord reports whether the question shares a content word
// (contentTokens) with any of its evidence texts, the speakers' names not
// counted: the question names whom it asks about, and every turn of that
// speaker carries the name. A question that shares none can be found only
// through meaning, context or expansion, never by its own words; on the
// held-out person-to-person chats 72% of loci's misses were such
// questions, so the evaluation reports them apart.
func sharesWord(question string, evidence []string, names map[string]bool) bool {
	q := contentTokens(question, names)
	for _, e := range evidence {
		for t := range contentTokens(e, names) {
			if q[t] {
				return true
			}
		}
	}
	return false
}

type Group struct {
	Name    string             `json:"name"`
	N       int                `json:"n"`
	Metrics map[string]float64 `json:"metrics"`
}

func Aggregate(name string, rows []Row, ks []int) Group {
	g := Group{Name: name, N: len(rows), Metrics: map[string]float64{}}
	for _, k := range ks {
		var anyS, allS, fracS float64
		for _, r := range rows {
			found := r.Found(k)
			if found > 0 {
				anyS++
			}
			if found == len(r.Gold) {
				allS++
			}
			fracS += float64(found) / float64(len(r.Gold))
		}
		n := float64(max(len(rows), 1))
		g.Metrics[fmt.Sprintf("any@%d", k)] = round4(anyS / n)
		g.Metrics[fmt.Sprintf("all@%d", k)] = round4(allS / n)
		g.Metrics[fmt.Sprintf("frac@%d", k)] = round4(fracS / n)
	}
	return g
}

// Found is how many of the question's evidence turns are among its first
// k results.
func (r Row) Found(k int) int {
	top := map[string]bool{}
	for _, id := range r.Top[:min(k, len(r.Top))] {
		top[id] = true
	}
	found := 0
	for _, gd := range r.Gold {
		if top[gd] {
			found++
		}
	}
	return found
}

// LegSplit sets a hybrid ranking's questions against its two legs run
// alone, at one cut-off: whether the fusion (with what only a hybrid
// search does: relevance feedback, the lifts, neighbours) finds more
// than either leg, and which leg's finds it loses. On a set where hybrid
// ranks below a leg, it tells whether that leg's finds are pushed out by
// the other's list (LostVector or LostKeyword) or never reached by
// either (MissedByAll). A question counts as found when any of its
// evidence is among the first k (any@k).
type LegSplit struct {
	N int `json:"n"`
	// Hybrid and EitherLeg count the questions hybrid finds and those
	// keyword only or vector only finds.
	Hybrid    int `json:"hybrid"`
	EitherLeg int `json:"either_leg"`
	// HybridOnly counts those hybrid finds and neither leg does.
	HybridOnly int `json:"hybrid_only"`
	// LostKeyword, LostVector and LostBoth count those hybrid misses that
	// keyword only, vector only, or each of them finds.
	LostKeyword int `json:"lost_keyword_only"`
	LostVector  int `json:"lost_vector_only"`
	LostBoth    int `json:"lost_both"`
	// MissedByAll counts those no ranking finds.
	MissedByAll int `json:"missed_by_all"`
}

// SplitByLeg sets hybrid's rows against keyword's and vector's, question
// by question: the rows of one ingestion asked in the same order (as
// --matrix asks them). ok is false when the three do not hold the same
// questions.
func SplitByLeg(hybrid, keyword, vector []Row, k int) (s LegSplit, ok bool) {
	if len(keyword) != len(hybrid) || len(vector) != len(hybrid) {
		return LegSplit{}, false
	}
	for i, h := range hybrid {
		kw, ve := keyword[i], vector[i]
		if kw.Sample != h.Sample || ve.Sample != h.Sample || kw.Question != h.Question || ve.Question != h.Question {
			return LegSplit{}, false
		}
		hf, kf, vf := h.Found(k) > 0, kw.Found(k) > 0, ve.Found(k) > 0
		s.N++
		switch {
		case hf:
			s.Hybrid++
			if !kf && !vf {
				s.HybridOnly++
			}
		case kf && vf:
			s.LostBoth++
		case kf:
			s.LostKeyword++
		case vf:
			s.LostVector++
		default:
			s.MissedByAll++
		}
		if kf || vf {
			s.EitherLeg++
		}
	}
	return s, true
}

func round4(f float64) float64 { return float64(int64(f*10000+0.5)) / 10000 }

// Groups computes the report: per category and overall (1-5 and 1-4).
func Groups(rows []Row, ks []int) []Group {
	var out []Group
	for c := 1; c <= 5; c++ {
		var sel []Row
		for _, r := range rows {
			if r.Category == c {
				sel = append(sel, r)
			}
		}
		out = append(out, Aggregate(fmt.Sprintf("%d %s", c, Categories[c]), sel, ks))
	}
	var no5 []Row
	for _, r := range rows {
		if r.Category != 5 {
			no5 = append(no5, r)
		}
	}
	out = append(out, Aggregate("overall 1-4", no5, ks), Aggregate("overall 1-5", rows, ks))
	// Questions by whether they share a word with their evidence (rows
	// read from an older file may not say).
	var shares, none []Row
	for _, r := range rows {
		switch {
		case r.SharesWord == nil:
		case *r.SharesWord:
			shares = append(shares, r)
		default:
			none = append(none, r)
		}
	}
	if len(shares)+len(none) > 0 {
		out = append(out, Aggregate(GroupSharesWord, shares, ks), Aggregate(GroupSharesNoWord, none, ks))
	}
	// Questions by who said their evidence, where the rows say.
	for _, g := range EvidenceGroups {
		var sel []Row
		for _, r := range rows {
			if r.EvidenceBy == g.By {
				sel = append(sel, r)
			}
		}
		if len(sel) > 0 {
			out = append(out, Aggregate(g.Name, sel, ks))
		}
	}
	return out
}

// EvidenceGroups name the report's groups of questions by who said their
// evidence (Row.EvidenceBy).
var EvidenceGroups = []struct{ Name, By string }{
	{"evidence by 1st", EvidenceFirst},
	{"evidence by 2nd", EvidenceSecond},
	{"evidence by both", EvidenceBoth},
}

// The groups of questions by whether they share a content word with their
// evidence (Row.SharesWord).
const (
	GroupSharesWord   = "shares a word"
	GroupSharesNoWord = "shares no word"
)

// Ingestion paths of the evaluation.
const (
	// PathSession writes each conversation as a recorded session: turn
	// drawers with their session, speaker and the session's date.
	PathSession = "session"
	// PathAgent writes each turn on its own, as an agent does through
	// memory_remember: a standalone text "[D1:3] (8 May, 2023) Caroline:
	// …", one connection per LoCoMo session.
	PathAgent = "agent"
	// PathAgentSession writes each turn as PathAgent does, each text naming
	// its conversation through memory_remember's session: the LoCoMo
	// session its dia_id names, so that the two --interleave holds at once
	// through one connection are two sessions, as an agent that records
	// several conversations through one connection names each.
	PathAgentSession = "agent-session"
	// PathAgentReply writes each turn as PathAgent does, naming the
	// recorded session (one group chat, where --interleave holds two
	// conversations at once) as memory_remember's session and, where a turn
	// answers an earlier message than the one just before it (the last
	// turn of its own conversation, by the other speaker), that message as
	// its reply_to: as an agent relays a group chat whose replies it knows.
	PathAgentReply = "agent-reply"
	// PathHook writes each conversation as the Claude Code Stop hook saves
	// a session: one drawer for each prompt and the reply to it (a run of
	// the first speaker's turns and the run of the other's after it), its
	// text "User: …\n\nAssistant: …" (claudecode.TurnText), with no
	// speakers, stored one at a time; and, as the hook does, each exchange
	// appended to the session buffer (a user message and an assistant
	// one), flushed at the end of its session, so that the palace holds
	// the episodes, atomic facts and profile extracted from them too. A hit
	// on an exchange ranks all of its turns, in order, so k counts turns
	// read; an episode or a fact stands for the turns it shows (shownTurns).
	PathHook = "hook"
	// PathFacts stores the file's observations (LoCoMo's facts about each
	// session, each resting on the turns it cites) as facts through the
	// remember tool's path (seed 004: staged, then approved as a reviewer
	// would), and asks through the recall tool's (promoted facts, weak
	// matches dropped). A fact found counts for every turn it cites; the
	// turns no fact cites cannot be found this way.
	PathFacts = "facts"
	// PathWhatsApp writes each conversation as WhatsApp exports a chat
	// (one line a turn, "8/5/2023, 13:56 - Caroline: …", a session's turns
	// a minute apart from its date) and imports it as `loci import` does
	// (chatexport): one session a conversation, each message with its
	// sender and its own time.
	PathWhatsApp = "whatsapp"
	// PathChatGPT writes each session as a conversation of ChatGPT's data
	// export (conversations.json: a chain of messages, each with its own
	// time) and imports it as `loci import` does: one session a
	// conversation. Its speakers must be the user and the assistant
	// (--chat-roles).
	PathChatGPT = "chatgpt"
	// PathSlack writes each conversation as a Slack workspace's export of
	// one channel, each of its sessions a thread (the session number of a
	// turn's dia_id, so that the sessions --interleave holds at once are
	// two threads), a session's turns a minute apart from its date, and
	// imports it as `loci import` does: each thread a session of its own.
	PathSlack = "slack"
	// PathTelegram writes each conversation as Telegram Desktop's export of
	// one chat, a session's turns a minute apart from its date, and a turn
	// that answers an earlier message than the one just before it (the
	// last turn of its own session, by the other speaker, where
	// --interleave holds two sessions at once) as a reply naming that
	// message, as a group chat's members reply; and imports it as `loci
	// import` does.
	PathTelegram = "telegram"
	// PathEpisodes and PathSaveTurn: see episodes.go.
)

// Ways of asking the questions.
const (
	// AskRecall asks through memory_recall's path (Palace.Recall): the
	// first k drawers.
	AskRecall = "recall"
	// AskHook asks as the Claude Code prompt hook does: its search and
	// its choice of at most five memories above its relevance threshold
	// (claudecode.PromptSearch and Choose, with the hook's defaults).
	AskHook = "hook"
	// askFacts asks as the recall tool does (facts.Recall), the only way
	// the facts path can be asked.
	askFacts = "facts"
)

// Variant is one way of asking the questions: a ranking method and,
// for hybrid, a fusion (nil: the default).
type Variant struct {
	Path   string         `json:"path,omitempty"`
	Method palace.Mode    `json:"method"`
	Fusion *palace.Fusion `json:"fusion,omitempty"`
}

// Options configures a run.
type Options struct {
	Data     []string // files in LoCoMo's schema (Load)
	Path     string   // PathSession (default), PathAgent, PathAgentSession, PathAgentReply, PathHook, PathFacts, PathWhatsApp, PathChatGPT, PathEpisodes or PathSaveTurn
	Ask      string   // AskRecall (default) or AskHook
	Method   palace.Mode
	Embedder embed.Embedder
	Ks       []int
	Samples  []int // 1-based conversation numbers; empty means all
	// Variants, when set, asks every question once per variant over the
	// same ingested palaces (Method is then ignored); rows carry the
	// variant's index.
	Variants []Variant
	Progress func(format string, a ...any)
	// Warn reports an item the run skipped or a date it could not read
	// (always shown, unlike progress).
	Warn func(format string, a ...any)
	// LongReplies, above 1, rewrites every conversation first
	// (LongReplies): a user–assistant-like variant of the data.
	LongReplies int
	// NoIDs stores the agent path's texts without their turn ids
	// (agentText): an agent's own notes carry none, and an id's session
	// number ("D1") is a word every text of its session shares.
	NoIDs bool
	// Dream runs every pass of the dreamer over each palace once it is
	// recorded, at the time of its last turn, before any question is
	// asked: a palace in use is consolidated in the background, and
	// recall is measured on what it leaves.
	Dream bool
	// OneThread makes each conversation one thread of dated turns
	// (OneThread), before any other rewrite.
	OneThread bool
	// Interleave holds every two consecutive sessions at once, their
	// turns alternating (Interleave), after the rewrites of the turns'
	// text and before those of their order.
	Interleave bool
	// NoDates drops every date and time of the conversations (NoDates),
	// after OneThread and before the other rewrites.
	NoDates bool
	// DateForm, when set, writes every date in this Go time layout
	// (DateForm), after OneThread and NoDates.
	DateForm string
	// MediaOmitted writes every shared image as a chat export does, a
	// message of its own without its caption (MediaOmitted), before
	// ShortMessages.
	MediaOmitted bool
	// MediaLinks writes every shared image as its links, each a message of
	// its own (MediaLinks), before ShortMessages.
	MediaLinks bool
	// ShortMessages rewrites every conversation first (ShortMessages): a
	// messaging-app-like variant of the data. It applies before LongReplies.
	ShortMessages bool
	// Pastes, when it holds files (PasteFiles), adds a pasted piece of one
	// to every other session (Pastes), after EchoReplies; PastesInTurn
	// appends it to a turn of the first speaker instead.
	Pastes       [][]byte
	PastesInTurn bool
	// ChatRoles rewrites every conversation (ChatRoles), after the other
	// rewrites: a person and an assistant, questions in their voice.
	ChatRoles bool
	// EchoReplies, above 0, rewrites every conversation (EchoReplies)
	// after ShortMessages and LongReplies, before ChatRoles.
	EchoReplies int
	// EchoReworded restates each repeated turn in other words (Reworded).
	EchoReworded bool
	// TopicReplies, above 0, rewrites every conversation (TopicReplies)
	// with that many texts on the topic in each reply.
	TopicReplies int
	// Typos, above 0, misspells that share of the turns' words (Typos),
	// after every other rewrite.
	Typos float64
	// CrossedReplies, above 0, makes that share of the replies cross the
	// message before them (CrossedReplies), after the rewrites of the
	// text and before QuotedReplies.
	CrossedReplies float64
	// QuotedReplies, above 0, makes that share of the replies quote the
	// message they answer (QuotedReplies), after the rewrites of the text
	// and before Tapbacks.
	QuotedReplies float64
	// Tapbacks, above 0, follows that share of the turns with the other
	// speaker's reaction to it as a text of its own (Tapbacks), after the
	// rewrites of the text and before SlowReplies.
	Tapbacks float64
	// EmojiWords, above 0, writes that share of the words an emoji names
	// as the emoji (EmojiWords), after the rewrites of the text and before
	// CasualTyping.
	EmojiWords float64
	// CasualTyping types every turn in lower case, without apostrophes
	// or closing marks (CasualTyping), after the rewrites of the text and
	// before Typos.
	CasualTyping bool
	// CasualQuestions types the questions as CasualTyping types the
	// turns (CasualQuestions), before QuestionTypos.
	CasualQuestions bool
	// QuestionTypos, above 0, misspells that share of the questions'
	// words (QuestionTypos), after the other rewrites of the text.
	QuestionTypos float64
	// SlowReplies, above 0, gives every turn its own time and delays that
	// share of the replies by hours (SlowReplies), last: the rewrites
	// before it write turns without their own times.
	SlowReplies float64
	// UnseenNames gives the speakers names the encoder's word vectors do
	// not hold (UnseenNames), first.
	UnseenNames bool
	// UserNames records every speaker by a user name (UserNames), after
	// UnseenNames.
	UserNames bool
	// Anonymised records the speakers as A and B (Anonymised), first.
	Anonymised bool
	// Haystack, above 0, gives every conversation the sessions of that
	// many others (Haystack), before every other rewrite.
	Haystack int
	// ForeignQuestions asks each conversation the questions of the next
	// (ForeignQuestions), after every rewrite.
	ForeignQuestions bool
	// WriteData, when set, names a file that receives the selected
	// conversations as rewritten, in LoCoMo's schema (for another tool,
	// such as the plain BM25 script, to read the same data).
	WriteData string
	// Store is where the run keeps its palaces (palace.Config.Store):
	// empty for SQLite files in a temporary directory removed afterwards,
	// or the postgres:// URL of a database the run may fill, where its
	// palaces (locomo-1, …) stay: a team palace measured as a local one.
	Store string
}

// writeSamples writes the conversations want selects (all when it is
// empty) to path as a JSON list.
func writeSamples(path string, samples []Sample, want map[int]bool) error {
	var out []Sample
	for i, s := range samples {
		if len(want) == 0 || want[i+1] {
			out = append(out, s)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Run ingests and queries every selected conversation.
func Run(ctx context.Context, o Options) ([]Row, time.Duration, int, error) {
	samples, err := Load(o.Data...)
	if err != nil {
		return nil, 0, 0, err
	}
	if err := Haystack(samples, o.Haystack); err != nil {
		return nil, 0, 0, &DataError{err, "Give --haystack fewer conversations than the files hold, or more files (--data)"}
	}
	// The rewrites, in the order they apply.
	rewrites := []struct {
		on      bool
		rewrite func(*Sample) error
	}{
		{o.UnseenNames, UnseenNames},
		{o.UserNames, UserNames},
		{o.Anonymised, Anonymised},
		{o.OneThread, OneThread},
		{o.NoDates, NoDates},
		{o.DateForm != "", func(s *Sample) error { return DateForm(s, o.DateForm) }},
		{o.MediaOmitted, MediaOmitted},
		{o.MediaLinks, MediaLinks},
		{o.ShortMessages, ShortMessages},
		{o.LongReplies > 1, func(s *Sample) error { return LongReplies(s, o.LongReplies) }},
		{o.EchoReplies > 0, func(s *Sample) error { return EchoReplies(s, o.EchoReplies, o.EchoReworded) }},
		{o.TopicReplies > 0, func(s *Sample) error { return TopicReplies(s, o.TopicReplies) }},
		{len(o.Pastes) > 0, func(s *Sample) error { return Pastes(s, o.Pastes, o.PastesInTurn) }},
		{o.ChatRoles, ChatRoles},
		{o.EmojiWords > 0, func(s *Sample) error { return EmojiWords(s, o.EmojiWords) }},
		{o.CasualTyping, CasualTyping},
		{o.Typos > 0, func(s *Sample) error { return Typos(s, o.Typos) }},
		{o.Interleave, Interleave},
		{o.CasualQuestions, CasualQuestions},
		{o.QuestionTypos > 0, func(s *Sample) error { return QuestionTypos(s, o.QuestionTypos) }},
		{o.CrossedReplies > 0, func(s *Sample) error { return CrossedReplies(s, o.CrossedReplies) }},
		{o.QuotedReplies > 0, func(s *Sample) error { return QuotedReplies(s, o.QuotedReplies) }},
		{o.Tapbacks > 0, func(s *Sample) error { return Tapbacks(s, o.Tapbacks) }},
		{o.SlowReplies > 0, func(s *Sample) error { return SlowReplies(s, o.SlowReplies) }},
	}
	for _, r := range rewrites {
		if !r.on {
			continue
		}
		for i := range samples {
			if err := r.rewrite(&samples[i]); err != nil {
				return nil, 0, 0, &DataError{Err: fmt.Errorf("%s: %w", samples[i].SampleID, err)}
			}
		}
	}
	if o.ForeignQuestions {
		if err := ForeignQuestions(samples); err != nil {
			return nil, 0, 0, &DataError{err, "Give --foreign-questions a file of two conversations or more, whose turns carry a dia_id"}
		}
	}
	want := map[int]bool{}
	for _, s := range o.Samples {
		want[s] = true
	}
	if o.WriteData != "" {
		if err := writeSamples(o.WriteData, samples, want); err != nil {
			return nil, 0, 0, err
		}
	}
	maxK := 0
	for _, k := range o.Ks {
		maxK = max(maxK, k)
	}
	home, err := os.MkdirTemp("", "loci-eval-*")
	if err != nil {
		return nil, 0, 0, err
	}
	defer os.RemoveAll(home)
	// Each conversation's questions are asked as of its last turn, as a
	// user asks right after a conversation: "in June", "last year" and
	// "4 years ago" then name the times the asker meant, not times
	// relative to the day the evaluation runs. Storing uses the wall clock.
	var asOf atomic.Int64 // Unix ns; 0 for the wall clock
	clock := func() time.Time {
		if ns := asOf.Load(); ns != 0 {
			return time.Unix(0, ns).UTC()
		}
		return time.Now()
	}
	// One registry a conversation, closed before the next is stored: a
	// closed palace's indexes are freed, so a file of many conversations
	// runs in the memory of one.
	var reg *palace.Registry
	defer func() {
		if reg != nil {
			reg.Close()
		}
	}()

	how := o.Ask // how each question is asked
	if o.Path == PathFacts {
		how = askFacts
	}
	variants := o.Variants
	if len(variants) == 0 {
		variants = []Variant{{Method: o.Method}}
	}
	// The baseline alone stores nothing: no palace is made.
	plainOnly := !slices.ContainsFunc(variants, func(v Variant) bool { return v.Method != MethodPlainBM25 })
	var rows []Row
	var ingest time.Duration
	turns := 0
	for i, s := range samples {
		n := i + 1
		if len(want) > 0 && !want[n] {
			continue
		}
		ds, err := Drawers(s.Conversation)
		if err != nil {
			return nil, 0, 0, &DataError{Err: fmt.Errorf("%s: %w", s.SampleID, err)}
		}
		if o.Warn != nil {
			o.warnItems(n, "left out", s.Dropped)
			if o.Path == PathFacts && len(s.Observations) == 0 {
				o.Warn("conversation %d (%s) has no observations: the facts path stores LoCoMo's \"observation\" field, {\"session_1_observation\": {speaker: [[fact, \"D1:3\"], …]}}", n, s.SampleID)
			}
			if len(ds) == 0 {
				o.Warn("conversation %d (%s) has no turns: LoCoMo's schema keeps them in lists session_1, session_2, …", n, s.SampleID)
			}
		}
		if unread, example := unreadDates(ds); unread > 0 && o.Warn != nil {
			o.Warn("conversation %d: the dates of %d turns were not read (such as %q); they carry the time they are stored", n, unread, example)
		}
		// The turns' own words and the speakers' names, before ingestion
		// rewrites them (the agent path's header), for sharesWord.
		said, spoke, names := map[string]string{}, map[string]string{}, map[string]bool{}
		first := s.speaker("speaker_a")
		for _, d := range ds {
			said[d.Meta["dia_id"].(string)] = strings.ReplaceAll(d.Content, imageLead, " ")
			if len(d.SenderIDs) > 0 {
				spoke[d.Meta["dia_id"].(string)] = d.SenderIDs[0]
				if first == "" {
					first = d.SenderIDs[0] // the file names no speaker_a: who spoke first
				}
			}
			for _, who := range d.SenderIDs {
				for t := range contentTokens(who, nil) {
					names[t] = true
				}
			}
		}
		// The plain BM25 baseline reads the turns as the file has them,
		// before anything is stored.
		var plain *plainIndex
		if slices.ContainsFunc(variants, func(v Variant) bool { return v.Method == MethodPlainBM25 }) {
			ids, texts := make([]string, len(ds)), make([]string, len(ds))
			for i, d := range ds {
				ids[i], texts[i] = d.Meta["dia_id"].(string), d.Content
			}
			if BySession(o.Path) {
				ids, texts = sessionTexts(ds)
			}
			plain = newPlainIndex(ids, texts)
		}
		// PathEpisodes measures by session: each turn's session.
		var sessionOf map[string]string
		if BySession(o.Path) {
			sessionOf = map[string]string{}
			for _, d := range ds {
				sessionOf[d.Meta["dia_id"].(string)] = sessionLabel(d.SessionID)
			}
		}
		var hookTurns shownTurns
		var p *palace.Palace
		var cites map[string][]string // PathFacts: fact drawer id -> the turns it cites
		if !plainOnly {
			if reg != nil {
				reg.Close()
			}
			reg, err = palace.OpenRegistry(palace.Config{DataDir: home, Store: o.Store, Embedder: o.Embedder, Logger: zerolog.Nop(), Now: clock})
			if err != nil {
				return nil, 0, 0, err
			}
			if p, err = reg.Create(ctx, fmt.Sprintf("locomo-%d", n), "LoCoMo "+s.SampleID); err != nil {
				return nil, 0, 0, err
			}
			start := time.Now()
			asOf.Store(0)
			var skipped []string
			if o.Path == PathFacts {
				var tally factTally
				cites, tally, skipped, err = ingestFacts(ctx, p, s.Observations)
				if o.Progress != nil {
					o.Progress("conversation %d: %d observations: %d facts promoted, %d duplicates of another, %d superseded by a later one", n, len(s.Observations), tally.promoted, tally.duplicates, tally.superseded)
				}
			} else if BySession(o.Path) {
				cites, skipped, err = ingestEpisodes(ctx, p, ds, n, o.Path)
			} else {
				ds, skipped, err = ingestLocomo(ctx, p, ds, o.Path, !o.NoIDs, n, s.speaker("speaker_a"))
			}
			if err != nil {
				return nil, 0, 0, err
			}
			o.warnItems(n, "skipped", skipped)
			if o.Dream {
				if err := dream(ctx, p, lastTime(ds), n, o.Progress); err != nil {
					return nil, 0, 0, err
				}
			}
			// As `loci serve` does for every palace it opens: queries then use
			// the in-memory keyword index, as the server's do.
			if err := p.WarmIndex(ctx); err != nil {
				return nil, 0, 0, err
			}
			ingest += time.Since(start)
		}
		if o.Path == PathHook {
			hookTurns = newShownTurns(ds, n)
		}
		turns += len(ds)
		if last := lastTime(ds); !last.IsZero() {
			asOf.Store(last.UnixNano())
		}
		ids := map[string]bool{}
		diaOf := map[string][]string{} // drawer id -> its LoCoMo turn ids
		for _, d := range ds {
			ids[d.Meta["dia_id"].(string)] = true
			diaOf[d.ID] = append(diaOf[d.ID], d.Meta["dia_id"].(string))
		}
		if cites != nil {
			diaOf = cites
		}
		asked, unmatched, noEvidence, example := 0, 0, 0, ""
		var refused []string
		order, end := dateOrder(s.Conversation), asOf.Load()
		for _, qa := range s.QA {
			asOf.Store(end)
			if when := readDate(qa.QuestionDate, order); !when.IsZero() {
				asOf.Store(when.UnixNano())
			}
			var gold []string
			for _, e := range normEvidence(qa.Evidence) {
				if ids[e] {
					gold = append(gold, e)
				}
			}
			if len(gold) == 0 {
				// Evidence that names no turn of the conversation (ids
				// written another way than the turns' dia_id) is counted;
				// a question without evidence is not scored (the metric's
				// definition), and a warning says how many.
				if len(qa.Evidence) > 0 {
					if unmatched++; example == "" {
						example = fmt.Sprint(qa.Evidence...)
					}
				} else {
					noEvidence++
				}
				continue
			}
			evidence := make([]string, len(gold))
			for i, g := range gold {
				evidence[i] = said[g]
			}
			shares := sharesWord(qa.Question, evidence, names)
			by := evidenceBy(gold, spoke, first)
			if sessionOf != nil {
				gold = sessionsOf(gold, sessionOf)
			}
			var got []Row
			for vi, v := range variants {
				if v.Method == MethodPlainBM25 {
					got = append(got, Row{Sample: n, Variant: vi, Category: int(qa.Category), Question: qa.Question, Gold: gold, Top: plain.rank(qa.Question, maxK), SharesWord: &shares, EvidenceBy: by})
					continue
				}
				hits, shown, err := ask(ctx, p, how, qa.Question, maxK, v)
				if palace.ErrorCode(err) == palace.CodeInvalid {
					// A question the palace refuses (empty, too long) is
					// reported and left out, as a refused turn is.
					got = nil
					refused = append(refused, fmt.Sprintf("%q (%v)", qa.Question, err))
					break
				}
				if err != nil {
					return nil, 0, 0, fmt.Errorf("%s: %q: %w", s.SampleID, qa.Question, err)
				}
				top := make([]string, 0, len(hits))
				for i, d := range hits {
					stands := diaOf[d.ID]
					if sessionOf != nil && len(stands) == 0 {
						stands = []string{"-"} // a profile: it was read, and stands for no session
					}
					if o.Path == PathHook && len(stands) == 0 {
						stands = hookTurns.shows(d, shown[i])
					}
					top = append(top, stands...)
				}
				got = append(got, Row{Sample: n, Variant: vi, Category: int(qa.Category), Question: qa.Question, Gold: gold, Top: top, SharesWord: &shares, EvidenceBy: by})
			}
			if len(got) > 0 {
				rows = append(rows, got...)
				asked++
			}
		}
		o.warnItems(n, "did not ask", refused)
		if unmatched > 0 && o.Warn != nil {
			o.Warn("conversation %d: %d questions not asked: their evidence names no turn of the conversation (such as %q; turns are matched by dia_id, D1:3)", n, unmatched, example)
		}
		if noEvidence > 0 && o.Warn != nil {
			o.Warn("conversation %d: %d questions not scored: they name no evidence (recall is measured on questions with evidence)", n, noEvidence)
		}
		if o.Progress != nil {
			o.Progress("conversation %d (%s): %d turns, %d questions", n, s.SampleID, len(ds), asked)
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, 0, err
		}
	}
	return rows, ingest, turns, nil
}

// ask asks a question of p the way o.Ask names, with the variant's
// method and fusion, and returns the drawers answered, best first.
func ask(ctx context.Context, p *palace.Palace, how, question string, k int, v Variant) ([]*palace.Drawer, []string, error) {
	var out []*palace.Drawer
	var shown []string // what the face shows of each
	if how == askFacts {
		found, err := facts.Of(p).Recall(ctx, question, k)
		for _, f := range found {
			out = append(out, &palace.Drawer{ID: f.DrawerID})
			shown = append(shown, f.Fact)
		}
		return out, shown, err
	}
	if how == AskHook {
		req := claudecode.PromptSearch(question)
		req.Mode, req.Fusion = v.Method, v.Fusion
		found, err := p.Search(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range claudecode.Choose(ctx, p, question, "", found, claudecode.DefaultMinRelevance, claudecode.DefaultMaxRecall) {
			out = append(out, r.Drawer)
			shown = append(shown, r.Shown())
		}
		return out, shown, nil
	}
	hits, err := p.Recall(ctx, palace.RecallRequest{Query: question, K: k, Mode: v.Method, Fusion: v.Fusion})
	for _, h := range hits {
		out = append(out, h.Drawer)
		shown = append(shown, h.Drawer.Content)
	}
	return out, shown, err
}

// lastTime is the latest event time of ds (zero when none has one).
func lastTime(ds []*palace.Drawer) time.Time {
	var t time.Time
	for _, d := range ds {
		if d.Timestamp.After(t) {
			t = d.Timestamp
		}
	}
	return t
}

// ingestLocomo stores a conversation's turns along path (the agent path's
// texts with their ids when withIDs) and returns the drawers stored. A
// turn the palace refuses (too long, say) is reported and left out; the
// run goes on.
func ingestLocomo(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, path string, withIDs bool, n int, user string) ([]*palace.Drawer, []string, error) {
	if path == PathHook {
		return ingestExchanges(ctx, p, ds, n, user)
	}
	if path == PathWhatsApp {
		return ingestWhatsApp(ctx, p, ds, n)
	}
	if path == PathChatGPT {
		return ingestChatGPT(ctx, p, ds, n)
	}
	if path == PathSlack {
		return ingestSlack(ctx, p, ds, n)
	}
	if path == PathTelegram {
		return ingestTelegram(ctx, p, ds, n)
	}
	if path != PathAgent && path != PathAgentSession && path != PathAgentReply {
		if err := p.AddMany(ctx, ds); err == nil {
			return ds, nil, nil
		} else if palace.ErrorCode(err) != palace.CodeInvalid {
			return nil, nil, err
		}
		// Some turn is refused: store them one by one to find it.
		var kept []*palace.Drawer
		var skipped []string
		for _, d := range ds {
			if err := p.Add(ctx, d); err != nil {
				if palace.ErrorCode(err) != palace.CodeInvalid {
					return nil, nil, err
				}
				skipped = append(skipped, fmt.Sprintf("%s: %v", d.Meta["dia_id"], err))
				continue
			}
			kept = append(kept, d)
		}
		return kept, skipped, nil
	}
	var kept []*palace.Drawer
	var skipped []string
	last := map[string]int{} // PathAgentReply: thread -> the index in ds of its last turn so far
	ids := make([]string, len(ds))
	for i, d := range ds {
		date, _ := d.Meta["date"].(string)
		o := palace.RememberOptions{Connection: convSessionID(n, d.SessionID)}
		switch path {
		case PathAgentSession:
			o.Session = convSessionID(n, turnThread(d))
		case PathAgentReply:
			o.Session = o.Connection
			thread := turnThread(d)
			if j, ok := last[thread]; ok && j != i-1 && ids[j] != "" && !slices.Equal(ds[j].SenderIDs, d.SenderIDs) {
				o.ReplyTo = ids[j]
			}
			last[thread] = i
		}
		stored, err := p.Remember(ctx, agentText(d, date, withIDs), o)
		if err != nil {
			if palace.ErrorCode(err) != palace.CodeInvalid {
				return nil, nil, err
			}
			skipped = append(skipped, fmt.Sprintf("%s: %v", d.Meta["dia_id"], err))
			continue
		}
		ids[i] = stored.ID
		stored.Meta = d.Meta // the evaluation's own bookkeeping, kept in memory only
		kept = append(kept, stored)
	}
	return kept, skipped, nil
}

// ingestWhatsApp writes a conversation's turns as WhatsApp's export of a
// chat and stores it through the chat importer (PathWhatsApp). A
// session's turns are a minute apart from its date; a conversation
// without dates cannot be written so.
func ingestWhatsApp(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int) ([]*palace.Drawer, []string, error) {
	times, err := exportTimes(ds, "WhatsApp", PathWhatsApp)
	if err != nil {
		return nil, nil, err
	}
	var export strings.Builder
	for i, d := range ds {
		t := times[i]
		fmt.Fprintf(&export, "%d/%d/%d, %02d:%02d - %s\n", t.Day(), int(t.Month()), t.Year(), t.Hour(), t.Minute(), d.Content)
	}
	chat, err := chatexport.ReadWhatsApp(strings.NewReader(export.String()), fmt.Sprintf("conversation %d", n), chatexport.OrderDMY)
	if err != nil {
		return nil, nil, err
	}
	if len(chat.Messages) != len(ds) {
		return nil, nil, fmt.Errorf("conversation %d: %d turns read back as %d messages", n, len(ds), len(chat.Messages))
	}
	return storeChat(ctx, p, chat, ds)
}

// ingestSlack writes a conversation's turns as a Slack workspace's export
// of one channel, each session of a turn's dia_id a thread, and stores it
// through the chat importer (PathSlack): each thread a session of its own.
// A session's turns are a minute apart from its date (a microsecond a
// turn more, so that no two share a ts); a conversation without dates
// cannot be written so.
func ingestSlack(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int) ([]*palace.Drawer, []string, error) {
	type message struct {
		Type     string `json:"type"`
		User     string `json:"user"`
		Text     string `json:"text"`
		TS       string `json:"ts"`
		ThreadTS string `json:"thread_ts"`
	}
	users := map[string]string{} // speaker -> user id
	var userList []map[string]any
	days := map[string][]message{} // day file -> its messages
	threads := map[string]string{} // thread -> its first message's ts
	byTime := map[time.Time]*palace.Drawer{}
	times, err := exportTimes(ds, "Slack", PathSlack)
	if err != nil {
		return nil, nil, err
	}
	escape := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	for i, d := range ds {
		t := times[i].Add(time.Duration(i) * time.Microsecond).UTC() // no two share a ts
		byTime[t] = d
		speaker := d.SenderIDs[0]
		if users[speaker] == "" {
			users[speaker] = fmt.Sprintf("U%d", len(users)+1)
			userList = append(userList, map[string]any{"id": users[speaker], "profile": map[string]string{"display_name": speaker}})
		}
		thread := turnThread(d)
		ts := fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000)
		if threads[thread] == "" {
			threads[thread] = ts
		}
		day := "c/" + t.Format("2006-01-02") + ".json"
		days[day] = append(days[day], message{Type: "message", User: users[speaker], Text: escape.Replace(strings.TrimPrefix(d.Content, speaker+": ")), TS: ts, ThreadTS: threads[thread]})
	}
	files := map[string]any{"users.json": userList, "channels.json": []map[string]string{{"id": "C1", "name": "c"}}}
	for day, ms := range days {
		files[day] = ms
	}
	dir, err := exportDir(files)
	defer os.RemoveAll(dir)
	if err != nil {
		return nil, nil, err
	}
	chats, err := chatexport.Open(dir, chatexport.OpenOptions{Format: chatexport.FormatSlack})
	if err != nil {
		return nil, nil, err
	}
	var kept []*palace.Drawer
	var skipped []string
	read := 0
	for _, chat := range chats {
		chat.ID = fmt.Sprintf("conversation-%d/%s", n, chat.ID)
		src := make([]*palace.Drawer, len(chat.Messages))
		for i, m := range chat.Messages {
			if src[i] = byTime[m.Time]; src[i] == nil {
				return nil, nil, fmt.Errorf("conversation %d: a message of %s read back from the Slack export is no turn", n, m.Time)
			}
		}
		read += len(chat.Messages)
		k, s, err := storeChat(ctx, p, chat, src)
		if err != nil {
			return nil, nil, err
		}
		kept, skipped = append(kept, k...), append(skipped, s...)
	}
	if read != len(ds) {
		return nil, nil, fmt.Errorf("conversation %d: %d turns read back as %d messages", n, len(ds), read)
	}
	return kept, skipped, nil
}

// ingestTelegram writes a conversation's turns as Telegram Desktop's
// export of one chat and stores it through the chat importer
// (PathTelegram). A turn names the message it answers where that is not
// the message just before it: the last turn of its own session (turnThread)
// when another speaker sent it.
func ingestTelegram(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int) ([]*palace.Drawer, []string, error) {
	type message struct {
		ID      int    `json:"id"`
		Type    string `json:"type"`
		Date    string `json:"date"`
		From    string `json:"from"`
		Text    string `json:"text"`
		ReplyTo int    `json:"reply_to_message_id,omitempty"`
	}
	times, err := exportTimes(ds, "Telegram", PathTelegram)
	if err != nil {
		return nil, nil, err
	}
	var ms []message
	last := map[string]int{} // thread -> the index of its last turn so far
	for i, d := range ds {
		t := times[i]
		speaker := d.SenderIDs[0]
		m := message{ID: i + 1, Type: "message", Date: t.Format("2006-01-02T15:04:05"), From: speaker, Text: strings.TrimPrefix(d.Content, speaker+": ")}
		thread := turnThread(d)
		if j, ok := last[thread]; ok && j != i-1 && ds[j].SenderIDs[0] != speaker {
			m.ReplyTo = j + 1
		}
		last[thread] = i
		ms = append(ms, m)
	}
	dir, err := exportDir(map[string]any{"result.json": map[string]any{"name": fmt.Sprintf("conversation %d", n), "type": "private_group", "id": n, "messages": ms}})
	defer os.RemoveAll(dir)
	if err != nil {
		return nil, nil, err
	}
	chats, err := chatexport.Open(filepath.Join(dir, "result.json"), chatexport.OpenOptions{Format: chatexport.FormatTelegram})
	if err != nil {
		return nil, nil, err
	}
	if len(chats) != 1 || len(chats[0].Messages) != len(ds) {
		return nil, nil, fmt.Errorf("conversation %d: %d turns read back otherwise", n, len(ds))
	}
	return storeChat(ctx, p, chats[0], ds)
}

// exportDir writes an export's files (a name, slash-separated, to the
// value its JSON is) into a new temporary folder, for the export paths to
// read back as `loci import` does; the caller removes the folder ("" when
// none was made).
func exportDir(files map[string]any) (string, error) {
	dir, err := os.MkdirTemp("", "loci-eval-export-")
	if err != nil {
		return "", err
	}
	for name, v := range files {
		b, err := json.Marshal(v)
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(p), 0o700)
		}
		if err == nil {
			err = os.WriteFile(p, b, 0o600)
		}
		if err != nil {
			return dir, err
		}
	}
	return dir, nil
}

// turnThread is the conversation a turn belongs to: the session its
// dia_id names ("D3" of "D3:5"), which --interleave keeps, else its
// drawer's session.
func turnThread(d *palace.Drawer) string {
	if id, _ := d.Meta["dia_id"].(string); diaSessionR.MatchString(id) {
		return diaSessionR.FindStringSubmatch(id)[1]
	}
	return d.SessionID
}

// diaSessionR is the session a LoCoMo turn's dia_id names ("D3" of "D3:5").
var diaSessionR = regexp.MustCompile(`^(D\d+):\d+$`)

// exportTimes are the times an export of app writes for the turns ds
// (path's): a session's turns a minute apart from its date. A turn
// without a date cannot be written so.
func exportTimes(ds []*palace.Drawer, app, path string) ([]time.Time, error) {
	times := make([]time.Time, len(ds))
	start, turn := map[string]time.Time{}, map[string]int{}
	for i, d := range ds {
		if d.Timestamp.IsZero() {
			return nil, &DataError{Err: fmt.Errorf("turn %s has no date, and a %s export dates every message", d.Meta["dia_id"], app),
				Hint: "The " + path + " path needs the sessions' dates: leave out --no-dates"}
		}
		if _, ok := start[d.SessionID]; !ok {
			start[d.SessionID] = d.Timestamp.Truncate(time.Minute)
		}
		times[i] = start[d.SessionID].Add(time.Duration(turn[d.SessionID]) * time.Minute)
		turn[d.SessionID]++
	}
	return times, nil
}

// storeChat stores a chat read back from an export written of the turns
// src, one message a turn in order, through the chat importer, and
// returns the drawers stored with the turns' bookkeeping, and the turns
// the palace refused.
func storeChat(ctx context.Context, p *palace.Palace, chat *chatexport.Chat, src []*palace.Drawer) ([]*palace.Drawer, []string, error) {
	st, err := chatexport.Store(ctx, p, chat, chatexport.StoreOptions{})
	if err != nil {
		return nil, nil, err
	}
	refused := map[int]string{}
	for _, r := range st.Refused {
		refused[r.Line] = r.Reason
	}
	var kept []*palace.Drawer
	var skipped []string
	for i, d := range chatexport.Drawers(chat, "") {
		if why, ok := refused[chat.Messages[i].Line]; ok {
			skipped = append(skipped, fmt.Sprintf("%s: %s", src[i].Meta["dia_id"], why))
			continue
		}
		d.Meta = src[i].Meta // the evaluation's own bookkeeping, kept in memory only
		kept = append(kept, d)
	}
	return kept, skipped, nil
}

// ingestChatGPT writes a conversation's sessions as the conversations of
// ChatGPT's export and stores them through the chat importer
// (PathChatGPT).
func ingestChatGPT(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int) ([]*palace.Drawer, []string, error) {
	type message struct {
		Author struct {
			Role string `json:"role"`
		} `json:"author"`
		CreateTime float64 `json:"create_time"`
		Content    struct {
			ContentType string   `json:"content_type"`
			Parts       []string `json:"parts"`
		} `json:"content"`
	}
	type node struct {
		Parent  *string  `json:"parent"`
		Message *message `json:"message"`
	}
	type conversation struct {
		ID          string          `json:"conversation_id"`
		Title       string          `json:"title"`
		CurrentNode string          `json:"current_node"`
		Mapping     map[string]node `json:"mapping"`
	}
	var convs []*conversation
	bySession := map[string]*conversation{}
	turns := map[string][]*palace.Drawer{}
	for _, d := range ds {
		role := d.SenderIDs[0]
		if role != RoleUser && role != RoleAssistant {
			return nil, nil, &DataError{Err: fmt.Errorf("turn %s is %q's, and a chat with an assistant is the user's and the assistant's", d.Meta["dia_id"], role),
				Hint: "Add --chat-roles, which makes LoCoMo's speakers the user and the assistant"}
		}
		c := bySession[d.SessionID]
		if c == nil {
			c = &conversation{ID: fmt.Sprintf("conversation-%d-%s", n, d.SessionID), Title: d.SessionID, Mapping: map[string]node{}}
			bySession[d.SessionID] = c
			convs = append(convs, c)
		}
		var m message
		m.Author.Role = role
		m.CreateTime = float64(d.Timestamp.UnixMilli()) / 1000
		m.Content.ContentType = "text"
		m.Content.Parts = []string{strings.TrimPrefix(d.Content, role+": ")}
		var parent *string
		if prev := c.CurrentNode; prev != "" {
			parent = &prev
		}
		id := fmt.Sprintf("n%d", len(c.Mapping)+1)
		c.Mapping[id] = node{Parent: parent, Message: &m}
		c.CurrentNode = id
		turns[c.ID] = append(turns[c.ID], d)
	}
	data, err := json.Marshal(convs)
	if err != nil {
		return nil, nil, err
	}
	chats, err := chatexport.ReadAssistantChats(data)
	if err != nil {
		return nil, nil, err
	}
	var kept []*palace.Drawer
	var skipped []string
	for _, chat := range chats {
		src := turns[chat.ID]
		if len(chat.Messages) != len(src) {
			return nil, nil, fmt.Errorf("conversation %d, %s: %d turns read back as %d messages", n, chat.Name, len(src), len(chat.Messages))
		}
		k, sk, err := storeChat(ctx, p, chat, src)
		if err != nil {
			return nil, nil, err
		}
		kept, skipped = append(kept, k...), append(skipped, sk...)
	}
	return kept, skipped, nil
}

// factTally counts what staging a conversation's observations did.
type factTally struct{ promoted, duplicates, superseded int }

// ingestFacts stores observations as the remember tool stores facts
// (facts.Queue.Stage, with its write hygiene) and approves each staged one,
// as a reviewer who accepts them all would. A fact that restates one
// already stored is not stored twice: the turns it cites are credited to
// the one it restates. A fact that contradicts a promoted one supersedes
// it on approval, as in use; the superseded fact leaves recall, and the
// turns only it cited can no longer be found. It returns the turns each
// stored fact cites, by drawer id; an observation the queue refuses (too
// long, say) is reported and left out.
func ingestFacts(ctx context.Context, p *palace.Palace, obs []Observation) (map[string][]string, factTally, []string, error) {
	q := facts.Of(p)
	cites := map[string][]string{}
	var tally factTally
	var skipped []string
	for _, ob := range obs {
		res, err := q.Stage(ctx, facts.Input{Text: ob.Text, Confidence: facts.DefaultConfidence, Source: "loci eval"})
		if err != nil {
			if palace.ErrorCode(err) != palace.CodeInvalid {
				return nil, tally, nil, err
			}
			skipped = append(skipped, fmt.Sprintf("%s: %v", strings.Join(ob.Evidence, ","), err))
			continue
		}
		id := res.Fact.DrawerID
		switch res.Outcome {
		case facts.OutcomeDuplicate, facts.OutcomeReconfirmed:
			tally.duplicates++
		case facts.OutcomeStaged:
			if _, err := q.Approve(ctx, res.Fact.ID); err != nil {
				return nil, tally, nil, err
			}
			if res.Conflict != nil {
				tally.superseded++
			}
			fallthrough
		default:
			tally.promoted++
		}
		for _, e := range ob.Evidence {
			if !slices.Contains(cites[id], e) {
				cites[id] = append(cites[id], e)
			}
		}
	}
	return cites, tally, skipped, nil
}

// ingestExchanges stores a conversation as the Stop hook does (PathHook):
// within each session, the turns of user (the first speaker; the first
// turn's speaker when the file names none) and the turns of the other
// speaker after them make one exchange, saved as one drawer, its texts
// without the speakers' names (the roles name them), and appended to the
// session buffer as a user and an assistant message; each session's buffer
// is flushed when it ends, as the SessionEnd hook does. It returns the
// turns stored, each carrying its exchange's drawer id.
func ingestExchanges(ctx context.Context, p *palace.Palace, ds []*palace.Drawer, n int, user string) ([]*palace.Drawer, []string, error) {
	if user == "" && len(ds) > 0 && len(ds[0].SenderIDs) > 0 {
		user = ds[0].SenderIDs[0]
	}
	var kept []*palace.Drawer
	var skipped []string
	for i := 0; i < len(ds); {
		// One exchange: the prompt's turns, then the reply's.
		j := i
		var prompt, reply []string
		for ; j < len(ds) && ds[j].SessionID == ds[i].SessionID; j++ {
			who := ""
			if len(ds[j].SenderIDs) > 0 {
				who = ds[j].SenderIDs[0]
			}
			if who == user && len(reply) > 0 {
				break
			}
			// A prompt and a reply are the words typed, without a name.
			text := strings.TrimPrefix(ds[j].Content, who+": ")
			if who == user {
				prompt = append(prompt, text)
			} else {
				reply = append(reply, text)
			}
		}
		turns := ds[i:j]
		i = j
		ends := i == len(ds) || ds[i].SessionID != turns[0].SessionID // the session's last exchange
		d := &palace.Drawer{
			Kind:      palace.KindTurn,
			Content:   claudecode.TurnText(strings.Join(prompt, "\n"), strings.Join(reply, "\n\n")),
			Tags:      []string{claudecode.TagClaudeCode},
			SessionID: convSessionID(n, turns[0].SessionID),
			Timestamp: turns[0].Timestamp,
		}
		if err := p.Add(ctx, d); err != nil {
			if palace.ErrorCode(err) != palace.CodeInvalid {
				return nil, nil, err
			}
			skipped = append(skipped, fmt.Sprintf("%s: %v", turns[0].Meta["dia_id"], err))
		} else {
			for _, t := range turns {
				t.ID = d.ID
				kept = append(kept, t)
			}
			// And in the session buffer, as the Stop hook does: a side
			// with no words (a turn that was only a picture, or blank) is
			// no message, and a message the buffer refuses costs only the
			// extraction, as in the hook, which logs it and goes on.
			var msgs []extract.Message
			if text := strings.Join(prompt, "\n"); strings.TrimSpace(text) != "" {
				msgs = append(msgs, extract.Message{ID: d.ID, Role: "user", Text: text, Timestamp: turns[0].Timestamp})
			}
			if text := strings.Join(reply, "\n\n"); strings.TrimSpace(text) != "" {
				msgs = append(msgs, extract.Message{Role: "assistant", Text: text, Timestamp: turns[len(turns)-1].Timestamp})
			}
			if len(msgs) > 0 {
				if _, err := session.Of(p).Append(ctx, d.SessionID, msgs, session.Options{}); err != nil {
					if palace.ErrorCode(err) != palace.CodeInvalid {
						return nil, nil, err
					}
					skipped = append(skipped, fmt.Sprintf("%s in the session buffer (the exchange is stored): %v", turns[0].Meta["dia_id"], err))
				}
			}
		}
		if ends { // the session ends: the SessionEnd hook flushes its buffer
			if _, err := session.Of(p).Flush(ctx, d.SessionID, session.Options{}); err != nil {
				return nil, nil, err
			}
		}
	}
	return kept, skipped, nil
}

// DefaultDataPath finds LoCoMo where the project keeps it: beside the
// repository in ../shared/data, or from LOCI_LOCOMO.
func DefaultDataPath() string {
	if v := os.Getenv("LOCI_LOCOMO"); v != "" {
		return v
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "..", "shared", "data", "locomo10.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			return filepath.Join("..", "shared", "data", "locomo10.json")
		}
	}
}

// dream runs every dreamer pass over p as of at (its last turn's time;
// the wall clock when it has none) and reports what each changed.
func dream(ctx context.Context, p *palace.Palace, at time.Time, n int, progress func(string, ...any)) error {
	o := dreamer.RunOptions{Settings: dreamer.DefaultSettings(), Trigger: "eval", Logger: zerolog.Nop()}
	if !at.IsZero() {
		o.Now = func() time.Time { return at }
	}
	rep, err := dreamer.Run(ctx, p, o)
	if err != nil {
		return fmt.Errorf("dream: %w", err)
	}
	if progress != nil {
		var done []string
		for _, ps := range rep.Passes {
			done = append(done, fmt.Sprintf("%s %s (%d changed)", ps.Name, ps.Status, ps.Changed))
		}
		progress("conversation %d: dreamt: %s", n, strings.Join(done, ", "))
	}
	return nil
}
