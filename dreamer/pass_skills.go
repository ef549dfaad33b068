package dreamer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/dreamlog"
	"github.com/loci-mem/loci/palace/embed"
	"github.com/loci-mem/loci/palace/session"
)

// Agent skills (seed 001's agent track). An agent's active cases are
// clustered by their vectors with average linkage (clusterCases): two
// groups of cases merge while their cases are, on average, at least
// SkillCosine similar (per embedder). A cluster of SkillMinCases or more
// becomes a skill drawer (kind agent_skill, id <agent>_sk_<YYYYMMDD>_<N>)
// whose meta carries name, description, content, confidence,
// maturity_score and source_case_ids. A later run updates the skill whose
// sources overlap the cluster most (its name stays), so a skill matures as
// cases accumulate. Only skills the dreamer made (meta created_by
// "dreamer") are ever updated; undo deletes created skills and restores
// updated ones.
//
//	confidence     = mean cosine of the cases to the cluster's centroid
//	maturity_score = (1 − e^(−n/4)) · (0.5 + 0.5 · mean quality_score)

// Meta keys of skills and cases.
const (
	metaCreatedBy = "created_by"
	metaSources   = "source_case_ids"
)

type skillCase struct {
	d       *palace.Drawer
	vec     []float32
	quality float64
	intent  string
}

type skillCluster struct {
	sum   []float32
	cases []*skillCase
}

