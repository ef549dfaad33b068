package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/store"
)

func init() {
	commands["stats"] = command{"what a palace holds: counts by kind, room and status, growth, top tags, index health", cli(statsCmd)}
}

// palaceStats is `loci stats`' data: the numbers people ask about a
// palace, gathered from the core's readers (nothing here touches SQL).
type palaceStats struct {
	Palace   string           `json:"palace"`
	Active   int64            `json:"active"`
	ByStatus map[string]int64 `json:"by_status"`
	ByKind   map[string]int64 `json:"by_kind"`
	ByRoom   map[string]int64 `json:"by_room"`
	Pending  int64            `json:"pending_review"`
	// Buffered counts, by session id, the conversation messages waiting
	// for extraction (`loci forget --purge --session` erases them).
	Buffered map[string]int   `json:"buffered_messages"`
	Triples  int64            `json:"kg_active_triples"`
	Growth   statsGrowth      `json:"growth"`
	TopTags  []store.TagCount `json:"top_tags"`
	Index    statsIndex       `json:"index"`
	Bytes    int64            `json:"bytes_on_disk"`
	// StoreBytes is what the palace takes on a store server (PostgreSQL),
	// counted in Bytes with this machine's caches; absent for SQLite.
	StoreBytes *int64 `json:"store_bytes,omitempty"`
}

// statsGrowth counts active drawers by when they happened (their event
// time): the last day, week and month, and one figure per day for the
// last --days days, oldest first.
type statsGrowth struct {
	Day   int64      `json:"last_24h"`
	Week  int64      `json:"last_7d"`
	Month int64      `json:"last_30d"`
	Daily []statsDay `json:"daily"`
}

type statsDay struct {
	Date  string `json:"date"`
	Added int64  `json:"added"`
}

type statsIndex struct {
	Vector  palace.IndexHealth      `json:"vector"`
	Lag     int64                   `json:"vector_lag"`
	Keyword palace.KeywordIndexInfo `json:"keyword"`
}

// statsCmd is `loci stats [--palace P] [--days N]`.
func statsCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	days := fs.Int("days", 14, "days of daily growth to show (1-366)")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, invalidArgs("stats takes no arguments", "Use `loci stats --palace NAME`")
	}
	if *days < 1 || *days > 366 {
		return nil, &cliError{Type: "invalid_args", Message: fmt.Sprintf("--days must be between 1 and 366, got %d", *days),
			Detail: map[string]any{"flag": "days"}}
	}
	p, _, done, err := cliPalace(ctx, env, c, false)
	if err != nil {
		return nil, err
	}
	defer done()
	st, err := gatherStats(ctx, p, *days, time.Now())
	if err != nil {
		return nil, err
	}
	return &result{data: st, text: func(w io.Writer) { printStats(w, st) }}, nil
}

func gatherStats(ctx context.Context, p *palace.Palace, days int, now time.Time) (*palaceStats, error) {
	in, err := p.Info(ctx)
	if err != nil {
		return nil, err
	}
	st := &palaceStats{Palace: p.Name(), Active: in.DrawerCount, ByStatus: in.ByStatus, ByKind: in.ByKind,
		ByRoom: in.Rooms, Triples: in.Triples, Index: statsIndex{Keyword: in.KeywordIndex}}
	pending, err := p.Count(ctx, palace.Filter{Kinds: []string{palace.KindFact}, Statuses: []string{palace.StatusPending}})
	if err != nil {
		return nil, err
	}
	st.Pending = pending
	if st.Buffered, err = p.BufferedCounts(ctx); err != nil {
		return nil, err
	}
	buckets, err := p.Activity(ctx, 24*time.Hour)
	if err != nil {
		return nil, err
	}
	// Buckets are whole UTC days keyed by their start; a drawer counts in
	// the window its day starts in.
	today := now.UTC().Truncate(24 * time.Hour)
	for start, n := range buckets {
		age := today.Sub(time.UnixMilli(start).UTC())
		switch {
		case age < 0: // dated in the future: count it as today
			st.Growth.Day += n
			st.Growth.Week += n
			st.Growth.Month += n
		case age < 24*time.Hour:
			st.Growth.Day += n
			fallthrough
		case age < 7*24*time.Hour:
			st.Growth.Week += n
			fallthrough
		case age < 30*24*time.Hour:
			st.Growth.Month += n
		}
	}
	for i := days - 1; i >= 0; i-- {
		d := today.Add(-time.Duration(i) * 24 * time.Hour)
		st.Growth.Daily = append(st.Growth.Daily, statsDay{Date: d.Format("2006-01-02"), Added: buckets[d.UnixMilli()]})
	}
	if st.TopTags, err = p.TopTags(ctx, 10); err != nil {
		return nil, err
	}
	if st.Index.Vector, err = p.IndexHealth(ctx); err != nil {
		return nil, err
	}
	if st.Index.Lag, err = p.IndexLag(ctx); err != nil {
		return nil, err
	}
	st.Bytes = dirBytes(p.Dir())
	if n, ok, err := p.StoreBytes(ctx); err != nil {
		return nil, err
	} else if ok {
		st.StoreBytes = &n
		st.Bytes += n
	}
	return st, nil
}

