package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	hooks "github.com/loci-mem/loci/cmd/loci/claudecode"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/facts"
)

func init() {
	commands["harvest"] = command{"extract candidate facts from Claude Code transcripts into the review queue", cli(harvestCmd)}
}

// maxTranscriptBytes bounds one transcript file.
const maxTranscriptBytes = 256 << 20

type harvestFile struct {
	Path       string `json:"path"`
	Messages   int    `json:"messages"`
	Candidates int    `json:"candidates"`
}

type harvestCandidate struct {
	File       string  `json:"file"`
	Fact       string  `json:"fact"`
	Kind       string  `json:"kind"`
	Confidence float64 `json:"confidence"`
	Source     string  `json:"source,omitempty"`
	// Filled when staged (not in --dry-run).
	Outcome string      `json:"outcome,omitempty"`
	Staged  *facts.Fact `json:"staged,omitempty"`
}

// harvestCmd is `loci harvest TRANSCRIPT... [--min-confidence C] [--dry-run]`:
// the user's and assistant's text turns of each Claude Code JSONL
// transcript go through the fact extractor; candidates at or above
// --min-confidence are staged for review (never auto-promoted: harvested
// facts always wait for a person). Every file is read and checked before
// anything is staged.
func harvestCmd(ctx context.Context, env *cliEnv, args []string) (*result, error) {
	flags := flag.NewFlagSet("harvest", flag.ContinueOnError)
	var c commonFlags
	c.register(flags)
	minConf := flags.Float64("min-confidence", 0.5, "stage only candidates with at least this confidence (0-1)")
	dryRun := flags.Bool("dry-run", false, "list the candidates without staging them")
	pos, err := parseFlags(env, flags, args)
	if err != nil {
		return nil, err
	}
	if len(pos) == 0 {
		return nil, invalidArgs("missing TRANSCRIPT", "Use `loci harvest ~/.claude/projects/<project>/<session>.jsonl`")
	}
	if !(*minConf >= 0 && *minConf <= 1) {
		return nil, &cliError{Type: "invalid_args", Message: fmt.Sprintf("--min-confidence must be between 0 and 1, got %v", *minConf),
			Detail: map[string]any{"flag": "min-confidence"}}
	}
	ex, err := extract.FromEnv() // the LLM extractor when LOCI_LLM_* is set
	if err != nil {
		return nil, &cliError{Type: "invalid_args", Message: err.Error(), Hint: "Fix LOCI_LLM_BASE_URL / LOCI_LLM_MODEL, or unset both"}
	}
	files := make([]harvestFile, 0, len(pos))
	var cands []harvestCandidate
	below := 0
	for _, path := range uniqueArgs(pos) {
		msgs, err := readTranscript(path)
		if err != nil {
			return nil, err
		}
		found, err := ex.Facts(ctx, msgs)
		if err != nil {
			return nil, fmt.Errorf("extract facts from %s: %w", path, err)
		}
		hf := harvestFile{Path: path, Messages: len(msgs)}
		for _, f := range found {
			if f.Confidence < *minConf {
				below++
				continue
			}
			kind, err := facts.CheckKind(f.Kind)
			if err != nil {
				kind = facts.DefaultKind
			}
			cands = append(cands, harvestCandidate{File: path, Fact: f.Text, Kind: kind, Confidence: f.Confidence, Source: f.Source})
			hf.Candidates++
		}
		files = append(files, hf)
		env.progress("harvest: %s: %d messages, %d candidate facts", path, hf.Messages, hf.Candidates)
	}
	data := map[string]any{"files": files, "below_min_confidence": below, "dry_run": *dryRun, "extractor": ex.Name()}
	counts := map[string]int{}
	if !*dryRun && len(cands) > 0 {
		p, _, done, err := cliPalace(ctx, env, c, true)
		if err != nil {
			return nil, err
		}
		defer done()
		data["palace"] = p.Name()
		for i := range cands {
			if err := ctx.Err(); err != nil {
				return nil, err // interrupted: what is staged so far stays
			}
			cd := &cands[i]
			r, err := facts.Of(p).Stage(ctx, facts.Input{Text: cd.Fact, Kind: cd.Kind, Confidence: cd.Confidence,
				Source: "harvest:" + filepath.Base(cd.File) + "#" + cd.Source, NoAutoPromote: true})
			if errors.Is(err, palace.ErrInvalid) {
				cd.Outcome = "skipped: " + err.Error()
				counts["skipped"]++
				continue
			}
			if err != nil {
				return nil, err
			}
			cd.Outcome, cd.Staged = r.Outcome, &r.Fact
			counts[r.Outcome]++
		}
	}
	if cands == nil {
		cands = []harvestCandidate{}
	}
	data["candidates"] = cands
	data["outcomes"] = counts
	return &result{data: data, count: countOf(len(cands)), text: func(w io.Writer) {
		for _, cd := range cands {
			switch {
			case cd.Staged != nil:
				r := facts.StageResult{Outcome: cd.Outcome, Fact: *cd.Staged}
				fmt.Fprintln(w, r.Line())
			case cd.Outcome != "":
				fmt.Fprintf(w, "%s: [%s] %s\n", cd.Outcome, cd.Kind, oneLineText(cd.Fact))
			default:
				fmt.Fprintf(w, "candidate [%s] %s  (%.2f)\n", cd.Kind, oneLineText(cd.Fact), cd.Confidence)
			}
		}
		if len(cands) == 0 {
			fmt.Fprintln(w, "no candidate facts found")
		}
	}}, nil
}

// readTranscript reads a Claude Code transcript and returns its user
// prompts and assistant text replies as extractor messages (tool calls,
// tool results, thinking and side chains are left out by the hooks'
// parser).
func readTranscript(path string) ([]extract.Message, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &cliError{Type: "not_found", Message: "transcript " + path + " does not exist",
			Hint: "Claude Code keeps transcripts in ~/.claude/projects/<project>/*.jsonl", Detail: map[string]any{"path": path}}
	case err != nil:
		return nil, &cliError{Type: "io", Message: err.Error(), Detail: map[string]any{"path": path}}
	case st.IsDir():
		return nil, &cliError{Type: "invalid_args", Message: path + " is a directory, not a transcript",
			Hint: "Pass the .jsonl files, e.g. `loci harvest dir/*.jsonl`", Detail: map[string]any{"path": path}}
	case st.Size() > maxTranscriptBytes:
		return nil, &cliError{Type: "invalid_args", Message: fmt.Sprintf("transcript %s is %d bytes; the limit is %d", path, st.Size(), maxTranscriptBytes),
			Detail: map[string]any{"path": path}}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &cliError{Type: "io", Message: err.Error(), Detail: map[string]any{"path": path}}
	}
	entries, _ := hooks.ParseTranscript(data)
	if len(entries) == 0 && len(data) > 0 {
		return nil, &cliError{Type: "invalid_args", Message: path + " is not a Claude Code transcript (no JSON lines)",
			Detail: map[string]any{"path": path}}
	}
	msgs := []extract.Message{}
	for _, e := range entries {
		switch e.Kind {
		case hooks.KindPrompt:
			msgs = append(msgs, extract.Message{ID: e.UUID, Role: "user", Text: e.Text, Timestamp: e.Time})
		case hooks.KindReply:
			msgs = append(msgs, extract.Message{ID: e.UUID, Role: "assistant", Text: e.Text, Timestamp: e.Time})
		}
	}
	return msgs, nil
}