func runSkills(ctx context.Context, e *passEnv) error {
	byAgent := map[string][]*skillCase{}
	existing := map[string][]*palace.Drawer{}
	err := e.p.Scan(ctx, palace.ScanOptions{Vectors: true,
		Filter: palace.Filter{Kinds: []string{palace.KindAgentCase, palace.KindAgentSkill}}},
		func(d *palace.Drawer, vec []float32) error {
			if d.AgentID == "" {
				return nil
			}
			if d.Kind == palace.KindAgentSkill {
				if by, _ := d.Meta[metaCreatedBy].(string); by == "dreamer" {
					existing[d.AgentID] = append(existing[d.AgentID], d)
				}
				return nil
			}
			e.rep.Examined++
			if e.rep.Examined%1024 == 0 && e.overBudget() {
				return errBudget
			}
			if vec == nil {
				return nil
			}
			intent, _ := d.Meta["task_intent"].(string)
			if strings.TrimSpace(intent) == "" {
				intent = snippet(d.Content)
			}
			q := 0.5
			if v, ok := d.Meta["quality_score"].(float64); ok && v >= 0 && v <= 1 {
				q = v
			}
			byAgent[d.AgentID] = append(byAgent[d.AgentID], &skillCase{d: d, vec: vec, quality: q, intent: intent})
			return nil
		})
	if errors.Is(err, errBudget) {
		e.rep.Status, e.rep.Note = PassSkipped, "time budget spent before every case was read"
		return nil
	}
	if err != nil {
		return err
	}
	thr, measured := e.s.skillCosine(e.p.Embedder().ID())
	if !measured {
		thr = defaultSkillCosine
		if t, ok := lookupThreshold(e.s.SkillCosines, hybridID); ok {
			thr = t
		}
		if sc, ok := e.p.CosineScale(ctx); ok {
			thr = embed.Translate(thr, embed.HybridScale, sc)
		}
	}
	agents := make([]string, 0, len(byAgent))
	for a := range byAgent {
		agents = append(agents, a)
	}
	sort.Strings(agents)

	type op struct {
		create *palace.Drawer
		old    *palace.Drawer
		patch  dreamlog.Patch
	}
	var ops []op
	for _, agent := range agents {
		used := map[string]bool{}
		for _, cl := range clusterCases(byAgent[agent], thr) {
			if len(cl.cases) < e.s.SkillMinCases {
				continue
			}
			draft := draftSkill(agent, cl)
			old := matchSkill(existing[agent], draft.sources, used)
			change := SkillChange{AgentID: agent, Cases: len(cl.cases), Maturity: draft.maturity,
				SourceCaseIDs: draft.sources}
			if old != nil {
				used[old.ID] = true
				if name, _ := old.Meta["name"].(string); name != "" {
					draft.rename(name)
				}
				if old.Content == draft.content && sameSources(old.Meta[metaSources], draft.sources) {
					continue
				}
				change.ID, change.Name, change.Action = old.ID, draft.name, "updated"
				content, conf := draft.content, draft.confidence
				ops = append(ops, op{old: old, patch: dreamlog.Patch{Content: &content, Confidence: &conf,
					Meta: draft.meta()}})
			} else {
				d := draft.drawer()
				change.Name, change.Action = draft.name, "created"
				if !e.dry {
					ids, err := session.Of(e.p).AllocIDs(ctx, agent, "sk", e.now.UTC(), 1)
					if err != nil {
						return err
					}
					d.ID = ids[0]
				}
				change.ID = d.ID
				ops = append(ops, op{create: d})
			}
			if len(e.rep.Skills) < maxListed {
				e.rep.Skills = append(e.rep.Skills, change)
			} else {
				e.rep.Omitted++
			}
		}
	}
	if e.dry || len(ops) == 0 {
		e.rep.Changed = len(ops)
		return nil
	}
	tx, err := e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i, o := range ops {
		if i == len(ops)/2 {
			if err := e.midApply(ctx); err != nil {
				return err
			}
		}
		if o.create != nil {
			if err := tx.Create(o.create); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.Patch(dreamlog.OpUpdate, o.old, o.patch); err != nil {
			return err
		}
	}
	e.rep.Changed = tx.Changes()
	return tx.Commit()
}

// maxSkillCases bounds the cases of one agent that are clustered (the
// best quality first): average linkage is cubic in it.
const maxSkillCases = 1000

// clusterCases is average-linkage agglomerative clustering: start from one
// cluster per case and repeatedly merge the two clusters whose cases are,
// on average over every pair across them, the most similar, while that
// average is at least thr. A centroid would drift towards the mean of all
// cases and swallow everything; the average over pairs does not.
func clusterCases(cases []*skillCase, thr float64) []*skillCluster {
	sort.SliceStable(cases, func(i, j int) bool {
		a, b := cases[i], cases[j]
		if a.quality != b.quality {
			return a.quality > b.quality
		}
		if !a.d.CreatedAt.Equal(b.d.CreatedAt) {
			return a.d.CreatedAt.Before(b.d.CreatedAt)
		}
		return a.d.ID < b.d.ID
	})
	if len(cases) > maxSkillCases {
		cases = cases[:maxSkillCases]
	}
	n := len(cases)
	// sum[i][j]: summed similarity between clusters i and j (i != j).
	sum := make([][]float64, n)
	for i := range sum {
		sum[i] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			c := float64(embed.Dot(cases[i].vec, cases[j].vec))
			sum[i][j], sum[j][i] = c, c
		}
	}
	members := make([][]int, n)
	alive := make([]bool, n)
	for i := range members {
		members[i], alive[i] = []int{i}, true
	}
	for {
		bi, bj, best := -1, -1, thr
		for i := 0; i < n; i++ {
			if !alive[i] {
				continue
			}
			for j := i + 1; j < n; j++ {
				if !alive[j] {
					continue
				}
				if avg := sum[i][j] / float64(len(members[i])*len(members[j])); avg >= best {
					bi, bj, best = i, j, avg
				}
			}
		}
		if bi < 0 {
			break
		}
		members[bi] = append(members[bi], members[bj]...)
		alive[bj] = false
		for k := 0; k < n; k++ {
			if alive[k] && k != bi {
				sum[bi][k] += sum[bj][k]
				sum[k][bi] = sum[bi][k]
			}
		}
	}
	var out []*skillCluster
	for i := 0; i < n; i++ {
		if !alive[i] {
			continue
		}
		sort.Ints(members[i]) // best quality first, as sorted above
		cl := &skillCluster{sum: make([]float32, len(cases[i].vec))}
		for _, m := range members[i] {
			cl.cases = append(cl.cases, cases[m])
			for d, x := range cases[m].vec {
				cl.sum[d] += x
			}
		}
		out = append(out, cl)
	}
	return out
}

func cosineToSum(v, sum []float32) float64 {
	var n float64
	for _, x := range sum {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return 0
	}
	return float64(embed.Dot(v, sum)) / math.Sqrt(n)
}

type skillDraft struct {
	agent, name, description, content, room string
	confidence, maturity                    float64
	sources                                 []string
	ts                                      time.Time
	cases                                   []*skillCase
}

