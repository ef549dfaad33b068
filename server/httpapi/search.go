package httpapi

import (
	"context"
	"errors"
	"sort"
	"strconv"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/session"
)

var searchMethods = []string{"keyword", "vector", "hybrid", "agentic"}

// searchData is /search's payload: all five arrays, always present.
type searchData struct {
	Episodes    []searchEpisodeItem    `json:"episodes"`
	Profiles    []searchProfileItem    `json:"profiles"`
	AgentCases  []searchAgentCaseItem  `json:"agent_cases"`
	AgentSkills []searchAgentSkillItem `json:"agent_skills"`
	Unprocessed []unprocessedItem      `json:"unprocessed_messages"`
}

type searchRequest struct {
	userID, agentID string
	scope           scope
	query           string
	method          string
	topK            int
	radius          *float64
	includeProfile  bool
	llmRerank       bool
	filters         map[string]any
}

// parseOwnerScope reads user_id, agent_id, app_id and project_id, shared
// by /search and /get.
func parseOwnerScope(o object) (string, string, scope) {
	user := o.owner("user_id")
	agent := o.owner("agent_id")
	app := o.scopeID("app_id")
	project := o.scopeID("project_id")
	return user, agent, scope{App: app, Project: project}
}

// parseFilters reads filters: null or an object whose AND / OR keys hold
// lists of objects (the shape check; field rules come at compile time).
func parseFilters(o object) map[string]any {
	f, present := o.dict("filters")
	if !present || !o.v.ok() {
		return nil
	}
	var check func(node map[string]any, loc []string)
	check = func(node map[string]any, loc []string) {
		for _, k := range []string{"AND", "OR"} {
			val, ok := node[k]
			if !ok {
				continue
			}
			list, isList := val.([]any)
			if !isList {
				o.v.fail(at(loc, k), "Input should be a valid list")
				return
			}
			for i, item := range list {
				m, isMap := item.(map[string]any)
				if !isMap {
					o.v.fail(at(loc, k, strconv.Itoa(i)), "Input should be a valid dictionary")
					return
				}
				if len(loc) < maxFilterDepth+2 {
					check(m, at(loc, k, strconv.Itoa(i)))
				}
			}
		}
	}
	check(f, at(o.loc, "filters"))
	return f
}

func (a *API) parseSearch(body map[string]any) (searchRequest, error) {
	v := &validator{}
	o := object{v: v, m: body}
	var r searchRequest
	r.userID, r.agentID, r.scope = parseOwnerScope(o)
	var present bool
	if r.query, present = o.str("query", true, false); present {
		o.lengthBetween("query", r.query, 1, 0)
	}
	r.method = "hybrid"
	if m, ok := o.literal("method", false, searchMethods...); ok {
		r.method = m
	}
	r.topK = -1
	if k, ok := o.integer("top_k", false); ok {
		if k != -1 && (k < 1 || k > 100) {
			v.fail([]string{"top_k"}, "Value error, top_k must be -1 or between 1 and 100")
		}
		r.topK = int(k)
	}
	if f, ok := o.number("radius"); ok {
		switch {
		case f < 0:
			v.fail([]string{"radius"}, "Input should be greater than or equal to 0")
		case f > 1:
			v.fail([]string{"radius"}, "Input should be less than or equal to 1")
		}
		r.radius = &f
	}
	r.includeProfile, _ = o.boolean("include_profile")
	r.llmRerank, _ = o.boolean("enable_llm_rerank")
	r.filters = parseFilters(o)
	if v.ok() && (r.userID == "") == (r.agentID == "") {
		v.modelFail("exactly one of user_id / agent_id must be provided")
	}
	if !v.ok() {
		return r, v.err
	}
	return r, nil
}

