package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/facts"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"
)

// Name is the server name reported in the MCP handshake.
const Name = "loci"

// Config configures a Server.
type Config struct {
	Registry *palace.Registry
	// DefaultPalace, when set, is used by every tool call that omits
	// 'palace', and 'palace' is no longer required in the tool schemas.
	DefaultPalace string
	Version       string
	Logger        zerolog.Logger
	// ToolDelay delays every tool call; only tests set it (through
	// LOCI_DEBUG_TOOL_DELAY_MS) to observe shutdown during a slow call.
	ToolDelay time.Duration
	// MaxContentChars bounds the content of each drawer memory_recall,
	// memory_recall_deep and memory_list return, for calls that do not
	// give max_content_chars (clip.go); 0, the default, returns it whole.
	MaxContentChars int
}

// Server is loci's MCP server: the tool table and the resources, bound to
// a palace registry. Every transport dispatches through it (dispatch.go):
// the stdio loop, and the HTTP transports of mcp-go mounted by the
// companion (mcp_http.go).
type Server struct {
	cfg   Config
	reg   *palace.Registry
	log   zerolog.Logger
	tools map[string]*tool

	// toolsList, resourcesList and templatesList are the encoded results
	// of the list methods: they never change.
	toolsList, resourcesList, templatesList json.RawMessage

	mcp      *mcpserver.MCPServer // what the HTTP transports run on (mcp_http.go)
	sessions sessionSet           // the sessions mcp-go has open
	observer atomic.Pointer[ToolObserver]

	handshake     chan struct{} // closed once an initialize is answered
	handshakeOnce sync.Once
}

// ToolObserver is told of every finished tool call (the companion's
// metrics).
type ToolObserver func(tool string, failed bool, took time.Duration)

// New builds the server and its tool table.
func New(cfg Config) (*Server, error) {
	if cfg.Registry == nil {
		return nil, errors.New("server: nil registry")
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{cfg: cfg, reg: cfg.Registry, log: cfg.Logger, tools: map[string]*tool{}, handshake: make(chan struct{})}
	var listed []mcp.Tool
	for _, t := range toolset() {
		s.tools[t.name] = t
		schema := schemaJSON(t.params, t.face == rpcErrors && cfg.DefaultPalace == "")
		listed = append(listed, mcp.Tool{Name: t.name, Description: t.description, RawInputSchema: schema})
	}
	slices.SortFunc(listed, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	var err error
	if s.toolsList, err = json.Marshal(mcp.ListToolsResult{Tools: listed}); err != nil {
		return nil, fmt.Errorf("server: encode tools/list: %w", err)
	}
	if s.resourcesList, err = json.Marshal(mcp.ListResourcesResult{Resources: resourceList()}); err != nil {
		return nil, fmt.Errorf("server: encode resources/list: %w", err)
	}
	if s.templatesList, err = json.Marshal(mcp.ListResourceTemplatesResult{ResourceTemplates: templateList()}); err != nil {
		return nil, fmt.Errorf("server: encode resources/templates/list: %w", err)
	}
	s.mcp = s.newMCPServer(listed)
	return s, nil
}

// Handshaken is closed once the server has answered its first
// initialize request over stdio: work that can wait (loading indexes)
// waits for it, so that it never delays the handshake a host times.
func (s *Server) Handshaken() <-chan struct{} { return s.handshake }

// ObserveTools sets the function told of every tool call.
func (s *Server) ObserveTools(fn ToolObserver) { s.observer.Store(&fn) }

// ToolNames lists the tools, sorted.
func (s *Server) ToolNames() []string {
	out := make([]string, 0, len(s.tools))
	for n := range s.tools {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (s *Server) instructions() string {
	msg := "loci is a local long-term memory. Use memory_recall before answering questions about past work, " +
		"memory_remember to store durable facts, decisions and preferences, and kg_assert/kg_query for facts " +
		"that change over time."
	if s.cfg.DefaultPalace != "" {
		msg += " The default palace is " + s.cfg.DefaultPalace + "; the palace argument may be omitted."
	}
	return msg
}

// openPalace opens the palace a call targets: name, else the server's
// default (created on demand; any other palace must exist).
func (s *Server) openPalace(ctx context.Context, name string) (*palace.Palace, error) {
	if name == "" {
		if s.cfg.DefaultPalace == "" {
			return nil, argErrorf("missing 'palace' (no --palace default configured)")
		}
		name = s.cfg.DefaultPalace
	}
	if err := palace.ValidateName(name); err != nil {
		return nil, err
	}
	var p *palace.Palace
	var err error
	if name == s.cfg.DefaultPalace {
		p, err = s.reg.OpenOrCreate(ctx, name)
	} else {
		p, err = s.reg.Open(ctx, name)
	}
	if errors.Is(err, palace.ErrNotFound) {
		return nil, palace.NotFoundf("palace %q does not exist (create it with palace_create)", name)
	}
	return p, err
}

// settings reads the configured settings (config file and environment).
func (s *Server) settings() (palace.Settings, error) {
	st, err := s.reg.Settings()
	if err != nil {
		return st, argErrorf("configuration: %s", err.Error())
	}
	return st, nil
}

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
