package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/redact"
)

// GET /events streams the palaces' change logs as server-sent events, for
// the dashboard. It polls each palace's events table by seq, so changes
// made by other processes (a hook, the CLI, another loci serve) appear
// too.
//
// Query: palace=NAME (repeatable; default every palace on disk), and
// since=SEQ (single palace only; default: only new events). Each SSE
// event's id is the set of cursors "name=seq,name=seq", so a client that
// reconnects with Last-Event-ID resumes where it stopped.
//
// Event names: the change-log type, refined where the change means more:
// drawer.forgotten (status to deleted), fact.staged (a fact drawer added
// as pending), fact.promoted (pending to active), plus drawer.added,
// drawer.updated, drawer.status, kg.asserted, dream.finished,
// session.extracted and whatever other faces log. Data: {"palace", "seq",
// "at", "type", "drawer_id", "detail"}. A comment line every 15 seconds
// keeps idle connections open.

const (
	eventBatch     = 500
	eventKeepalive = 15 * time.Second
	maxEventPalace = 256
)

type eventJSON struct {
	Palace   string         `json:"palace"`
	Seq      int64          `json:"seq"`
	At       string         `json:"at"`
	Type     string         `json:"type"`
	DrawerID string         `json:"drawer_id,omitempty"`
	Detail   map[string]any `json:"detail"`
}

func (a *API) events(w http.ResponseWriter, r *http.Request) {
	names := r.URL.Query()["palace"]
	all := len(names) == 0
	for _, n := range names {
		if err := palace.ValidateName(n); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := palace.Allow(r.Context(), n, palace.AccessRead); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
	}
	cursors := parseCursors(r.Header.Get("Last-Event-ID"))
	if s := r.URL.Query().Get("since"); s != "" {
		if len(names) != 1 {
			http.Error(w, "since needs exactly one palace=NAME", http.StatusBadRequest)
			return
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			http.Error(w, "since must be a non-negative sequence number", http.StatusBadRequest)
			return
		}
		cursors[names[0]] = n
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported", http.StatusInternalServerError)
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{}) // a stream outlives the write timeout
	ctx := r.Context()
	if all {
		names = a.palaceNames(ctx, names)
	}
	// Take the starting cursors before answering, so that a client that
	// sees the stream open misses nothing written after.
	a.startCursors(ctx, names, cursors)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": loci events\n\n")
	flusher.Flush()

	tick := time.NewTicker(a.cfg.EventPoll)
	defer tick.Stop()
	lastWrite := time.Now()
	for {
		if all {
			names = a.palaceNames(ctx, names)
		}
		wrote, err := a.pollEvents(ctx, w, names, cursors)
		if err != nil {
			return // the client went away
		}
		if wrote {
			flusher.Flush()
			lastWrite = time.Now()
		} else if time.Since(lastWrite) >= eventKeepalive {
			if _, err := fmt.Fprint(w, ": keepalive\n\n"); err != nil {
				return
			}
			flusher.Flush()
			lastWrite = time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-a.closing:
			return
		case <-tick.C:
		}
	}
}

// palaceNames lists the palaces on disk that ctx's caller reaches (at
// most maxEventPalace); on failure it keeps the previous list.
func (a *API) palaceNames(ctx context.Context, prev []string) []string {
	list, err := a.reg.List()
	if err != nil {
		return prev
	}
	list = palace.Visible(ctx, list)
	if len(list) > maxEventPalace {
		list = list[:maxEventPalace]
	}
	return list
}

// startCursors sets the cursor of every existing palace that has none to
// its current end: a stream starts with what happens next.
func (a *API) startCursors(ctx context.Context, names []string, cursors map[string]int64) {
	for _, name := range names {
		if _, known := cursors[name]; known || !a.reg.Exists(name) {
			continue
		}
		p, err := a.reg.Open(ctx, name)
		if err != nil {
			continue
		}
		if cur, err := p.LastSeq(ctx); err == nil {
			cursors[name] = cur
		}
	}
}

// pollEvents writes every event after each palace's cursor. A palace
// without one appeared after the stream started: it is followed from its
// first event.
func (a *API) pollEvents(ctx context.Context, w http.ResponseWriter, names []string, cursors map[string]int64) (bool, error) {
	wrote := false
	for _, name := range names {
		if !a.reg.Exists(name) {
			continue
		}
		p, err := a.reg.Open(ctx, name)
		if err != nil {
			continue
		}
		cur := cursors[name]
		log, err := p.Changes(ctx, cur, eventBatch)
		if err != nil {
			continue
		}
		evs := make([]eventJSON, 0, len(log))
		for _, le := range log {
			e := eventJSON{Seq: le.Seq, Type: le.Type, DrawerID: le.DrawerID, Palace: name,
				At: formatTime(le.At, a.loc), Detail: map[string]any{}}
			_ = json.Unmarshal(le.Detail, &e.Detail)
			evs = append(evs, e)
		}
		for _, e := range evs {
			cursors[name] = e.Seq
			b, _ := json.Marshal(e)
			b = redact.JSON(b)
			if _, err := fmt.Fprintf(w, "id: %s\nevent: %s\ndata: %s\n\n", formatCursors(cursors), eventName(e), b); err != nil {
				return wrote, err
			}
			wrote = true
		}
	}
	return wrote, nil
}

// eventName refines a change-log type into what the dashboard shows.
func eventName(e eventJSON) string {
	switch e.Type {
	case palace.EventStatus:
		from, _ := e.Detail["from"].(string)
		to, _ := e.Detail["to"].(string)
		switch {
		case to == palace.StatusDeleted:
			return "drawer.forgotten"
		case from == palace.StatusPending && to == palace.StatusActive:
			return "fact.promoted"
		}
	case palace.EventAdded:
		if e.Detail["kind"] == palace.KindFact && e.Detail["status"] == palace.StatusPending {
			return "fact.staged"
		}
	}
	if strings.ContainsAny(e.Type, "\r\n") || e.Type == "" {
		return "change"
	}
	return e.Type
}

func formatCursors(c map[string]int64) string {
	names := make([]string, 0, len(c))
	for n := range c {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + strconv.FormatInt(c[n], 10)
	}
	return strings.Join(parts, ",")
}

func parseCursors(s string) map[string]int64 {
	out := map[string]int64{}
	for _, part := range strings.Split(s, ",") {
		name, seq, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || palace.ValidateName(name) != nil {
			continue
		}
		if n, err := strconv.ParseInt(seq, 10, 64); err == nil && n >= 0 {
			out[name] = n
		}
	}
	return out
}
