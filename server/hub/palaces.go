package hub

import (
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace"
)

// PalaceCard is one palace as the page's card shows it.
type PalaceCard struct {
	Name         string           `json:"name"`
	Description  string           `json:"description"`
	Memories     int64            `json:"memories"` // active drawers
	Pending      int64            `json:"pending"`  // facts awaiting review
	ByKind       map[string]int64 `json:"by_kind"`
	Rooms        map[string]int64 `json:"rooms"`
	Triples      int64            `json:"triples"`
	CreatedAt    time.Time        `json:"created_at,omitzero"`
	LastActivity time.Time        `json:"last_activity,omitzero"` // newest memory's event time
}

// palaceCards answers GET /hub/api/palaces: one card per palace, by name.
func (h *Hub) palaceCards(w http.ResponseWriter, r *http.Request) {
	ps, err := h.palaces(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	cards := make([]PalaceCard, 0, len(ps))
	for _, p := range ps {
		in, err := p.Info(ctx)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		c := PalaceCard{Name: p.Name(), Description: in.Description, Memories: in.DrawerCount,
			ByKind: in.ByKind, Rooms: in.Rooms, Triples: in.Triples, CreatedAt: in.CreatedAt}
		if c.Pending, err = pendingCount(ctx, p); err != nil {
			h.fail(w, r, err)
			return
		}
		newest, err := p.Recent(ctx, palace.Filter{}, 1)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if len(newest) > 0 {
			c.LastActivity = newest[0].Timestamp
		}
		cards = append(cards, c)
	}
	writeJSON(w, http.StatusOK, map[string]any{"palaces": cards})
}

// Page is one page of a palace's timeline.
type Page struct {
	Palace     string       `json:"palace"`
	Drawers    []drawerJSON `json:"drawers"`
	Total      int          `json:"total"`
	Offset     int          `json:"offset"`
	NextOffset int          `json:"next_offset"`
	Remaining  int          `json:"remaining"`
	HasMore    bool         `json:"has_more"`
}

// timeline answers GET /hub/api/palaces/{palace}/drawers?offset=&limit=:
// the palace's active memories, newest event first, a page at a time. The
// page groups them by local date itself.
//
// Paging is by offset. A memory written while someone pages shifts later
// pages by one, so a page may repeat the previous page's last memory; the
// page drops repeats by id.
func (h *Hub) timeline(w http.ResponseWriter, r *http.Request) {
	p, err := h.openPalace(r, r.PathValue("palace"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	offset, err := intParam(r, "offset", 0, 0, 1<<30)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	limit, err := intParam(r, "limit", 20, 1, 200)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f := palace.Filter{Room: r.URL.Query().Get("room")}
	if k := r.URL.Query().Get("kind"); k != "" {
		f.Kinds = []string{k}
	}
	ds, total, err := p.List(r.Context(), palace.ListOptions{Filter: f, Order: "newest", Limit: limit, Offset: offset})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	pg := Page{Palace: p.Name(), Drawers: make([]drawerJSON, len(ds)), Total: total, Offset: offset,
		NextOffset: offset + len(ds)}
	for i, d := range ds {
		pg.Drawers[i] = toDrawerJSON(p.Name(), d)
	}
	pg.Remaining = max(total-pg.NextOffset, 0)
	pg.HasMore = pg.Remaining > 0
	writeJSON(w, http.StatusOK, pg)
}

// drawerDetail answers GET /hub/api/palaces/{palace}/drawers/{id}: the
// whole drawer, whatever its status.
func (h *Hub) drawerDetail(w http.ResponseWriter, r *http.Request) {
	p, err := h.openPalace(r, r.PathValue("palace"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := p.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"palace": p.Name(), "drawer": d})
}

// forget answers DELETE /hub/api/palaces/{palace}/drawers/{id}: the drawer
// leaves recall (marked deleted; its row stays), and the answer carries an
// undo token for POST /hub/api/palaces/{palace}/undo.
func (h *Hub) forget(w http.ResponseWriter, r *http.Request) {
	p, err := h.openPalace(r, r.PathValue("palace"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d, token, err := p.Forget(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info().Str("palace", p.Name()).Str("id", d.ID).Msg("hub: drawer forgotten")
	writeJSON(w, http.StatusOK, map[string]any{"palace": p.Name(), "forgotten": d.ID,
		"drawer": toDrawerJSON(p.Name(), d), "undo": token})
}

// drawerJSON is a drawer as the page shows it in lists: its own fields plus
// the palace it lives in, with long text cut.
type drawerJSON struct {
	ID         string         `json:"id"`
	Palace     string         `json:"palace"`
	Kind       string         `json:"kind"`
	Room       string         `json:"room"`
	Status     string         `json:"status"`
	Content    string         `json:"content"`
	Truncated  bool           `json:"truncated,omitempty"`
	Tags       []string       `json:"tags"`
	Importance float64        `json:"importance"`
	Confidence float64        `json:"confidence"`
	SessionID  string         `json:"session_id,omitempty"`
	Timestamp  time.Time      `json:"timestamp"`
	CreatedAt  time.Time      `json:"created_at"`
	UpdatedAt  time.Time      `json:"updated_at"`
	Meta       map[string]any `json:"meta,omitempty"`
}

// listTextRunes is how much of a drawer's text a list shows; the detail
// view has all of it.
const listTextRunes = 600

func toDrawerJSON(palaceName string, d *palace.Drawer) drawerJSON {
	text, cut := d.Content, false
	if utf8.RuneCountInString(text) > listTextRunes {
		text, cut = string([]rune(text)[:listTextRunes])+"…", true
	}
	return drawerJSON{ID: d.ID, Palace: palaceName, Kind: d.Kind, Room: d.Room, Status: d.Status,
		Content: text, Truncated: cut, Tags: d.Tags, Importance: d.Importance, Confidence: d.Confidence,
		SessionID: d.SessionID, Timestamp: d.Timestamp, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, Meta: d.Meta}
}
