// Package locomo runs the retrieval evaluation on LoCoMo, or on any file in
// LoCoMo's schema: it ingests each conversation into a fresh palace along
// one of its paths (recorded sessions, an agent's one-at-a-time
// memory_remember texts, the Claude Code Stop hook's exchanges, or the
// file's observations as facts), asks every question with evidence through
// the recall path the servers use, and scores the evidence turns' ranks
// (any@k, all@k, frac@k; ../shared/data/README.md) per category and per
// conversation range. `loci eval locomo` is its command line.
//
// Its files, by what they hold: locomo.go reads the schema (and the other
// datasets' spellings of it) into samples and drawers; rewrite.go holds
// the rewrites that make a conversation read as another kind of chat
// (long replies, short messages, typos, exports' quirks) or a palace
// larger; run.go ingests along each path and asks the questions; score.go
// turns the ranks into any@k, all@k and frac@k and their groups;
// episodes.go, hookturns.go, plain.go and longmemeval.go are the paths,
// the baseline and the dataset of their names.
package locomo

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
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
