package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace/redact"
)

// LLMConfig configures the extractor backed by an OpenAI-compatible chat
// completions endpoint (OpenAI, Ollama, vLLM, llama.cpp server, ...).
type LLMConfig struct {
	// BaseURL is the API root, e.g. "http://127.0.0.1:11434/v1". Requests
	// go to BaseURL + "/chat/completions"; "/v1" is added when BaseURL
	// does not end with it.
	BaseURL string
	Model   string
	APIKey  string // sent as "Authorization: Bearer ..." when set
	// Timeout bounds one HTTP attempt; default 60s.
	Timeout time.Duration
	// Attempts is how many times one extraction is tried (HTTP failures,
	// and replies that are not the JSON asked for); default 3.
	Attempts int
	// Backoff is the wait before the second attempt, doubling after
	// (at most 4s); default 250ms.
	Backoff time.Duration
	// Client is the HTTP client; nil means a fresh one.
	Client *http.Client
}

// LLMExtractor extracts with a chat model. Its replies must be JSON objects
// of the documented shapes; anything else is retried with the validation
// error fed back, then reported as a failure (and callers keep their
// buffer).
type LLMExtractor struct {
	cfg LLMConfig
	url string
}

var (
	_ Extractor        = (*LLMExtractor)(nil)
	_ BoundaryDetector = (*LLMExtractor)(nil)
)

// LLM returns an extractor that calls cfg's chat endpoint.
func LLM(cfg LLMConfig) *LLMExtractor {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 250 * time.Millisecond
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	return &LLMExtractor{cfg: cfg, url: base + "/chat/completions"}
}

// FromEnv returns the LLM extractor when LOCI_LLM_BASE_URL and
// LOCI_LLM_MODEL are set (LOCI_LLM_API_KEY optional), else Heuristic().
// Setting only one of the two is an error.
func FromEnv() (Extractor, error) {
	base := strings.TrimSpace(os.Getenv("LOCI_LLM_BASE_URL"))
	model := strings.TrimSpace(os.Getenv("LOCI_LLM_MODEL"))
	switch {
	case base == "" && model == "":
		return Heuristic(), nil
	case base == "" || model == "":
		return nil, errors.New("set both LOCI_LLM_BASE_URL and LOCI_LLM_MODEL to use an LLM extractor (or neither for the heuristic one)")
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("LOCI_LLM_BASE_URL %q: want an http(s) URL", base)
	}
	return LLM(LLMConfig{BaseURL: base, Model: model, APIKey: os.Getenv("LOCI_LLM_API_KEY")}), nil
}

// Name is "llm:<model>".
func (l *LLMExtractor) Name() string { return "llm:" + l.cfg.Model }

const systemPrompt = `You turn conversations into long-term memories. Reply with one JSON object and nothing else, exactly in the shape asked for. Write in the third person, with absolute dates (e.g. "On May 28, 2026"), never "today" or "yesterday". Never invent facts that the conversation does not state.`

const episodePrompt = `Extract the memories of %s from the conversation below.
Reply {"episodes":[{"subject":string,"summary":string,"narrative":string,"facts":[string]}],"profile":object}
- one episode per distinct topic (usually one); subject: a one-line title; summary: about 200 characters; narrative: a third-person account with absolute dates.
- facts: single self-contained sentences about %s stated in the conversation.
- profile: stable traits of %s (e.g. "name", "location", "occupation", "preferences": [string]); {} when none.

Conversation:
%s`

const casePrompt = `The conversation below is a run of the agent %s. Distil it into a reusable case.
Reply {"agent_cases":[{"task_intent":string,"approach":string,"quality_score":number,"key_insight":string}]}
- task_intent: one sentence, what the agent was asked to do; approach: how it went about it (tools, steps);
- quality_score in [0,1]: how well the task was accomplished; key_insight: a one-line reusable lesson, "" when none.

Conversation:
%s`

const factsPrompt = `List the durable facts the user states about themselves in the conversation below, in the first person as the user would say them.
Reply {"facts":[{"fact":string,"kind":string,"confidence":number}]}
- kind is one of preference, tooling, project, infra, identity, fiscal, people, constraint, location, health.
- confidence in [0,1]: 0.8-0.9 when stated explicitly, 0.5-0.7 when inferred. Reply {"facts":[]} when there are none.

Conversation:
%s`

const boundaryPrompt = `Here is the open stretch of a conversation, then a new message. Does the new message start a new, unrelated episode (a change of topic or occasion), so the stretch should be closed before it?
Reply {"boundary":true} or {"boundary":false}.

Stretch:
%s

New message:
%s`

