package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/redact"
)

// Limits of one poll of the change logs.
const (
	changeBatch      = 200 // rows read per palace per query
	batchesPerPoll   = 5   // queries per palace per poll before yielding
	drawersPerChange = 50  // a poll attaches drawers to at most this many changes
)

// events answers GET /hub/api/events with server-sent events:
//
//	event: hello    data: {"palaces":{"name":seq,...},"poll_ms":500}
//	event: change   data: {"palace","seq","at","type","drawer_id","detail","drawer"}
//	event: palaces  data: {"palaces":["a","b"]}   (a palace appeared or vanished)
//
// It polls every palace's change log by seq every Options.PollInterval,
// so writes by any process (an MCP server, a hook, the CLI) appear. The
// stream starts at the current end of each log: it reports what happens
// after it connects, and the page reloads its views on (re)connect.
// A palace created later is reported from its first change.
func (h *Hub) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	// A stream outlives any server-wide write timeout; lift it for this
	// request (unsupported writers, as in tests, need nothing lifted).
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	ctx := r.Context()
	stop := h.stopping(r)

	marks := map[string]int64{}
	ps, err := h.palaces(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, p := range ps {
		if marks[p.Name()], err = lastSeq(ctx, p); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	w.WriteHeader(http.StatusOK)
	send := func(event string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, redact.JSON(b)); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := send("hello", map[string]any{"palaces": marks, "poll_ms": h.opts.PollInterval.Milliseconds()}); err != nil {
		return
	}
	poll := time.NewTicker(h.opts.PollInterval)
	defer poll.Stop()
	idle := time.NewTimer(h.opts.KeepAlive)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-idle.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
			idle.Reset(h.opts.KeepAlive)
		case <-poll.C:
			changes, names, err := h.pollChanges(ctx, marks)
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					h.log.Warn().Err(err).Msg("hub: read change logs")
				}
				continue
			}
			if names != nil {
				if send("palaces", map[string]any{"palaces": names}) != nil {
					return
				}
			}
			for _, c := range changes {
				if send("change", c) != nil {
					return
				}
			}
			if len(changes) > 0 || names != nil {
				idle.Reset(h.opts.KeepAlive)
			}
		}
	}
}

// pollChanges reads every palace's change log past its mark, advancing the
// marks. names is the new list of palaces when it changed, else nil.
func (h *Hub) pollChanges(ctx context.Context, marks map[string]int64) ([]change, []string, error) {
	list, err := h.reg.List()
	if err != nil {
		return nil, nil, err
	}
	list = palace.Visible(ctx, list)
	changed := len(list) != len(marks)
	seen := make(map[string]bool, len(list))
	var out []change
	for _, name := range list {
		seen[name] = true
		if _, ok := marks[name]; !ok {
			changed = true // new palace: report it from its first change
		}
		p, err := h.reg.Open(ctx, name)
		if errors.Is(err, palace.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		for range batchesPerPoll {
			cs, err := changesAfter(ctx, p, marks[name], changeBatch)
			if err != nil {
				return nil, nil, err
			}
			if len(cs) == 0 {
				break
			}
			marks[name] = cs[len(cs)-1].Seq
			out = append(out, cs...)
			if len(cs) < changeBatch {
				break
			}
		}
	}
	for name := range marks {
		if !seen[name] {
			delete(marks, name)
			changed = true
		}
	}
	// Attach each changed drawer's current state, for the newest changes,
	// so the page can show them without asking again.
	for i := max(len(out)-drawersPerChange, 0); i < len(out); i++ {
		c := &out[i]
		if c.DrawerID == "" {
			continue
		}
		p, err := h.reg.Open(ctx, c.Palace)
		if err != nil {
			continue
		}
		if d, err := p.Get(ctx, c.DrawerID); err == nil {
			j := toDrawerJSON(c.Palace, d)
			c.Drawer = &j
		}
	}
	if !changed {
		return out, nil, nil
	}
	if list == nil {
		list = []string{}
	}
	return out, list, nil
}

// stopping returns a channel closed when the server carrying r begins a
// graceful shutdown, so that live streams end and let it finish. It
// registers one shutdown hook per server.
func (h *Hub) stopping(r *http.Request) <-chan struct{} {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ch, ok := h.shutdown[srv]
	if !ok {
		ch = make(chan struct{})
		h.shutdown[srv] = ch
		srv.RegisterOnShutdown(func() {
			h.mu.Lock()
			delete(h.shutdown, srv)
			h.mu.Unlock()
			close(ch)
		})
	}
	return ch
}