func draftSkill(agent string, cl *skillCluster) *skillDraft {
	s := &skillDraft{agent: agent, cases: cl.cases}
	var q, coh float64
	rooms := map[string]int{}
	freq := map[string]int{}
	for _, c := range cl.cases {
		q += c.quality
		coh += cosineToSum(c.vec, cl.sum)
		rooms[c.d.Room]++
		s.sources = append(s.sources, c.d.ID)
		if c.d.Timestamp.After(s.ts) {
			s.ts = c.d.Timestamp
		}
		for _, w := range contentWords(c.intent) {
			if len(w) >= 3 && !hasDigit(w) {
				freq[w]++
			}
		}
	}
	n := float64(len(cl.cases))
	q /= n
	s.confidence = round3(min(1, max(0, coh/n)))
	s.maturity = round3((1 - math.Exp(-n/4)) * (0.5 + 0.5*q))
	sort.Strings(s.sources)
	for r, k := range rooms {
		if k > rooms[s.room] || (k == rooms[s.room] && r < s.room) {
			s.room = r
		}
	}
	type wf struct {
		w string
		n int
	}
	var ws []wf
	for w, k := range freq {
		ws = append(ws, wf{w, k})
	}
	sort.Slice(ws, func(i, j int) bool {
		if ws[i].n != ws[j].n {
			return ws[i].n > ws[j].n
		}
		return ws[i].w < ws[j].w
	})
	var parts []string
	for i := 0; i < len(ws) && i < 3; i++ {
		parts = append(parts, ws[i].w)
	}
	s.rename(strings.Join(parts, "-"))
	return s
}

// rename sets the skill's name and rebuilds the texts that mention it.
func (s *skillDraft) rename(name string) {
	if name == "" {
		name = "skill"
	}
	s.name = name
	best := s.cases[0]
	s.description = fmt.Sprintf("Distilled from %d cases: %s", len(s.cases), best.intent)
	var b strings.Builder
	fmt.Fprintf(&b, "Skill: %s\nWhen to use: %s\n", s.name, best.intent)
	if ap, _ := best.d.Meta["approach"].(string); ap != "" {
		fmt.Fprintf(&b, "How (best case, quality %.2f): %s\n", best.quality, ap)
	} else {
		fmt.Fprintf(&b, "Best case (quality %.2f): %s\n", best.quality, best.d.Content)
	}
	var insights []string
	for _, c := range s.cases {
		if in, _ := c.d.Meta["key_insight"].(string); strings.TrimSpace(in) != "" && len(insights) < 5 {
			insights = append(insights, "- "+strings.TrimSpace(in))
		}
	}
	if len(insights) > 0 {
		b.WriteString("Key insights:\n" + strings.Join(insights, "\n") + "\n")
	}
	var also []string
	for _, c := range s.cases[1:] {
		if ap, _ := c.d.Meta["approach"].(string); ap != "" && len(also) < 4 {
			also = append(also, fmt.Sprintf("- %s (quality %.2f)", ap, c.quality))
		}
	}
	if len(also) > 0 {
		b.WriteString("Also seen:\n" + strings.Join(also, "\n") + "\n")
	}
	fmt.Fprintf(&b, "Built from %d cases.", len(s.cases))
	s.content = b.String()
}

func (s *skillDraft) meta() map[string]any {
	src := make([]any, len(s.sources))
	for i, id := range s.sources {
		src[i] = id
	}
	return map[string]any{
		"name": s.name, "description": s.description, "content": s.content,
		"confidence": s.confidence, "maturity_score": s.maturity, metaSources: src,
		metaCreatedBy: "dreamer",
	}
}

func (s *skillDraft) drawer() *palace.Drawer {
	return &palace.Drawer{Kind: palace.KindAgentSkill, AgentID: s.agent, Content: s.content, Room: s.room,
		Confidence: max(s.confidence, 0.001), Timestamp: s.ts, Meta: s.meta()}
}

// matchSkill finds the unused existing skill sharing the most sources
// (Jaccard at least 0.3).
func matchSkill(skills []*palace.Drawer, sources []string, used map[string]bool) *palace.Drawer {
	set := map[string]bool{}
	for _, s := range sources {
		set[s] = true
	}
	var best *palace.Drawer
	bestJ := 0.3
	for _, sk := range skills {
		if used[sk.ID] {
			continue
		}
		list, _ := sk.Meta[metaSources].([]any)
		inter := 0
		for _, x := range list {
			if id, _ := x.(string); set[id] {
				inter++
			}
		}
		union := len(set) + len(list) - inter
		if union == 0 {
			continue
		}
		if j := float64(inter) / float64(union); j >= bestJ {
			best, bestJ = sk, j
		}
	}
	return best
}

func sameSources(v any, sources []string) bool {
	list, _ := v.([]any)
	if len(list) != len(sources) {
		return false
	}
	for i, x := range list {
		if s, _ := x.(string); s != sources[i] {
			return false
		}
	}
	return true
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