// transcript renders messages for a prompt, with absolute times.
func transcript(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		who := m.SenderName
		if who == "" {
			who = m.SenderID
		}
		if who == "" {
			who = m.Role
		}
		ts := ""
		if !m.Timestamp.IsZero() {
			ts = "[" + m.Timestamp.Format("2006-01-02 15:04 MST") + "] "
		}
		fmt.Fprintf(&b, "%s%s (%s): %s\n", ts, who, m.Role, m.Text)
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "    called %s(%s)\n", tc.Name, clip(tc.Arguments, 500))
		}
	}
	return b.String()
}

// Extract implements Extractor.
func (l *LLMExtractor) Extract(ctx context.Context, owner string, agent bool, msgs []Message) (Result, error) {
	res := Result{Episodes: []Episode{}, Cases: []AgentCase{}}
	msgs = nonEmpty(msgs)
	if len(msgs) == 0 {
		return res, nil
	}
	if owner == "" {
		owner = "the user"
	}
	conv := transcript(msgs)
	first := msgs[0].Timestamp
	if agent {
		var out struct {
			Cases []struct {
				TaskIntent   *string  `json:"task_intent"`
				Approach     *string  `json:"approach"`
				QualityScore *float64 `json:"quality_score"`
				KeyInsight   *string  `json:"key_insight"`
			} `json:"agent_cases"`
		}
		err := l.ask(ctx, fmt.Sprintf(casePrompt, owner, conv), &out, func() error {
			if out.Cases == nil {
				return errors.New(`"agent_cases" is missing`)
			}
			for i, c := range out.Cases {
				switch {
				case c.TaskIntent == nil || strings.TrimSpace(*c.TaskIntent) == "":
					return fmt.Errorf("agent_cases[%d].task_intent is missing", i)
				case c.Approach == nil:
					return fmt.Errorf("agent_cases[%d].approach is missing", i)
				case c.QualityScore == nil || !(*c.QualityScore >= 0 && *c.QualityScore <= 1):
					return fmt.Errorf("agent_cases[%d].quality_score must be a number in [0,1]", i)
				}
			}
			return nil
		})
		if err != nil {
			return Result{}, err
		}
		for _, c := range out.Cases {
			ki := ""
			if c.KeyInsight != nil {
				ki = strings.TrimSpace(*c.KeyInsight)
			}
			res.Cases = append(res.Cases, AgentCase{TaskIntent: strings.TrimSpace(*c.TaskIntent),
				Approach: strings.TrimSpace(*c.Approach), QualityScore: *c.QualityScore, KeyInsight: ki, Timestamp: first})
		}
		return res, nil
	}
	var out struct {
		Episodes []struct {
			Subject   string   `json:"subject"`
			Summary   string   `json:"summary"`
			Narrative string   `json:"narrative"`
			Facts     []string `json:"facts"`
		} `json:"episodes"`
		Profile map[string]any `json:"profile"`
	}
	err := l.ask(ctx, fmt.Sprintf(episodePrompt, owner, owner, owner, conv), &out, func() error {
		if out.Episodes == nil {
			return errors.New(`"episodes" is missing`)
		}
		for i, e := range out.Episodes {
			if strings.TrimSpace(e.Subject) == "" || strings.TrimSpace(e.Narrative) == "" || strings.TrimSpace(e.Summary) == "" {
				return fmt.Errorf("episodes[%d] needs a non-empty subject, summary and narrative", i)
			}
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	senders := []string{}
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.SenderID != "" && !seen[m.SenderID] {
			seen[m.SenderID] = true
			senders = append(senders, m.SenderID)
		}
	}
	for _, e := range out.Episodes {
		facts := []string{}
		for _, f := range e.Facts {
			if f = strings.TrimSpace(f); f != "" {
				facts = append(facts, f)
			}
		}
		res.Episodes = append(res.Episodes, Episode{Subject: clip(e.Subject, 200), Summary: clip(e.Summary, 300),
			Narrative: strings.TrimSpace(e.Narrative), Timestamp: first, SenderIDs: senders, Facts: facts})
	}
	if len(out.Profile) > 0 {
		res.Profile = out.Profile
	}
	return res, nil
}

// Kinds are seed 004's ten fact kinds.
var Kinds = []string{"preference", "tooling", "project", "infra", "identity", "fiscal", "people", "constraint", "location", "health"}

// ValidKind reports whether k is one of Kinds.
func ValidKind(k string) bool {
	for _, v := range Kinds {
		if v == k {
			return true
		}
	}
	return false
}

// Facts implements Extractor.
func (l *LLMExtractor) Facts(ctx context.Context, msgs []Message) ([]Fact, error) {
	msgs = nonEmpty(msgs)
	if len(msgs) == 0 {
		return []Fact{}, nil
	}
	var out struct {
		Facts []Fact `json:"facts"`
	}
	err := l.ask(ctx, fmt.Sprintf(factsPrompt, transcript(msgs)), &out, func() error {
		if out.Facts == nil {
			return errors.New(`"facts" is missing`)
		}
		for i, f := range out.Facts {
			switch {
			case strings.TrimSpace(f.Text) == "":
				return fmt.Errorf("facts[%d].fact is empty", i)
			case !ValidKind(f.Kind):
				return fmt.Errorf("facts[%d].kind %q is not one of %s", i, f.Kind, strings.Join(Kinds, ", "))
			case !(f.Confidence >= 0 && f.Confidence <= 1):
				return fmt.Errorf("facts[%d].confidence must be in [0,1]", i)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range out.Facts {
		out.Facts[i].Text = strings.TrimSpace(out.Facts[i].Text)
		if out.Facts[i].Confidence == 0 {
			out.Facts[i].Confidence = 0.6
		}
	}
	return out.Facts, nil
}

// Boundary implements BoundaryDetector.
func (l *LLMExtractor) Boundary(ctx context.Context, buffered []Message, next Message) (bool, error) {
	if n := len(buffered); n > 0 {
		last := buffered[n-1].Timestamp
		if !last.IsZero() && next.Timestamp.After(last) && !sameDay(last, next.Timestamp) {
			return true, nil // a new calendar day always starts a stretch
		}
	}
	var out struct {
		Boundary *bool `json:"boundary"`
	}
	err := l.ask(ctx, fmt.Sprintf(boundaryPrompt, transcript(buffered), transcript([]Message{next})), &out, func() error {
		if out.Boundary == nil {
			return errors.New(`"boundary" is missing`)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	return *out.Boundary, nil
}

func sameDay(a, b time.Time) bool {
	b = b.In(a.Location())
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ask sends prompt, decodes the reply into out and checks it with valid,
// retrying with the error fed back. out is reset by each decode.
func (l *LLMExtractor) ask(ctx context.Context, prompt string, out any, valid func() error) error {
	conv := []chatMessage{{Role: "system", Content: systemPrompt}, {Role: "user", Content: prompt}}
	var lastErr error
	for attempt := 0; attempt < l.cfg.Attempts; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(math.Min(float64(l.cfg.Backoff)*math.Pow(2, float64(attempt-1)), float64(4*time.Second)))):
			}
		}
		reply, retry, err := l.complete(ctx, conv)
		if err != nil {
			lastErr = err
			if !retry || ctx.Err() != nil {
				return err
			}
			continue
		}
		reflect.ValueOf(out).Elem().SetZero()
		err = decodeReply(reply, out)
		if err == nil {
			err = valid()
		}
		if err == nil {
			return nil
		}
		lastErr = fmt.Errorf("model reply is not valid: %w", err)
		conv = append(conv[:2:2], chatMessage{Role: "assistant", Content: clip(reply, 4000)},
			chatMessage{Role: "user", Content: "That reply was not valid (" + err.Error() + "). Reply again with only the JSON object in the requested shape."})
	}
	return fmt.Errorf("%s after %d attempts: %w", l.Name(), l.cfg.Attempts, lastErr)
}

// decodeReply parses a JSON object out of a model reply, tolerating a
// Markdown code fence around it.
func decodeReply(reply string, out any) error {
	s := strings.TrimSpace(reply)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i > 0 && j > i {
		s = s[i : j+1]
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("not a JSON object of the requested shape: %v", err)
	}
	if dec.More() {
		return errors.New("text after the JSON object")
	}
	return nil
}

// complete makes one chat completion call. retry says whether a failure
// is worth another attempt (network, 429, 5xx).
func (l *LLMExtractor) complete(ctx context.Context, conv []chatMessage) (string, bool, error) {
	body, _ := json.Marshal(map[string]any{
		"model":           l.cfg.Model,
		"messages":        conv,
		"temperature":     0,
		"response_format": map[string]string{"type": "json_object"},
	})
	actx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, l.url, bytes.NewReader(body))
	if err != nil {
		return "", false, err
	}
	req.Header.Set("Content-Type", "application/json")
	if l.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+l.cfg.APIKey)
	}
	resp, err := l.cfg.Client.Do(req)
	if err != nil {
		return "", true, fmt.Errorf("chat completion: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return "", true, fmt.Errorf("chat completion: read reply: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := redact.String(clip(string(raw), 300))
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return "", retry, fmt.Errorf("chat completion: HTTP %d: %s", resp.StatusCode, msg)
	}
	var cr struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &cr); err != nil || len(cr.Choices) == 0 {
		return "", true, errors.New("chat completion: reply has no choices")
	}
	return cr.Choices[0].Message.Content, false, nil
}
