package httpapi

import (
	"encoding/json"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/session"
)

// The response items of seed 001. Search items add score (and episodes
// their matching atomic facts) to the get items.

type episodeItem struct {
	ID        string   `json:"id"`
	UserID    *string  `json:"user_id"`
	AppID     string   `json:"app_id"`
	ProjectID string   `json:"project_id"`
	SessionID string   `json:"session_id"`
	Timestamp string   `json:"timestamp"`
	SenderIDs []string `json:"sender_ids"`
	Summary   string   `json:"summary"`
	Subject   string   `json:"subject"`
	Episode   string   `json:"episode"`
	Type      string   `json:"type"`
}

type searchEpisodeItem struct {
	episodeItem
	Score       float64          `json:"score"`
	AtomicFacts []atomicFactItem `json:"atomic_facts"`
}

type atomicFactItem struct {
	ID      string  `json:"id"`
	Content string  `json:"content"`
	Score   float64 `json:"score"`
}

type profileItem struct {
	ID          string         `json:"id"`
	UserID      *string        `json:"user_id"`
	AppID       string         `json:"app_id"`
	ProjectID   string         `json:"project_id"`
	ProfileData map[string]any `json:"profile_data"`
}

type searchProfileItem struct {
	profileItem
	Score *float64 `json:"score"`
}

type agentCaseItem struct {
	ID           string  `json:"id"`
	AgentID      string  `json:"agent_id"`
	AppID        string  `json:"app_id"`
	ProjectID    string  `json:"project_id"`
	SessionID    string  `json:"session_id"`
	TaskIntent   string  `json:"task_intent"`
	Approach     string  `json:"approach"`
	QualityScore float64 `json:"quality_score"`
	KeyInsight   *string `json:"key_insight"`
	Timestamp    string  `json:"timestamp"`
}

type searchAgentCaseItem struct {
	agentCaseItem
	Score float64 `json:"score"`
}

type agentSkillItem struct {
	ID            string   `json:"id"`
	AgentID       string   `json:"agent_id"`
	AppID         string   `json:"app_id"`
	ProjectID     string   `json:"project_id"`
	Name          string   `json:"name"`
	Description   string   `json:"description"`
	Content       string   `json:"content"`
	Confidence    float64  `json:"confidence"`
	MaturityScore float64  `json:"maturity_score"`
	SourceCaseIDs []string `json:"source_case_ids"`
}

type searchAgentSkillItem struct {
	agentSkillItem
	Score float64 `json:"score"`
}

type unprocessedItem struct {
	ID         string  `json:"id"`
	AppID      string  `json:"app_id"`
	ProjectID  string  `json:"project_id"`
	SessionID  string  `json:"session_id"`
	SenderID   string  `json:"sender_id"`
	SenderName *string `json:"sender_name"`
	Role       string  `json:"role"`
	Content    any     `json:"content"`
	Timestamp  string  `json:"timestamp"`
	ToolCalls  any     `json:"tool_calls"`
	ToolCallID *string `json:"tool_call_id"`
}

func metaString(d *palace.Drawer, key string) string {
	s, _ := d.Meta[key].(string)
	return s
}

func metaFloat(d *palace.Drawer, key string, def float64) float64 {
	switch x := d.Meta[key].(type) {
	case float64:
		return x
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
	}
	return def
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (a *API) episodeOf(d *palace.Drawer, sc scope) episodeItem {
	return episodeItem{
		ID: d.ID, UserID: strPtr(d.UserID), AppID: sc.App, ProjectID: sc.Project,
		SessionID: d.SessionID, Timestamp: formatTime(d.Timestamp, a.loc), SenderIDs: nonNil(d.SenderIDs),
		Summary: metaString(d, "summary"), Subject: metaString(d, "subject"), Episode: d.Content, Type: session.EpisodeType,
	}
}

func (a *API) profileOf(d *palace.Drawer, sc scope) profileItem {
	data, _ := d.Meta["profile_data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	return profileItem{ID: d.ID, UserID: strPtr(d.UserID), AppID: sc.App, ProjectID: sc.Project, ProfileData: data}
}

func (a *API) caseOf(d *palace.Drawer, sc scope) agentCaseItem {
	return agentCaseItem{
		ID: d.ID, AgentID: d.AgentID, AppID: sc.App, ProjectID: sc.Project, SessionID: d.SessionID,
		TaskIntent: metaString(d, "task_intent"), Approach: metaString(d, "approach"),
		QualityScore: metaFloat(d, "quality_score", 0), KeyInsight: strPtr(metaString(d, "key_insight")),
		Timestamp: formatTime(d.Timestamp, a.loc),
	}
}

// skillOf reads an agent_skill drawer written by the dreamer (meta: name,
// description, content, confidence, maturity_score, source_case_ids).
func (a *API) skillOf(d *palace.Drawer, sc scope) agentSkillItem {
	content := metaString(d, "content")
	if content == "" {
		content = d.Content
	}
	ids := []string{}
	switch l := d.Meta["source_case_ids"].(type) {
	case []any:
		for _, v := range l {
			if s, ok := v.(string); ok {
				ids = append(ids, s)
			}
		}
	case []string:
		ids = append(ids, l...)
	}
	return agentSkillItem{
		ID: d.ID, AgentID: d.AgentID, AppID: sc.App, ProjectID: sc.Project,
		Name: metaString(d, "name"), Description: metaString(d, "description"), Content: content,
		Confidence: metaFloat(d, "confidence", d.Confidence), MaturityScore: metaFloat(d, "maturity_score", 0),
		SourceCaseIDs: ids,
	}
}

func (a *API) unprocessedOf(m extract.Message, session string, sc scope) unprocessedItem {
	var content any = m.Text
	if len(m.Content) > 0 {
		content = json.RawMessage(m.Content)
	}
	var calls any
	if len(m.ToolCalls) > 0 {
		l := make([]any, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			l[i] = map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}}
		}
		calls = l
	}
	return unprocessedItem{
		ID: m.ID, AppID: sc.App, ProjectID: sc.Project, SessionID: session, SenderID: m.SenderID,
		SenderName: strPtr(m.SenderName), Role: m.Role, Content: content,
		Timestamp: formatTime(m.Timestamp, a.loc), ToolCalls: calls, ToolCallID: strPtr(m.ToolCallID),
	}
}
