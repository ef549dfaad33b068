package server

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/facts"
)

// Markdown rendering for the seed 000 and seed 004 read faces (mem_context,
// mem_search, mem://profile, mem://search, memory://recall). The text is
// spliced into a model's context as is, so it is compact: one list item per
// memory, continuation lines indented so a memory's own markdown cannot
// break out of its item, and no internal ids except engram ids.

// memMinCosine is the vector similarity at which a memory that shares no
// search term with the query still counts as relevant in mem_* results,
// on the default encoder's scale (embed.HybridScale; carried to another
// embedder's by Palace.CosineFloor), and lenient as facts.MinFactCosine is.
const memMinCosine = 0.35

// memoryChars is about how much of one memory the markdown shows, as much
// as the Claude Code prompt hook shows: a longer memory shows its opening
// line and the passage the search matched (palace.Excerpt), and its detail
// line says how long it is, so a 4 MiB drawer is not spliced into a
// model's context whole. memory_recall and the REST API return it whole.
const memoryChars = 800

// maxContextFacts bounds the promoted facts mem_context and mem://profile
// list.
const maxContextFacts = 50

// profileImportant is how many of the most important memories
// mem://profile lists under the profile and facts.
const profileImportant = 10

// profileSection renders the palace's description, profile documents and
// identity memories, then the promoted facts.
func profileSection(ctx context.Context, p *palace.Palace, b *strings.Builder) error {
	desc, err := p.Description(ctx)
	if err != nil {
		return err
	}
	profiles, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{Kinds: []string{palace.KindProfile}}, Order: "updated", Limit: 5})
	if err != nil {
		return err
	}
	identity, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{Tags: []string{palace.TagIdentity},
		Where: &palace.Pred{Field: "kind", Op: "nin", Value: []string{palace.KindFact, palace.KindProfile}}}, Limit: 10})
	if err != nil {
		return err
	}
	b.WriteString("## Profile\n\n")
	if desc == "" && len(profiles) == 0 && len(identity) == 0 {
		b.WriteString("_No profile yet._\n\n")
	}
	if desc != "" {
		b.WriteString(quoteMD(desc) + "\n\n")
	}
	for _, d := range profiles {
		b.WriteString(strings.TrimSpace(d.Content) + "\n\n")
	}
	for _, d := range identity {
		b.WriteString("- " + itemMD(d.Content) + "\n")
	}
	if len(identity) > 0 {
		b.WriteString("\n")
	}
	facts, err := facts.Of(p).Recall(ctx, "", maxContextFacts)
	if err != nil {
		return err
	}
	b.WriteString("## Facts\n\n")
	if len(facts) == 0 {
		b.WriteString("_No promoted facts yet._\n\n")
		return nil
	}
	for _, f := range facts {
		fmt.Fprintf(b, "- [%s] %s\n", f.Kind, itemMD(f.Fact))
	}
	b.WriteString("\n")
	return nil
}

// renderContext is mem_context's answer: profile and promoted facts, then
// the memories relevant to query (facts excluded: they are listed above).
func renderContext(ctx context.Context, p *palace.Palace, query string, k int) (string, error) {
	var b strings.Builder
	b.WriteString("# Memory context\n\n")
	if err := profileSection(ctx, p, &b); err != nil {
		return "", err
	}
	hits, err := relevantHits(ctx, p, query, k, &palace.Pred{Field: "kind", Op: "ne", Value: palace.KindFact})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "## Relevant memories\n\n")
	writeHits(&b, query, hits)
	return b.String(), nil
}

