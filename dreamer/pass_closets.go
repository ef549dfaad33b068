package dreamer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace"
)

// Closets. Every room with active drawers gets a closet: its most
// distinctive keywords and a short summary. L2 recall reads the keywords
// to break near-ties in favour of drawers whose room matches the query
// (palace/closet.go); palace_info lists the closets.
//
// A word's weight in a room is its share of the room's drawers times its
// inverse document frequency over the whole palace, so words that mark the
// room win over words every room uses; in a room of five or more drawers a
// word must occur in at least two. The summary names the room's size and
// kinds, its top keywords and the first sentence of its three most
// important drawers. Closets are derived data and not recorded for undo.

const (
	closetKeywords = 16
	closetTop      = 3
	snippetBytes   = 140
)

type roomStats struct {
	n     int
	df    map[uint32]int
	kinds map[string]int
	top   []*palace.Drawer
	seq   int64
}

func runClosets(ctx context.Context, e *passEnv) error {
	rooms := map[string]*roomStats{}
	v := newVocab() // v.df counts the drawers of the whole palace using a word
	keep := map[uint32]bool{}
	total := 0
	err := e.p.Scan(ctx, palace.ScanOptions{}, func(d *palace.Drawer, _ []float32) error {
		total++
		if total%1024 == 0 && e.overBudget() {
			return errBudget
		}
		r := rooms[d.Room]
		if r == nil {
			r = &roomStats{df: map[uint32]int{}, kinds: map[string]int{}}
			rooms[d.Room] = r
		}
		r.n++
		r.kinds[d.Kind]++
		r.seq = max(r.seq, d.Seq)
		for _, id := range v.encode(d.Content, true).toks {
			ok, seen := keep[id]
			if !seen {
				w := v.words[id]
				ok = utf8.RuneCountInString(w) >= 3 && !hasDigit(w)
				keep[id] = ok
			}
			if ok {
				r.df[id]++
			}
		}
		r.top = keepTop(r.top, d)
		return nil
	})
	e.rep.Examined = total
	if errors.Is(err, errBudget) {
		// A closet built from part of a room would mislead: keep the old ones.
		e.rep.Status, e.rep.Note = PassSkipped, "time budget spent before every drawer was read; closets kept"
		return nil
	}
	if err != nil {
		return err
	}
	old, err := e.p.Closets(ctx)
	if err != nil {
		return err
	}
	prev := map[string]palace.Closet{}
	for _, c := range old {
		prev[c.Room] = c
	}
	names := make([]string, 0, len(rooms))
	for n := range rooms {
		names = append(names, n)
	}
	sort.Strings(names)
	closets := make([]palace.Closet, 0, len(names))
	for _, name := range names {
		r := rooms[name]
		c := palace.Closet{Room: name, Drawers: r.n, Keywords: roomKeywords(r, v, total), Seq: r.seq}
		c.Summary = roomSummary(r, c.Keywords)
		p, had := prev[name]
		changed := !had || p.Summary != c.Summary || p.Drawers != c.Drawers || !slices.Equal(p.Keywords, c.Keywords)
		if changed {
			e.rep.Changed++
		}
		kw := c.Keywords
		if len(kw) > 8 {
			kw = kw[:8]
		}
		e.rep.Closets = append(e.rep.Closets, ClosetChange{Room: name, Drawers: r.n, Keywords: kw, Changed: changed})
		closets = append(closets, c)
	}
	for name := range prev {
		if rooms[name] == nil {
			e.rep.Changed++ // an emptied room loses its closet
		}
	}
	if e.dry || e.rep.Changed == 0 {
		return nil
	}
	tx, err := e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.ReplaceClosets(closets); err != nil {
		return err
	}
	return tx.Commit()
}

// keepTop keeps the closetTop most important drawers (newest first among
// equals), holding only their first sentence.
func keepTop(top []*palace.Drawer, d *palace.Drawer) []*palace.Drawer {
	if len(top) == closetTop {
		last := top[closetTop-1]
		if d.Importance < last.Importance || d.Importance == last.Importance && !d.Timestamp.After(last.Timestamp) {
			return top
		}
	}
	c := &palace.Drawer{ID: d.ID, Importance: d.Importance, Timestamp: d.Timestamp, Content: snippet(d.Content)}
	top = append(top, c)
	sort.SliceStable(top, func(i, j int) bool {
		if top[i].Importance != top[j].Importance {
			return top[i].Importance > top[j].Importance
		}
		return top[i].Timestamp.After(top[j].Timestamp)
	})
	if len(top) > closetTop {
		top = top[:closetTop]
	}
	return top
}

func roomKeywords(r *roomStats, v *vocab, total int) []string {
	type kw struct {
		w string
		s float64
	}
	minDF := 1
	if r.n >= 5 {
		minDF = 2
	}
	var list []kw
	for id, n := range r.df {
		if n < minDF {
			continue
		}
		idf := math.Log(float64(total+1) / float64(v.df[id]))
		list = append(list, kw{v.words[id], float64(n) / float64(r.n) * (idf + 0.1)})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].s != list[j].s {
			return list[i].s > list[j].s
		}
		return list[i].w < list[j].w
	})
	out := []string{}
	for i := 0; i < len(list) && i < closetKeywords; i++ {
		out = append(out, list[i].w)
	}
	return out
}

func roomSummary(r *roomStats, keywords []string) string {
	kinds := make([]string, 0, len(r.kinds))
	for k, n := range r.kinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	var b strings.Builder
	noun := "memories"
	if r.n == 1 {
		noun = "memory"
	}
	fmt.Fprintf(&b, "%d %s (%s).", r.n, noun, strings.Join(kinds, ", "))
	if len(keywords) > 0 {
		fmt.Fprintf(&b, " Topics: %s.", strings.Join(keywords[:min(len(keywords), 6)], ", "))
	}
	if len(r.top) > 0 {
		b.WriteString(" Most important:")
		for i, d := range r.top {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " “%s”", d.Content)
		}
		b.WriteString(".")
	}
	return b.String()
}

// snippet is the first sentence of a text, at most snippetBytes long.
func snippet(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i+1 < len(s); i++ {
		if strings.IndexByte(".!?", s[i]) >= 0 && s[i+1] == ' ' && i > 0 {
			s = s[:i+1]
			break
		}
	}
	if len(s) <= snippetBytes {
		return s
	}
	cut := snippetBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
