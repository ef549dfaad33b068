package httpapi

import (
	"context"

	"github.com/loci-mem/loci/palace"
)

var memoryTypes = []string{"episode", "profile", "agent_case", "agent_skill"}

// getData is /get's payload: the four arrays (one populated) and counts.
type getData struct {
	Episodes    []episodeItem    `json:"episodes"`
	Profiles    []profileItem    `json:"profiles"`
	AgentCases  []agentCaseItem  `json:"agent_cases"`
	AgentSkills []agentSkillItem `json:"agent_skills"`
	TotalCount  int              `json:"total_count"`
	Count       int              `json:"count"`
}

type getRequest struct {
	userID, agentID string
	scope           scope
	memoryType      string
	page, pageSize  int
	sortBy          string
	sortOrder       string
	filters         map[string]any
}

// maxPage keeps page*page_size far from overflow; no palace holds more.
const maxPage = 100_000_000

func (a *API) parseGet(body map[string]any) (getRequest, error) {
	v := &validator{}
	o := object{v: v, m: body}
	var r getRequest
	r.userID, r.agentID, r.scope = parseOwnerScope(o)
	r.memoryType, _ = o.literal("memory_type", true, memoryTypes...)
	r.page, r.pageSize = 1, 20
	if n, ok := o.integer("page", false); ok {
		if n < 1 {
			v.fail([]string{"page"}, "Input should be greater than or equal to 1")
		} else if n > maxPage {
			v.fail([]string{"page"}, "Input should be less than or equal to %d", maxPage)
		}
		r.page = int(n)
	}
	if n, ok := o.integer("page_size", false); ok {
		if n < 1 {
			v.fail([]string{"page_size"}, "Input should be greater than or equal to 1")
		} else if n > 100 {
			v.fail([]string{"page_size"}, "Input should be less than or equal to 100")
		}
		r.pageSize = int(n)
	}
	r.sortBy = "timestamp"
	if s, ok := o.literal("sort_by", false, "timestamp", "updated_at"); ok {
		r.sortBy = s
	}
	r.sortOrder = "desc"
	if s, ok := o.literal("sort_order", false, "asc", "desc"); ok {
		r.sortOrder = s
	}
	r.filters = parseFilters(o)
	if v.ok() {
		switch {
		case (r.userID == "") == (r.agentID == ""):
			v.modelFail("exactly one of user_id / agent_id must be provided")
		case (r.memoryType == "episode" || r.memoryType == "profile") && r.userID == "":
			v.modelFail("memory_type '%s' requires user_id", r.memoryType)
		case (r.memoryType == "agent_case" || r.memoryType == "agent_skill") && r.agentID == "":
			v.modelFail("memory_type '%s' requires agent_id", r.memoryType)
		}
	}
	if !v.ok() {
		return r, v.err
	}
	return r, nil
}

// get is POST /api/v1/memory/get.
func (a *API) get(ctx context.Context, body map[string]any) (any, error) {
	req, err := a.parseGet(body)
	if err != nil {
		return nil, err
	}
	where, err := compileFilter(req.filters, a.loc)
	if err != nil {
		return nil, err
	}
	data := &getData{
		Episodes: []episodeItem{}, Profiles: []profileItem{},
		AgentCases: []agentCaseItem{}, AgentSkills: []agentSkillItem{},
	}
	p, err := a.openScope(ctx, req.scope, false)
	if err != nil || p == nil {
		return data, err
	}
	f := palace.Filter{Kinds: []string{req.memoryType}, UserID: req.userID, AgentID: req.agentID, Where: where}
	sortBy := req.sortBy
	if req.memoryType == "profile" || req.memoryType == "agent_skill" {
		sortBy = "updated_at" // no meaningful event time: seed 001 falls back
	}
	order := map[[2]string]string{
		{"timestamp", "desc"}: "newest", {"timestamp", "asc"}: "oldest",
		{"updated_at", "desc"}: "updated", {"updated_at", "asc"}: "updated_oldest",
	}[[2]string{sortBy, req.sortOrder}]
	ds, total, err := p.List(ctx, palace.ListOptions{Filter: f, Order: order, Limit: req.pageSize,
		Offset: (req.page - 1) * req.pageSize})
	if err != nil {
		return nil, err
	}
	switch req.memoryType {
	case "episode":
		items := make([]episodeItem, len(ds))
		for i, d := range ds {
			items[i] = a.episodeOf(d, req.scope)
		}
		data.Episodes = items
	case "profile":
		items := make([]profileItem, len(ds))
		for i, d := range ds {
			items[i] = a.profileOf(d, req.scope)
		}
		data.Profiles = items
	case "agent_case":
		items := make([]agentCaseItem, len(ds))
		for i, d := range ds {
			items[i] = a.caseOf(d, req.scope)
		}
		data.AgentCases = items
	case "agent_skill":
		items := make([]agentSkillItem, len(ds))
		for i, d := range ds {
			items[i] = a.skillOf(d, req.scope)
		}
		data.AgentSkills = items
	}
	data.TotalCount, data.Count = total, len(ds)
	return data, nil
}
