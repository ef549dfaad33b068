package server

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/extract"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/mark3labs/mcp-go/mcp"
)

// Helpers shared by the seed 000 (mem_*) and seed 004 (remember, recall)
// tools. Unlike the seed 003 tools, their failures are tool results with
// isError: true, and every text they return is redacted here as well as in
// the stdio loop, because the HTTP transports do not pass through it.

// textResult is a successful tool result carrying text, redacted.
func textResult(text string) *mcp.CallToolResult {
	return mcp.NewToolResultText(redactString(text))
}

// jsonTextResult marshals v as the result's text, redacted.
func (s *Server) jsonTextResult(tool string, v any) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return s.errorResult(tool, err)
	}
	return textResult(string(b))
}

// errorResult turns any failure into an isError result whose text says
// what went wrong; store internals are logged, not shown.
func (s *Server) errorResult(tool string, err error) *mcp.CallToolResult {
	msg := s.toolFailure(tool, err).Error()
	return mcp.NewToolResultError(redactString(msg))
}

// rawTool adapts a handler returning (result, error) to a raw tool whose
// errors become isError results.
func (s *Server) rawTool(name string, fn func(ctx context.Context, a *args) (*mcp.CallToolResult, error)) func(ctx context.Context, a *args) (*mcp.CallToolResult, error) {
	return func(ctx context.Context, a *args) (*mcp.CallToolResult, error) {
		res, err := fn(ctx, a)
		if err != nil {
			return s.errorResult(name, err), nil
		}
		return res, nil
	}
}

// markdownTool is a seed 000 read tool: it takes a required query and an
// optional topK, and answers what render makes of them as raw markdown.
func (s *Server) markdownTool(name, description, schema string,
	render func(ctx context.Context, p *palace.Palace, query string, k int) (string, error)) tool {
	return tool{name: name, description: description, schema: schema,
		raw: s.rawTool(name, func(ctx context.Context, a *args) (*mcp.CallToolResult, error) {
			query, err := a.str("query", true)
			if err != nil {
				return nil, err
			}
			k, err := s.topK(a)
			if err != nil {
				return nil, err
			}
			p, err := s.openPalace(ctx, a)
			if err != nil {
				return nil, err
			}
			md, err := render(ctx, p, query, k)
			if err != nil {
				return nil, err
			}
			return textResult(md), nil
		})}
}

// settings reads the configured settings (config file and environment).
func (s *Server) settings(a *args) (palace.Settings, error) {
	st, err := s.reg.Settings()
	if err != nil {
		return st, a.errf("configuration: %s", err.Error())
	}
	return st, nil
}

// topK reads a seed 000 topK argument (also accepted as top_k): the
// configured default when absent or not positive, at most palace.MaxTopK.
func (s *Server) topK(a *args) (int, error) {
	st, err := s.settings(a)
	if err != nil {
		return 0, err
	}
	name := "topK"
	if !a.has("topK") && a.has("top_k") {
		name = "top_k"
	}
	k, err := a.integer(name, st.TopK, -1<<31, 1<<31)
	if err != nil {
		return 0, err
	}
	if k <= 0 {
		k = st.TopK
	}
	return min(k, palace.MaxTopK), nil
}

// factExtractor is the extractor mem_save_fact uses: the registry's
// (the LLM one when LOCI_LLM_* is set, else the heuristic one).
func (s *Server) factExtractor() extract.Extractor { return s.reg.Extractor() }

// kindsDescription lists the fact kinds with their tiers for schemas.
func kindsDescription() string {
	parts := make([]string, 0, len(facts.Kinds))
	for _, k := range facts.Kinds {
		tier := "tier 1, may auto-promote"
		if k.Tier == 3 {
			tier = "tier 3, always reviewed"
		}
		parts = append(parts, k.Name+" ("+strings.ToLower(k.Description)+"; "+tier+")")
	}
	return strings.Join(parts, "; ")
}
