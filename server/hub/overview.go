package hub

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// HeatmapDays is how many days of activity the overview returns: 26 full
// weeks, the six months of the heatmap. The last seven are the week chart.
const HeatmapDays = 182

// Stats are the overview's headline numbers.
type Stats struct {
	Memories     int64   `json:"memories"`       // active drawers, every palace
	Palaces      int     `json:"palaces"`        // palaces on disk
	ActiveDays   int     `json:"active_days"`    // local days with at least one memory
	AvgPerDay    float64 `json:"avg_per_day"`    // memories per active day
	AvgPerPalace float64 `json:"avg_per_palace"` // memories per palace
	Pending      int64   `json:"pending"`        // facts waiting in the review queue
	Triples      int64   `json:"triples"`        // active knowledge-graph triples
}

// Day is one day of activity.
type Day struct {
	Date  string `json:"date"` // YYYY-MM-DD in the viewer's zone
	Count int64  `json:"count"`
}

// Overview is the body of GET /hub/api/overview.
type Overview struct {
	Stats    Stats  `json:"stats"`
	Today    string `json:"today"`
	TimeZone string `json:"time_zone"`
	// Days lists the last HeatmapDays days, oldest first, ending today.
	Days        []Day     `json:"days"`
	GeneratedAt time.Time `json:"generated_at"`
}

// overview answers GET /hub/api/overview[?palace=NAME][&tz=ZONE|&tz_offset=MIN].
//
// A memory is an active drawer of any kind; its day is the local date of its
// event time (Drawer.Timestamp, which is when it was stored unless the
// writer said when the remembered event happened).
func (h *Hub) overview(w http.ResponseWriter, r *http.Request) {
	loc, err := location(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ps, err := h.palaces(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	perDay := map[string]int64{}
	st := Stats{Palaces: len(ps)}
	for _, p := range ps {
		buckets, err := countBuckets(ctx, p)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for start, n := range buckets {
			perDay[time.UnixMilli(start).In(loc).Format(time.DateOnly)] += n
			st.Memories += n
		}
		n, err := pendingCount(ctx, p)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		st.Pending += n
		kst, err := p.KG().Stats(ctx)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		st.Triples += int64(kst.Active)
	}
	st.ActiveDays = len(perDay)
	if st.ActiveDays > 0 {
		st.AvgPerDay = round1(float64(st.Memories) / float64(st.ActiveDays))
	}
	if st.Palaces > 0 {
		st.AvgPerPalace = round1(float64(st.Memories) / float64(st.Palaces))
	}
	now := h.reg.Now().In(loc)
	y, m, d := now.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, loc)
	days := make([]Day, 0, HeatmapDays)
	for i := HeatmapDays - 1; i >= 0; i-- {
		date := today.AddDate(0, 0, -i).Format(time.DateOnly)
		days = append(days, Day{Date: date, Count: perDay[date]})
	}
	writeJSON(w, http.StatusOK, Overview{Stats: st, Today: today.Format(time.DateOnly),
		TimeZone: loc.String(), Days: days, GeneratedAt: now.UTC()})
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// location is the viewer's time zone: the IANA name in ?tz= when this
// system knows it, else the fixed offset in ?tz_offset= (minutes east of
// UTC), else UTC.
func location(r *http.Request) (*time.Location, error) {
	q := r.URL.Query()
	if name := q.Get("tz"); name != "" && len(name) < 64 {
		if loc, err := time.LoadLocation(name); err == nil {
			return loc, nil
		}
	}
	if s := q.Get("tz_offset"); s != "" {
		mins, err := strconv.Atoi(s)
		if err != nil || mins < -14*60 || mins > 14*60 {
			return nil, badRequest("tz_offset must be minutes east of UTC between -840 and 840, got %q", s)
		}
		return time.FixedZone("UTC"+offsetLabel(mins), mins*60), nil
	}
	return time.UTC, nil
}

func offsetLabel(mins int) string {
	sign := "+"
	if mins < 0 {
		sign, mins = "-", -mins
	}
	return fmt.Sprintf("%s%d:%02d", sign, mins/60, mins%60)
}
