package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
// or query, and topK or top_k. mcp-go's template matching loses parameters
// given in another order than the template's, so loci parses the URI
// itself: the stdio loop hands resources/read for the mem:// and memory://
// schemes straight to readResource, and the handlers registered with
// mcp-go (used by the HTTP transports and for listing) call it with the
// request's full URI. Failures are JSON-RPC errors (seed 000).

// JSON-RPC error code for a resource that does not exist (MCP).
const codeResourceNotFound = -32002

const markdownMIME = "text/markdown"

// resourceError is a failed resources/read with its JSON-RPC code.
type resourceError struct {
	code int
	msg  string
}

func (e *resourceError) Error() string { return e.msg }

func resourceInvalid(format string, a ...any) *resourceError {
	return &resourceError{code: codeInvalidParams, msg: fmt.Sprintf(format, a...)}
}

// registerResources lists the resources and the search template with
// mcp-go, which then advertises the resources capability.
func (s *Server) registerResources() {
	handler := func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		c, err := s.readResource(ctx, req.Params.URI)
		if err != nil {
			return nil, err
		}
		return []mcp.ResourceContents{c}, nil
	}
	s.mcp.AddResource(mcp.NewResource("mem://profile", "profile",
		mcp.WithResourceDescription("The user's profile and promoted facts, then their most important memories: a read-side mem_context."),
		mcp.WithMIMEType(markdownMIME)), handler)
	s.mcp.AddResource(mcp.NewResource("memory://recall", "recall",
		mcp.WithResourceDescription("The user's promoted memories as a ready-made block to attach to a system prompt."),
		mcp.WithMIMEType(markdownMIME)), handler)
	s.mcp.AddResourceTemplate(mcp.NewResourceTemplate("mem://search{?q,topK}", "search",
		mcp.WithTemplateDescription("Search the user's memories, like mem_search. q (or query) is required; topK (or top_k) defaults to the configured top_k or 5, at most 50."),
		mcp.WithTemplateMIMEType(markdownMIME)), handler)
}

// isLociResourceURI reports whether uri belongs to loci's own schemes.
func isLociResourceURI(uri string) bool {
	return strings.HasPrefix(uri, "mem://") || strings.HasPrefix(uri, "memory://")
}

// readResource reads one loci resource.
func (s *Server) readResource(ctx context.Context, uri string) (mcp.TextResourceContents, error) {
	// The URI is echoed back: redact it like the text (a query can carry a
	// secret).
	out := mcp.TextResourceContents{URI: redactString(uri), MIMEType: markdownMIME}
	if strings.TrimSpace(uri) == "" {
		return out, resourceInvalid("resources/read needs params.uri")
	}
	u, err := url.Parse(uri)
	if err != nil {
		return out, resourceInvalid("malformed resource URI %q: %v", oneLine(uri, 200), errors.Unwrap(err))
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return out, resourceInvalid("malformed query in resource URI %q: %v", oneLine(uri, 200), err)
	}
	path := strings.TrimSuffix(u.Path, "/")
	var md string
	switch {
	case u.Scheme == "mem" && u.Host == "profile" && path == "":
		p, err := s.resourcePalace(ctx, q)
		if err != nil {
			return out, err
		}
		if md, err = renderProfile(ctx, p); err != nil {
			return out, s.resourceFailure(uri, err)
		}
	case u.Scheme == "mem" && u.Host == "search" && path == "":
		query := firstParam(q, "q", "query")
		if strings.TrimSpace(query) == "" {
			return out, resourceInvalid("mem://search needs a non-empty q (or query) parameter, e.g. mem://search?q=deploy&topK=5")
		}
		k, err := s.resourceTopK(q)
		if err != nil {
			return out, err
		}
		p, err := s.resourcePalace(ctx, q)
		if err != nil {
			return out, err
		}
		if md, err = renderSearch(ctx, p, query, k); err != nil {
			return out, s.resourceFailure(uri, err)
		}
	case u.Scheme == "memory" && u.Host == "recall" && path == "":
		p, err := s.resourcePalace(ctx, q)
		if err != nil {
			return out, err
		}
		facts, err := facts.Of(p).Recall(ctx, "", 200)
		if err != nil {
			return out, s.resourceFailure(uri, err)
		}
		md = renderRecallBlock(facts)
	default:
		return out, &resourceError{code: codeResourceNotFound, msg: "Resource not found: " + oneLine(uri, 200) +
			" (loci serves mem://profile, mem://search?q={query}&topK={topK} and memory://recall)"}
	}
	out.Text = redactString(md)
	return out, nil
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
	st, err := s.reg.Settings()
	if err != nil {
		return 0, &resourceError{code: codeInternalError, msg: "configuration: " + err.Error()}
	}
	raw := firstParam(q, "topK", "top_k")
	if strings.TrimSpace(raw) == "" {
		return st.TopK, nil
	}
	k, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil {
		return 0, resourceInvalid("topK must be an integer, got %q", oneLine(raw, 40))
	}
	if k <= 0 {
		return st.TopK, nil
	}
	return min(k, palace.MaxTopK), nil
}

