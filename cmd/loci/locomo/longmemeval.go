package locomo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// LongMemEval (Wu et al. 2024, arXiv 2410.10813) is a public benchmark of
// long-term memory in chats between a user and an assistant: each of its
// instances is one question asked after its own haystack of sessions, the
// turns that hold the answer marked has_answer. Its files (longmemeval_s,
// _m, _oracle, and the cleaned releases) are read as they are, with no
// conversion: an instance is a conversation of its own, speakers "user"
// and "assistant", with one question whose evidence is its marked turns,
// so its turn-level recall is reported as LoCoMo's is.

// longMemEvalTypes maps LongMemEval's question types onto LoCoMo's
// categories by what the evidence needs: one session's turns (single-hop),
// several sessions' (multi-hop; a knowledge update needs the old value and
// the new), a time (temporal). An abstention question (its id ends in
// "_abs") asks about what the chats never said, as LoCoMo's adversarial
// questions do.
var longMemEvalTypes = map[string]Category{
	"single-session-user":       4,
	"single-session-assistant":  4,
	"single-session-preference": 4,
	"multi-session":             1,
	"knowledge-update":          1,
	"temporal-reasoning":        2,
}

// fromLongMemEval reads a LongMemEval instance, given as its fields, as
// a conversation in LoCoMo's schema: session i (from 1) of its haystack is
// session_i, dated by haystack_dates[i-1]; turn j (from 1) of it is Di:j,
// spoken by its role; its question, asked at its question_date, with the
// turns marked has_answer as evidence. What cannot be read (a field of
// another type, a session that is not a list, a turn that is not an
// object) is left out and noted in Dropped, as in a LoCoMo file: one bad
// item costs that item, never the run.
func fromLongMemEval(fields map[string]json.RawMessage) Sample {
	var v struct {
		QuestionID, QuestionType, Question, QuestionDate text
		Answer                                           any
		Dates                                            []text
		Sessions                                         []json.RawMessage
	}
	var dropped []string
	for _, f := range []struct {
		key  string
		into any
	}{{"question_id", &v.QuestionID}, {"question_type", &v.QuestionType}, {"question", &v.Question}, {"question_date", &v.QuestionDate},
		{"answer", &v.Answer}, {"haystack_dates", &v.Dates}, {"haystack_sessions", &v.Sessions}} {
		if raw, ok := fields[f.key]; ok && json.Unmarshal(raw, f.into) != nil {
			dropped = append(dropped, f.key+": not readable")
		}
	}
	s := Sample{SampleID: string(v.QuestionID), Conversation: map[string]json.RawMessage{}, Dropped: dropped}
	s.Conversation["speaker_a"], _ = json.Marshal(RoleUser)
	s.Conversation["speaker_b"], _ = json.Marshal(RoleAssistant)
	var evidence Evidence
	for i, raw := range v.Sessions {
		n := i + 1
		var turns []json.RawMessage
		if json.Unmarshal(raw, &turns) != nil {
			s.Dropped = append(s.Dropped, fmt.Sprintf("haystack session %d: not a list of turns", n))
			continue
		}
		out := make([]map[string]string, 0, len(turns))
		for j, t := range turns {
			var turn struct {
				Role      text `json:"role"`
				Content   text `json:"content"`
				HasAnswer any  `json:"has_answer"`
			}
			if !isObject(t) || json.Unmarshal(t, &turn) != nil {
				s.Dropped = append(s.Dropped, fmt.Sprintf("haystack session %d, turn %d: not an object", n, j+1))
				continue
			}
			id := fmt.Sprintf("D%d:%d", n, j+1)
			out = append(out, map[string]string{"speaker": string(turn.Role), "dia_id": id, "text": string(turn.Content)})
			if marked(turn.HasAnswer) {
				evidence = append(evidence, id)
			}
		}
		s.Conversation[fmt.Sprintf("session_%d", n)], _ = json.Marshal(out)
		if i < len(v.Dates) && v.Dates[i] != "" {
			s.Conversation[fmt.Sprintf("session_%d_date_time", n)], _ = json.Marshal(string(v.Dates[i]))
		}
	}
	category := longMemEvalTypes[strings.TrimSpace(string(v.QuestionType))]
	if strings.HasSuffix(string(v.QuestionID), "_abs") {
		category = 5
	}
	s.QA = []QA{{Question: string(v.Question), Category: category, Evidence: evidence, Answer: v.Answer,
		QuestionDate: string(v.QuestionDate)}}
	return s
}

// marked reports whether a turn's has_answer says yes: true, or a string
// or number that says so, as a converted file may write it.
func marked(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "1":
			return true
		}
	}
	return false
}

// longMemEvalItem reports whether b, one item of a file's list or a
// whole file, is a LongMemEval instance (an object with haystack sessions
// and no conversation), and reads it if so.
func longMemEvalItem(b []byte) (Sample, bool) {
	if !bytes.Contains(b, []byte(`"haystack_sessions"`)) {
		return Sample{}, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) != nil {
		return Sample{}, false
	}
	_, haystack := fields["haystack_sessions"]
	_, conv := fields["conversation"]
	if !haystack || conv {
		return Sample{}, false
	}
	return fromLongMemEval(fields), true
}
