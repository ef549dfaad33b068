package archive

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/loci-mem/loci/palace/redact"
)

// ExportMarkdown writes a readable account of the palace: its
// description, promoted facts by kind, the review queue, every active
// memory by room (newest first), and the knowledge graph's current
// triples. It is for people; ExportJSONL is the lossless format.
func ExportMarkdown(ctx context.Context, p *palace.Palace, w io.Writer) (ExportStats, error) {
	var st ExportStats
	desc, err := p.Description(ctx)
	if err != nil {
		return st, err
	}
	bw := bufio.NewWriter(w)
	var buf strings.Builder
	fmt.Fprintf(&buf, "# Palace %s\n\n", p.Name())
	if desc != "" {
		fmt.Fprintf(&buf, "%s\n\n", quoteBlock(desc))
	}
	fmt.Fprintf(&buf, "_Exported %s._\n\n", p.Now().UTC().Format(time.RFC3339))

	promoted, _, err := facts.Of(p).List(ctx, facts.Query{Statuses: []string{palace.StatusActive}, Limit: 10000})
	if err != nil {
		return st, err
	}
	if len(promoted) > 0 {
		buf.WriteString("## Facts\n\n")
		byKind := map[string][]facts.Fact{}
		for _, f := range promoted {
			byKind[f.Kind] = append(byKind[f.Kind], f)
		}
		for _, k := range facts.KindNames() {
			if len(byKind[k]) == 0 {
				continue
			}
			fmt.Fprintf(&buf, "### %s\n\n", k)
			for _, f := range byKind[k] {
				fmt.Fprintf(&buf, "- %s _(%s, confidence %.2f)_\n", oneLineMD(f.Fact), f.ID, f.Confidence)
			}
			buf.WriteString("\n")
		}
	}
	queue, _, err := facts.Of(p).List(ctx, facts.Query{Statuses: []string{palace.StatusPending, palace.StatusStale}, Limit: 10000})
	if err != nil {
		return st, err
	}
	if len(queue) > 0 {
		buf.WriteString("## Waiting for review\n\n")
		for _, f := range queue {
			extra := ""
			if f.ConflictsWith != "" {
				extra = ", conflicts with " + f.ConflictsWith
			}
			fmt.Fprintf(&buf, "- [%s] %s _(%s, %s%s)_\n", f.Kind, oneLineMD(f.Fact), f.ID, f.Status, extra)
		}
		buf.WriteString("\n")
	}
	st.FactIDs = len(promoted) + len(queue)

	ds, _, err := p.List(ctx, palace.ListOptions{Order: "newest", Limit: 10000})
	if err != nil {
		return st, err
	}
	byRoom := map[string][]*palace.Drawer{}
	for _, d := range ds {
		if d.Kind == palace.KindFact {
			continue
		}
		byRoom[d.Room] = append(byRoom[d.Room], d)
		st.Drawers++
	}
	rooms := make([]string, 0, len(byRoom))
	for r := range byRoom {
		rooms = append(rooms, r)
	}
	sort.Strings(rooms)
	if len(rooms) > 0 {
		buf.WriteString("## Memories\n\n")
	}
	for _, r := range rooms {
		fmt.Fprintf(&buf, "### %s\n\n", palace.RoomLabel(r))
		for _, d := range byRoom[r] {
			tags := ""
			if len(d.Tags) > 0 {
				tags = " · " + strings.Join(d.Tags, ", ")
			}
			fmt.Fprintf(&buf, "- **%s** (%s%s) %s\n", d.Timestamp.Format("2006-01-02"), d.Kind, tags, indentMD(d.Content))
		}
		buf.WriteString("\n")
	}

	subjects, err := p.KG().Subjects(ctx, "", 100000)
	if err != nil {
		return st, palace.StoreError("export knowledge graph", err)
	}
	var kgLines []string
	for _, s := range subjects {
		ts, err := p.KG().Query(ctx, s.Subject)
		if err != nil {
			return st, palace.StoreError("export knowledge graph", err)
		}
		for _, t := range ts {
			kgLines = append(kgLines, fmt.Sprintf("- %s — %s → %s _(since %s)_\n",
				oneLineMD(t.Subject), oneLineMD(t.Predicate), oneLineMD(t.Object), t.ValidFrom.Format("2006-01-02")))
			st.Triples++
		}
	}
	if len(kgLines) > 0 {
		buf.WriteString("## Knowledge graph\n\n")
		for _, l := range kgLines {
			buf.WriteString(l)
		}
		buf.WriteString("\n")
	}
	out, _ := redact.String(buf.String())
	n, err := bw.WriteString(out)
	st.Bytes = int64(n)
	if err != nil {
		return st, palace.StoreError("write markdown export", err)
	}
	return st, palace.StoreError("write markdown export", bw.Flush())
}

// oneLineMD flattens text to one line for a list item.
func oneLineMD(s string) string { return strings.Join(strings.Fields(s), " ") }

// indentMD keeps multi-line text inside its list item.
func indentMD(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}

func quoteBlock(s string) string {
	return "> " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ")
}
