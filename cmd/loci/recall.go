package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
)

func init() {
	commands["recall"] = command{"recall promoted facts (or, with --all, every memory) ranked by a query", cli(recallCmd)}
}

type recallFact struct {
	ID         string  `json:"id"`
	Fact       string  `json:"fact"`
	Kind       string  `json:"kind"`
	Confidence float64 `json:"confidence"`
}

type recallMemory struct {
	ID         string   `json:"id"`
	Content    string   `json:"content"`
	Kind       string   `json:"kind"`
	Room       string   `json:"room"`
	Tags       []string `json:"tags"`
	Score      float64  `json:"score"`
	Layer      int      `json:"layer"`
	Importance float64  `json:"importance"`
	Timestamp  string   `json:"timestamp"`
	// Session and Speaker are the conversation the memory belongs to and
	// who said it, where it has them, as memory_recall gives them.
	Session string `json:"session,omitempty"`
	Speaker string `json:"speaker,omitempty"`
	// Passage and Excerpt are, for a long memory (indexed in passages),
	// where the best-matching passage lies in content and its text, as
	// memory_recall gives them.
	Passage *palace.Span `json:"passage,omitempty"`
	Excerpt string       `json:"excerpt,omitempty"`
	// ContentTruncated and ContentChars say that Content was cut to
	// --max-content-chars, and its whole length, as memory_recall does.
	ContentTruncated bool   `json:"content_truncated,omitempty"`
	ContentChars     int    `json:"content_chars,omitempty"`
	line             string // what text output shows of it
}

// lineChars is about how much of a memory one line of `loci recall --all`
// text shows: a long memory shows its opening words and the passage that
// matched (palace.Excerpt), never its whole text.
const lineChars = 200

// recallCmd is `loci recall [QUERY...] [--limit N] [--all]`.
func recallCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	fs := flag.NewFlagSet("recall", flag.ContinueOnError)
	var c commonFlags
	c.register(fs)
	limit := fs.Int("limit", 20, "maximum number of results (1-1000)")
	all := fs.Bool("all", false, "search every active memory (notes, episodes, facts...), not only promoted facts")
	maxChars := fs.Int("max-content-chars", 0, "with --all: cut each memory's content in json/yaml output to this many characters, marked content_truncated (default $LOCI_MAX_CONTENT_CHARS, else 0: whole)")
	pos, err := parseFlags(env, fs, args)
	if err != nil {
		return nil, err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if *limit < 1 || *limit > 1000 {
		return nil, &cliError{Type: "invalid_args", Message: fmt.Sprintf("--limit must be between 1 and 1000, got %d", *limit),
			Detail: map[string]any{"flag": "limit"}}
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "max-content-chars" })
	switch {
	case !*all: // facts are one sentence each: nothing to cut
	case given && *maxChars < 0:
		return nil, &cliError{Type: "invalid_args", Message: fmt.Sprintf("--max-content-chars must be 0 or more, got %d", *maxChars),
			Detail: map[string]any{"flag": "max-content-chars"}}
	case !given:
		if *maxChars, err = maxContentChars(); err != nil {
			return nil, &cliError{Type: "invalid_args", Message: err.Error()}
		}
	}
	if *all && query == "" {
		return nil, invalidArgs("--all needs a QUERY", "Use `loci recall --all deploy script`")
	}
	p, _, done, err := cliPalace(ctx, env, c, false)
	if err != nil {
		return nil, err
	}
	defer done()
	// Staged facts are not recallable until approved: say how many wait,
	// so that an empty answer right after `loci remember` explains itself.
	_, pending, err := facts.Of(p).List(ctx, facts.Query{Limit: 1})
	if err != nil {
		return nil, err
	}
	notes := func(w io.Writer, n int) {
		if n == 0 {
			fmt.Fprintf(w, "nothing matched %q in palace %s\n", query, p.Name())
		}
		if pending > 0 {
			fmt.Fprintf(w, "%d staged fact(s) await review and are not recallable yet: `loci review --palace %s` lists them, `loci review approve ID` makes one recallable\n",
				pending, p.Name())
		}
	}
	if *all {
		hits, err := p.Recall(ctx, palace.RecallRequest{Query: query, K: *limit})
		if err != nil {
			return nil, err
		}
		out := make([]recallMemory, 0, len(hits))
		for _, h := range hits {
			d := h.Drawer
			m := recallMemory{ID: d.ID, Content: d.Content, Kind: d.Kind, Room: d.Room, Tags: d.Tags,
				Score: float64(int64(h.Score*10000+0.5)) / 10000, Layer: h.Layer, Importance: d.Importance,
				Timestamp: d.Timestamp.UTC().Format("2006-01-02T15:04:05Z07:00"), Session: d.SessionID, Speaker: palace.SpeakerOf(d)}
			if text, ok := h.Passage.Of(d.Content); ok {
				m.Passage, m.Excerpt = h.Passage, text
			}
			m.line = oneLineText(palace.Excerpt(d.Content, h.Passage, lineChars))
			var whole int
			if m.Content, whole = palace.Clip(d.Content, h.Passage, query, *maxChars); whole > 0 {
				m.ContentTruncated, m.ContentChars = true, whole
			}
			out = append(out, m)
		}
		return &result{data: map[string]any{"query": query, "palace": p.Name(), "results": out, "pending_review": pending}, count: countOf(len(out)),
			text: func(w io.Writer) {
				for _, m := range out {
					fmt.Fprintf(w, "%.2f  %s  [%s/%s] %s\n", m.Score, m.Timestamp[:10], palace.RoomLabel(m.Room), m.Kind, m.line)
				}
				notes(w, len(out))
			}}, nil
	}
	facts, err := facts.Of(p).Recall(ctx, query, *limit)
	if err != nil {
		return nil, err
	}
	out := make([]recallFact, 0, len(facts))
	for _, f := range facts {
		out = append(out, recallFact{ID: f.ID, Fact: f.Fact, Kind: f.Kind, Confidence: f.Confidence})
	}
	return &result{data: map[string]any{"query": query, "palace": p.Name(), "facts": out, "pending_review": pending}, count: countOf(len(out)),
		text: func(w io.Writer) {
			for _, f := range out {
				fmt.Fprintf(w, "%s  [%s] %s  (%.2f)\n", f.ID, f.Kind, oneLineText(f.Fact), f.Confidence)
			}
			notes(w, len(out))
		}}, nil
}