// dirBytes is the size of the files under dir (0 if it cannot be read).
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func printStats(w io.Writer, st *palaceStats) {
	fmt.Fprintf(w, "palace %s: %s active memories, %s on disk\n", st.Palace, thousands(int(st.Active)), humanBytes(st.Bytes))
	counts := func(title string, m map[string]int64, label func(string) string) {
		keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
			if m[a] != m[b] {
				return int(m[b] - m[a])
			}
			return strings.Compare(a, b)
		})
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %s", label(k), thousands(int(m[k]))))
		}
		if len(parts) == 0 {
			parts = []string{"none"}
		}
		fmt.Fprintf(w, "  %-9s %s\n", title, strings.Join(parts, ", "))
	}
	same := func(s string) string { return s }
	counts("kinds", st.ByKind, same)
	counts("rooms", st.ByRoom, palace.RoomLabel)
	counts("statuses", st.ByStatus, same)
	if st.Pending > 0 {
		fmt.Fprintf(w, "  %-9s %s fact(s) await review (`loci review`)\n", "review", thousands(int(st.Pending)))
	}
	if len(st.Buffered) > 0 {
		ids := slices.Sorted(maps.Keys(st.Buffered))
		n := 0
		for _, id := range ids {
			n += st.Buffered[id]
		}
		shown := make([]string, 0, 5)
		for _, id := range ids[:min(len(ids), 5)] {
			shown = append(shown, fmt.Sprintf("%s %d", termSafe(id), st.Buffered[id]))
		}
		if len(ids) > 5 {
			shown = append(shown, "…")
		}
		fmt.Fprintf(w, "  %-9s %s message(s) of %d session(s) wait for extraction: %s\n", "buffered", thousands(n), len(ids), strings.Join(shown, ", "))
	}
	fmt.Fprintf(w, "  %-9s %s active triples\n", "graph", thousands(int(st.Triples)))
	fmt.Fprintf(w, "  %-9s %s in the last day, %s in 7 days, %s in 30 days\n", "added", thousands(int(st.Growth.Day)),
		thousands(int(st.Growth.Week)), thousands(int(st.Growth.Month)))
	var peak int64
	for _, d := range st.Growth.Daily {
		peak = max(peak, d.Added)
	}
	for _, d := range st.Growth.Daily {
		bar := ""
		if peak > 0 {
			bar = strings.Repeat("#", int((d.Added*30+peak-1)/peak))
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("    %s %6s %s", d.Date, thousands(int(d.Added)), bar), " "))
	}
	if len(st.TopTags) > 0 {
		tags := make([]string, 0, len(st.TopTags))
		for _, t := range st.TopTags {
			tags = append(tags, fmt.Sprintf("%s %d", t.Tag, t.Count))
		}
		fmt.Fprintf(w, "  %-9s %s\n", "top tags", strings.Join(tags, ", "))
	}
	v := st.Index.Vector
	health := "healthy"
	switch {
	case v.StaleVectors > 0:
		health = fmt.Sprintf("%s drawer(s) need vectors from %s: run `loci reembed`", thousands(int(v.StaleVectors)), v.Model)
	case v.NeedsRebuild:
		health = "asks for a rebuild (the dreamer's index pass does it)"
	}
	kw := "keywords: built on a server's first search (not loaded in this process)"
	if k := st.Index.Keyword; k.Loaded {
		kw = fmt.Sprintf("keywords %s drawers, %s terms", thousands(k.Drawers), thousands(k.Terms))
	}
	fmt.Fprintf(w, "  %-9s vectors %s (%s), %s; %s\n", "index", thousands(v.Live), v.Model, health, kw)
}

// humanBytes writes n bytes as 12.3 MB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
