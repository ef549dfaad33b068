package hub

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

// ReviewItem is one fact in the review queue.
type ReviewItem struct {
	Palace string     `json:"palace"`
	Fact   facts.Fact `json:"fact"`
}

// pendingCount is how many facts of p wait for review.
func pendingCount(ctx context.Context, p *palace.Palace) (int64, error) {
	return p.Count(ctx, palace.Filter{Kinds: []string{palace.KindFact}, Statuses: []string{palace.StatusPending}})
}

// reviewQueue answers GET /hub/api/review[?palace=][&limit=]: pending
// facts, oldest first, across palaces.
func (h *Hub) reviewQueue(w http.ResponseWriter, r *http.Request) {
	limit, err := intParam(r, "limit", 100, 1, 1000)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ps, err := h.palaces(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	items := []ReviewItem{}
	total := 0
	for _, p := range ps {
		facts, n, err := facts.Of(p).List(r.Context(), facts.Query{Limit: limit})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		total += n
		for _, f := range facts {
			items = append(items, ReviewItem{Palace: p.Name(), Fact: f})
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Fact.CreatedAt.Before(items[j].Fact.CreatedAt) })
	if len(items) > limit {
		items = items[:limit]
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items, "total": total})
}

// reviewAction answers POST /hub/api/palaces/{palace}/review/{id}/{action}
// with action approve or reject, through the palace's review functions
// (which own the queue's state machine). A reject answers with an undo
// token; an approval has none.
func (h *Hub) reviewAction(w http.ResponseWriter, r *http.Request) {
	p, err := h.openPalace(r, r.PathValue("palace"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	id, action := r.PathValue("id"), r.PathValue("action")
	var res facts.ReviewResult
	switch action {
	case facts.ActionApprove:
		res, err = facts.Of(p).Approve(r.Context(), id)
	case facts.ActionReject:
		res, err = facts.Of(p).Reject(r.Context(), id)
	default:
		err = &apiError{status: http.StatusNotFound, code: "not_found", msg: "unknown review action " + action + "; use approve or reject"}
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info().Str("palace", p.Name()).Str("fact", res.Fact.ID).Str("action", action).Msg("hub: review")
	writeJSON(w, http.StatusOK, map[string]any{"palace": p.Name(), "fact": res.Fact,
		"superseded": res.Superseded, "reconfirmed": res.Reconfirmed, "undo": res.UndoToken})
}

// undo answers POST /hub/api/palaces/{palace}/undo with body
// {"token": "..."}: palace.Undo reverts the reject or forget that handed the
// token out.
func (h *Hub) undo(w http.ResponseWriter, r *http.Request) {
	p, err := h.openPalace(r, r.PathValue("palace"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var body struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&body); err != nil || body.Token == "" {
		h.fail(w, r, badRequest(`body must be {"token": "<undo token>"}`))
		return
	}
	res, d, err := facts.Of(p).Undo(r.Context(), body.Token)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := map[string]any{"palace": p.Name(), "drawer": toDrawerJSON(p.Name(), d)}
	if d.Kind == palace.KindFact {
		out["fact"] = res.Fact
	}
	writeJSON(w, http.StatusOK, out)
}