// renderSearch is mem_search's and mem://search's answer.
func renderSearch(ctx context.Context, p *palace.Palace, query string, k int) (string, error) {
	hits, err := relevantHits(ctx, p, query, k, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Memories matching %q\n\n", oneLine(query, 200))
	writeHits(&b, query, hits)
	return b.String(), nil
}

// renderProfile is mem://profile: mem_context without a query, the most
// important memories standing in for the relevant ones.
func renderProfile(ctx context.Context, p *palace.Palace) (string, error) {
	var b strings.Builder
	b.WriteString("# Memory profile\n\n")
	if err := profileSection(ctx, p, &b); err != nil {
		return "", err
	}
	top, _, err := p.List(ctx, palace.ListOptions{Filter: palace.Filter{Where: &palace.Pred{And: []palace.Pred{
		{Field: "kind", Op: "nin", Value: []string{palace.KindFact, palace.KindProfile}},
		{Field: "tag", Op: "ne", Value: palace.TagIdentity}, // listed under Profile already
	}}}, Limit: profileImportant})
	if err != nil {
		return "", err
	}
	b.WriteString("## Important memories\n\n")
	if len(top) == 0 {
		b.WriteString("_No memories yet._\n")
	}
	for i, d := range top {
		writeMemory(&b, i+1, d, nil)
	}
	return b.String(), nil
}

// renderRecallBlock is memory://recall: the promoted facts as a block to
// paste into a system prompt.
func renderRecallBlock(facts []facts.Fact) string {
	var b strings.Builder
	b.WriteString("## What I know about the user\n\n")
	if len(facts) == 0 {
		b.WriteString("No memories about the user have been promoted yet.\n")
		return b.String()
	}
	b.WriteString("These facts about the user were promoted from earlier sessions. Treat them as the user's standing preferences and context unless the user says otherwise.\n\n")
	for _, f := range facts {
		fmt.Fprintf(&b, "- [%s] %s\n", f.Kind, itemMD(f.Fact))
	}
	return b.String()
}

// relevantHits runs the shared hybrid search and keeps real matches.
func relevantHits(ctx context.Context, p *palace.Palace, query string, k int, where *palace.Pred) ([]palace.Hit, error) {
	hits, err := p.Search(ctx, palace.SearchRequest{Query: query, K: k, Filter: palace.Filter{Where: where}})
	if err != nil {
		return nil, err
	}
	floor := p.CosineFloor(ctx, memMinCosine, embed.HybridScale)
	out := hits[:0]
	for _, h := range hits {
		if facts.RelevantHit(h, floor) {
			out = append(out, h)
		}
	}
	return out, nil
}

func writeHits(b *strings.Builder, query string, hits []palace.Hit) {
	if len(hits) == 0 {
		fmt.Fprintf(b, "_No memories match %q._\n", oneLine(query, 200))
		return
	}
	for i, h := range hits {
		writeMemory(b, i+1, h.Drawer, h.Passage)
	}
}

// writeMemory renders one memory as a numbered item with a detail line:
// room, kind (fact kind for facts), the date it happened, the engram id,
// and for a memory shown in part, how long it is. passage is the part the
// search matched, nil when there was no search.
func writeMemory(b *strings.Builder, n int, d *palace.Drawer, passage *palace.Span) {
	shown := palace.Excerpt(d.Content, passage, memoryChars)
	fmt.Fprintf(b, "%d. %s\n", n, itemMD(shown))
	detail := []string{d.Room, d.Kind}
	if d.Kind == palace.KindFact {
		f := facts.FromDrawer(d)
		detail = []string{"fact", f.Kind, f.ID}
	}
	if !d.Timestamp.IsZero() {
		detail = append(detail, d.Timestamp.UTC().Format("2006-01-02"))
	}
	if shown != strings.TrimSpace(d.Content) {
		detail = append(detail, fmt.Sprintf("part of %d characters", utf8.RuneCountInString(strings.TrimSpace(d.Content))))
	}
	fmt.Fprintf(b, "   _%s_\n", strings.Join(detail, " · "))
}

// itemMD keeps multi-line text inside a list item.
func itemMD(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n   ")
}

func quoteMD(s string) string {
	return "> " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ")
}

// oneLine flattens s and cuts it to at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		cut := n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
