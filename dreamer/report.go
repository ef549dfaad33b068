package dreamer

import (
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
)

// Report is what a run did (or, for a dry run, would do).
type Report struct {
	RunID      string       `json:"run_id,omitempty"` // empty for a dry run
	Palace     string       `json:"palace"`
	DryRun     bool         `json:"dry_run"`
	Trigger    string       `json:"trigger"`
	Status     string       `json:"status"` // done, partial, cancelled or failed
	StartedAt  time.Time    `json:"started_at"`
	FinishedAt time.Time    `json:"finished_at"`
	Changes    int          `json:"changes"` // drawer changes recorded (undoable)
	Before     Counts       `json:"before"`
	After      Counts       `json:"after"`
	Passes     []PassReport `json:"passes"`
}

// Counts are drawer counts by status.
type Counts struct {
	Total    int64            `json:"total"`
	ByStatus map[string]int64 `json:"by_status"`
}

// Statuses of a pass.
const (
	PassOK        = "ok"
	PassPartial   = "partial"   // the budget ran out; what was planned was committed
	PassSkipped   = "skipped"   // not run (budget spent, nothing to do, not configured)
	PassCancelled = "cancelled" // the run was cancelled; nothing of this pass was committed
	PassFailed    = "failed"
)

// maxListed bounds the item lists of a pass report; Omitted counts the
// rest.
const maxListed = 100

// PassReport is one pass's part of a Report. Only the fields of that pass
// are set.
type PassReport struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Note     string `json:"note,omitempty"`
	TookMS   int64  `json:"took_ms"`
	Examined int    `json:"examined"` // drawers (or triples) looked at
	Changed  int    `json:"changed"`  // changes committed (would be, in a dry run)
	Omitted  int    `json:"omitted,omitempty"`

	Merges  []Merge        `json:"merges,omitempty"`  // dedup
	Decay   *DecaySummary  `json:"decay,omitempty"`   // decay
	Stale   []StaleFact    `json:"stale,omitempty"`   // stale
	Closets []ClosetChange `json:"closets,omitempty"` // closets
	Skills  []SkillChange  `json:"skills,omitempty"`  // skills
	Index   *IndexSummary  `json:"index,omitempty"`   // index
	KG      *KGSummary     `json:"kg,omitempty"`      // kg
}

// Merge is one near-duplicate linked to its survivor.
type Merge struct {
	Survivor  string  `json:"survivor"`
	Duplicate string  `json:"duplicate"`
	Kind      string  `json:"kind"`
	Cosine    float64 `json:"cosine"`
	Overlap   float64 `json:"text_overlap"`
}

// DecaySummary sums up the decay pass.
type DecaySummary struct {
	Decayed  int     `json:"decayed"`  // importance lowered
	Restored int     `json:"restored"` // importance raised back (access, pinning, new base)
	Pinned   int     `json:"pinned"`   // exempt
	MeanDrop float64 `json:"mean_drop"`
}

// StaleFact is a fact the staleness pass marked stale.
type StaleFact struct {
	DrawerID    string    `json:"drawer_id"`
	EngramID    string    `json:"engram_id,omitempty"`
	ConfirmedAt time.Time `json:"confirmed_at"`
}

// ClosetChange is one room's refreshed closet.
type ClosetChange struct {
	Room     string   `json:"room"`
	Drawers  int      `json:"drawers"`
	Keywords []string `json:"keywords"`
	Changed  bool     `json:"changed"`
}

// SkillChange is one agent skill created or updated.
type SkillChange struct {
	ID            string   `json:"id"`
	AgentID       string   `json:"agent_id"`
	Name          string   `json:"name"`
	Action        string   `json:"action"` // created | updated
	Cases         int      `json:"cases"`
	Maturity      float64  `json:"maturity_score"`
	SourceCaseIDs []string `json:"source_case_ids"`
}

// IndexSummary sums up the index pass.
type IndexSummary struct {
	Before     palace.IndexHealth `json:"before"`
	Reembedded int                `json:"reembedded"`
	Rebuilt    bool               `json:"rebuilt"`
	Vectors    int                `json:"vectors"` // live index entries afterwards
	Saved      bool               `json:"snapshot_saved"`
}

// KGSummary sums up the knowledge-graph pass.
type KGSummary struct {
	Merged int              `json:"merged"` // identical active triples folded into one
	Churn  []kg.ChurnReport `json:"churn"`  // subjects whose objects keep changing
}