// search is POST /api/v1/memory/search.
func (a *API) search(ctx context.Context, body map[string]any) (any, error) {
	req, err := a.parseSearch(body)
	if err != nil {
		return nil, err
	}
	where, err := compileFilter(req.filters, a.loc)
	if err != nil {
		return nil, err
	}
	data := &searchData{
		Episodes: []searchEpisodeItem{}, Profiles: []searchProfileItem{},
		AgentCases: []searchAgentCaseItem{}, AgentSkills: []searchAgentSkillItem{},
		Unprocessed: []unprocessedItem{},
	}
	p, err := a.openScope(ctx, req.scope, false)
	if err != nil || p == nil {
		return data, err
	}
	k, radius := req.topK, req.radius
	if k == -1 {
		k = a.cfg.DefaultTopK
		if radius == nil {
			r := a.cfg.DefaultRadius
			radius = &r
		}
	}
	if req.userID != "" {
		f := palace.Filter{Kinds: []string{palace.KindEpisode, palace.KindAtomicFact}, UserID: req.userID, Where: where}
		hits, err := a.rank(ctx, p, req, f, k*3, radius)
		if err != nil {
			return nil, err
		}
		eps, err := a.groupEpisodes(ctx, p, req, hits, k)
		if err != nil {
			return nil, err
		}
		data.Episodes = eps
		if req.includeProfile {
			prof, err := p.Get(ctx, palace.ProfileID(req.userID))
			switch {
			case err == nil && prof.Status == palace.StatusActive && prof.Kind == palace.KindProfile:
				data.Profiles = []searchProfileItem{{profileItem: a.profileOf(prof, req.scope)}}
			case err != nil && !errors.Is(err, palace.ErrNotFound):
				return nil, err
			}
		}
	} else {
		cases, err := a.rank(ctx, p, req, palace.Filter{Kinds: []string{palace.KindAgentCase}, AgentID: req.agentID, Where: where}, k, radius)
		if err != nil {
			return nil, err
		}
		skills, err := a.rank(ctx, p, req, palace.Filter{Kinds: []string{palace.KindAgentSkill}, AgentID: req.agentID, Where: where}, k, radius)
		if err != nil {
			return nil, err
		}
		if req.llmRerank && req.method == "hybrid" && a.cfg.LLM != nil {
			cases = a.llmRerank(ctx, req.query, cases)
			skills = a.llmRerank(ctx, req.query, skills)
		}
		ci := make([]searchAgentCaseItem, 0, min(k, len(cases)))
		for _, h := range cases[:min(k, len(cases))] {
			ci = append(ci, searchAgentCaseItem{agentCaseItem: a.caseOf(h.Drawer, req.scope), Score: h.Score})
		}
		si := make([]searchAgentSkillItem, 0, min(k, len(skills)))
		for _, h := range skills[:min(k, len(skills))] {
			si = append(si, searchAgentSkillItem{agentSkillItem: a.skillOf(h.Drawer, req.scope), Score: h.Score})
		}
		data.AgentCases, data.AgentSkills = ci, si
	}
	if sessionID, ok := topLevelSession(req.filters); ok {
		msgs, err := session.Of(p).Messages(ctx, sessionID)
		if err != nil && !errors.Is(err, palace.ErrInvalid) {
			return nil, err
		}
		items := make([]unprocessedItem, 0, len(msgs))
		for _, m := range msgs {
			items = append(items, a.unprocessedOf(m, sessionID, req.scope))
		}
		data.Unprocessed = items
	}
	return data, nil
}

// rank runs the request's method over the filtered drawers and applies
// the radius: a hit whose cosine similarity to the query is below it is
// dropped (a hit the vector ranker did not reach counts as 0). keyword
// search has no cosine, so radius does not apply to it.
func (a *API) rank(ctx context.Context, p *palace.Palace, req searchRequest, f palace.Filter, k int, radius *float64) ([]palace.Hit, error) {
	var hits []palace.Hit
	var err error
	switch req.method {
	case "agentic":
		hits, err = a.agentic(ctx, p, req.query, f, k)
	default:
		hits, err = p.Search(ctx, palace.SearchRequest{Query: req.query, K: k, Mode: palace.Mode(req.method), Filter: f})
	}
	if err != nil {
		return nil, err
	}
	if radius != nil && *radius > 0 && req.method != "keyword" {
		kept := hits[:0]
		for _, h := range hits {
			if h.Cosine >= *radius {
				kept = append(kept, h)
			}
		}
		hits = kept
	}
	return hits, nil
}

// groupEpisodes nests atomic-fact hits under their episodes. An episode
// scores the best of its own score and its facts'; an episode reached only
// through its facts is loaded and included.
func (a *API) groupEpisodes(ctx context.Context, p *palace.Palace, req searchRequest, hits []palace.Hit, k int) ([]searchEpisodeItem, error) {
	type agg struct {
		d     *palace.Drawer
		score float64
		facts []atomicFactItem
	}
	byID := map[string]*agg{}
	var order []string
	get := func(id string) *agg {
		g := byID[id]
		if g == nil {
			g = &agg{}
			byID[id] = g
			order = append(order, id)
		}
		return g
	}
	for _, h := range hits {
		switch h.Drawer.Kind {
		case palace.KindEpisode:
			g := get(h.Drawer.ID)
			g.d = h.Drawer
			g.score = max(g.score, h.Score)
		case palace.KindAtomicFact:
			if h.Drawer.ParentID == "" {
				continue
			}
			g := get(h.Drawer.ParentID)
			g.score = max(g.score, h.Score)
			g.facts = append(g.facts, atomicFactItem{ID: h.Drawer.ID, Content: h.Drawer.Content, Score: h.Score})
		}
	}
	out := make([]searchEpisodeItem, 0, len(order))
	for _, id := range order {
		g := byID[id]
		if g.d == nil {
			d, err := p.Get(ctx, id)
			if errors.Is(err, palace.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if d.Kind != palace.KindEpisode || d.Status != palace.StatusActive || d.UserID != req.userID {
				continue
			}
			g.d = d
		}
		sort.SliceStable(g.facts, func(i, j int) bool { return g.facts[i].Score > g.facts[j].Score })
		facts := g.facts
		if facts == nil {
			facts = []atomicFactItem{}
		}
		out = append(out, searchEpisodeItem{episodeItem: a.episodeOf(g.d, req.scope), Score: g.score, AtomicFacts: facts})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}
