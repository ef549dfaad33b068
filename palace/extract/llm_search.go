package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Retrieval helpers for agentic search and LLM rerank (seed 001). They use
// the same endpoint, validation and retries as extraction.

const rewritePrompt = `A memory search for the query below returned the results listed after it. Propose up to %d short, different search queries that would find memories the first search may have missed (synonyms, sub-questions, the entities involved).
Reply {"queries":[string]}.

Query: %s

Results:
%s`

const rerankPrompt = `Order the numbered memories below by how well they answer the query, most relevant first. Include every number exactly once.
Reply {"order":[number]}.

Query: %s

Memories:
%s`

func numbered(docs []string) string {
	var b strings.Builder
	for i, d := range docs {
		fmt.Fprintf(&b, "%d. %s\n", i+1, clip(d, 600))
	}
	return b.String()
}

// Rewrite proposes up to n follow-up queries for query, given the texts
// the first round found.
func (l *LLMExtractor) Rewrite(ctx context.Context, query string, found []string, n int) ([]string, error) {
	var out struct {
		Queries []string `json:"queries"`
	}
	err := l.ask(ctx, fmt.Sprintf(rewritePrompt, n, query, numbered(found)), &out, func() error {
		if out.Queries == nil {
			return errors.New(`"queries" is missing`)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	qs := []string{}
	for _, q := range out.Queries {
		if q = strings.TrimSpace(q); q != "" && !strings.EqualFold(q, query) && len(qs) < n {
			qs = append(qs, clip(q, 300))
		}
	}
	return qs, nil
}

// Rerank returns the indices of docs ordered by relevance to query. Every
// index appears exactly once.
func (l *LLMExtractor) Rerank(ctx context.Context, query string, docs []string) ([]int, error) {
	if len(docs) < 2 {
		out := make([]int, len(docs))
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	var out struct {
		Order []int `json:"order"`
	}
	err := l.ask(ctx, fmt.Sprintf(rerankPrompt, query, numbered(docs)), &out, func() error {
		seen := make([]bool, len(docs))
		for _, n := range out.Order {
			if n < 1 || n > len(docs) || seen[n-1] {
				return fmt.Errorf("order must list each number from 1 to %d once", len(docs))
			}
			seen[n-1] = true
		}
		if len(out.Order) != len(docs) {
			return fmt.Errorf("order must list each number from 1 to %d once", len(docs))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(out.Order))
	for i, n := range out.Order {
		idx[i] = n - 1
	}
	return idx, nil
}
