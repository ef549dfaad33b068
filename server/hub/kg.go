package hub

import (
	"net/http"
	"strings"
)

// kgSubjects answers GET /hub/api/palaces/{palace}/kg?prefix=&limit=: the
// graph's counts and its subjects (with active and total triple counts),
// in subject order.
func (h *Hub) kgSubjects(w http.ResponseWriter, r *http.Request) {
	p, err := h.openPalace(r, r.PathValue("palace"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	limit, err := intParam(r, "limit", 200, 1, 1000)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	st, err := p.KG().Stats(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	subjects, err := p.KG().Subjects(r.Context(), r.URL.Query().Get("prefix"), limit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"palace": p.Name(), "stats": st, "subjects": subjects})
}

// kgSubject answers GET /hub/api/palaces/{palace}/kg/subject?s=SUBJECT: the
// subject's active triples and its whole history, oldest first. The
// subject travels in the query so that any text (slashes included) works.
func (h *Hub) kgSubject(w http.ResponseWriter, r *http.Request) {
	p, err := h.openPalace(r, r.PathValue("palace"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	subject := strings.TrimSpace(r.URL.Query().Get("s"))
	if subject == "" {
		h.fail(w, r, badRequest("s (the subject) is empty"))
		return
	}
	active, err := p.KG().Query(r.Context(), subject)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	history, err := p.KG().History(r.Context(), subject)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"palace": p.Name(), "subject": subject,
		"active": active, "history": history})
}