// resourcePalace opens the palace a resource reads: ?palace=, else the
// server's default (created on demand, as for tools).
func (s *Server) resourcePalace(ctx context.Context, q url.Values) (*palace.Palace, error) {
	name := firstParam(q, "palace")
	if name == "" {
		name = s.cfg.DefaultPalace
	}
	if name == "" {
		return nil, resourceInvalid("no palace: start loci serve with --palace NAME or add ?palace=NAME to the URI")
	}
	if err := palace.ValidateName(name); err != nil {
		return nil, resourceInvalid("%s", err.Error())
	}
	var p *palace.Palace
	var err error
	if name == s.cfg.DefaultPalace {
		p, err = s.reg.OpenOrCreate(ctx, name)
	} else {
		p, err = s.reg.Open(ctx, name)
	}
	if errors.Is(err, palace.ErrNotFound) {
		return nil, &resourceError{code: codeResourceNotFound, msg: fmt.Sprintf("palace %q does not exist", name)}
	}
	if err != nil {
		return nil, s.resourceFailure("palace "+name, err)
	}
	return p, nil
}

// resourceFailure maps a store error to a resource error: bad input is
// invalid params, anything else internal (logged, shown without detail).
func (s *Server) resourceFailure(what string, err error) error {
	var pe *palace.Error
	if errors.As(err, &pe) {
		switch pe.Code {
		case palace.CodeInvalid:
			return resourceInvalid("%s", pe.Message)
		case palace.CodeNotFound:
			return &resourceError{code: codeResourceNotFound, msg: pe.Message}
		}
	}
	s.log.Error().Err(err).Str("resource", what).Msg("resource read failed")
	return &resourceError{code: codeInternalError, msg: "internal error reading " + oneLine(what, 200)}
}

// interceptResourceRead answers resources/read for loci's schemes itself
// (see the comment at the top of this file). It reports false for any
// other request, which then goes to mcp-go.
func (s *Server) interceptResourceRead(ctx context.Context, env envelope) (any, bool) {
	if env.Method != "resources/read" {
		return nil, false
	}
	var params struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(env.Params, &params); err != nil {
		return nil, false
	}
	if strings.TrimSpace(params.URI) == "" {
		return errorResponse(env.ID, codeInvalidParams, "Invalid params: resources/read needs params.uri"), true
	}
	if !isLociResourceURI(params.URI) {
		return nil, false
	}
	c, err := s.readResource(ctx, params.URI)
	if err != nil {
		var re *resourceError
		if !errors.As(err, &re) {
			re = &resourceError{code: codeInternalError, msg: "internal error"}
		}
		return errorResponse(env.ID, re.code, redactString(re.msg)), true
	}
	result, _ := json.Marshal(mcp.ReadResourceResult{Contents: []mcp.ResourceContents{c}})
	return response{JSONRPC: "2.0", ID: env.ID, Result: result}, true
}
