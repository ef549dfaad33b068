package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/mark3labs/mcp-go/mcp"
)

// Resources: the read-only counterparts of the tools, for hosts that
// expose resources/read to the model but not tools/call.
//
//	mem://profile                       profile, promoted facts, important memories (seed 000)
//	mem://search?q={query}&topK={topK}  search, like mem_search (seed 000)
//	memory://recall                     promoted facts as a system-prompt block (seed 004)
//
// Every URI also takes ?palace=NAME to read another palace than the
// server's default. Parameters may come in any order; mem://search takes q
// or query, and topK or top_k: loci parses the URI itself rather than
// matching the template, which would lose parameters given in another
// order. Failures are JSON-RPC errors (seed 000): -32602 for bad input,
// -32002 for what does not exist, -32603 for an internal failure — on
// every transport.

const markdownMIME = "text/markdown"

// resourceList and templateList are what resources/list and
// resources/templates/list answer.
func resourceList() []mcp.Resource {
	return []mcp.Resource{
		mcp.NewResource("mem://profile", "profile",
			mcp.WithResourceDescription("The user's profile and promoted facts, then their most important memories: a read-side mem_context."),
			mcp.WithMIMEType(markdownMIME)),
		mcp.NewResource("memory://recall", "recall",
			mcp.WithResourceDescription("The user's promoted memories as a ready-made block to attach to a system prompt."),
			mcp.WithMIMEType(markdownMIME)),
	}
}

func templateList() []mcp.ResourceTemplate {
	return []mcp.ResourceTemplate{
		mcp.NewResourceTemplate("mem://search{?q,topK}", "search",
			mcp.WithTemplateDescription("Search the user's memories, like mem_search. q (or query) is required; topK (or top_k) defaults to the configured top_k or 5, at most 50."),
			mcp.WithTemplateMIMEType(markdownMIME)),
	}
}

func resourceInvalid(format string, a ...any) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: palace.Invalidf(format, a...).Error()}
}

// readResource reads one resource; id is the request's, for the log.
func (s *Server) readResource(ctx context.Context, id json.RawMessage, uri string) (mcp.TextResourceContents, *rpcError) {
	out := mcp.TextResourceContents{URI: uri, MIMEType: markdownMIME}
	u, err := url.Parse(uri)
	if err != nil {
		return out, resourceInvalid("malformed resource URI %q: %v", oneLine(uri, 200), errors.Unwrap(err))
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return out, resourceInvalid("malformed query in resource URI %q: %v", oneLine(uri, 200), err)
	}
	what := u.Scheme + "://" + u.Host
	md, err := s.renderResource(ctx, u, q)
	if err != nil {
		return out, s.resourceFailure(what, id, err)
	}
	out.Text = md
	return out, nil
}

// renderResource renders the markdown of a parsed resource URI.
func (s *Server) renderResource(ctx context.Context, u *url.URL, q url.Values) (string, error) {
	path := strings.TrimSuffix(u.Path, "/")
	switch {
	case u.Scheme == "mem" && u.Host == "profile" && path == "":
		p, err := s.resourcePalace(ctx, q)
		if err != nil {
			return "", err
		}
		return renderProfile(ctx, p)
	case u.Scheme == "mem" && u.Host == "search" && path == "":
		query := firstParam(q, "q", "query")
		if strings.TrimSpace(query) == "" {
			return "", resourceInvalid("mem://search needs a non-empty q (or query) parameter, e.g. mem://search?q=deploy&topK=5")
		}
		k, err := s.resourceTopK(q)
		if err != nil {
			return "", err
		}
		p, err := s.resourcePalace(ctx, q)
		if err != nil {
			return "", err
		}
		return renderSearch(ctx, p, query, k)
	case u.Scheme == "memory" && u.Host == "recall" && path == "":
		p, err := s.resourcePalace(ctx, q)
		if err != nil {
			return "", err
		}
		fs, err := facts.Of(p).Recall(ctx, "", 200)
		if err != nil {
			return "", err
		}
		return renderRecallBlock(fs), nil
	}
	return "", &rpcError{Code: codeResourceNotFound, Message: "Resource not found: " + oneLine(u.String(), 200) +
		" (loci serves mem://profile, mem://search?q={query}&topK={topK} and memory://recall)"}
}

func firstParam(q url.Values, names ...string) string {
	for _, n := range names {
		if v, ok := q[n]; ok && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// resourceTopK reads topK (or top_k): the configured default when absent
// or not positive, at most palace.MaxTopK; not an integer is an error.
func (s *Server) resourceTopK(q url.Values) (int, error) {
	st, err := s.settings()
	if err != nil {
		return 0, err
	}
	raw := strings.TrimSpace(firstParam(q, "topK", "top_k"))
	if raw == "" {
		return st.TopK, nil
	}
	k, err := strconv.Atoi(raw)
	if err != nil {
		return 0, resourceInvalid("topK must be an integer, got %q", oneLine(raw, 40))
	}
	return count(k, st.TopK, palace.MaxTopK), nil
}

// resourcePalace opens the palace a resource reads: ?palace=, else the
// server's default. A palace that does not exist is a resource that does
// not exist.
func (s *Server) resourcePalace(ctx context.Context, q url.Values) (*palace.Palace, error) {
	name := firstParam(q, "palace")
	if name == "" && s.cfg.DefaultPalace == "" {
		return nil, resourceInvalid("no palace: start loci serve with --palace NAME or add ?palace=NAME to the URI")
	}
	p, err := s.openPalace(ctx, name)
	if errors.Is(err, palace.ErrNotFound) {
		return nil, palace.NotFoundf("palace %q does not exist", name)
	}
	return p, err
}
