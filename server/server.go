package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/redact"
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
}

// Server is loci's MCP server: the tool and resource set, bound to a
// palace registry, dispatched through mcp-go's MCPServer.
type Server struct {
	cfg   Config
	reg   *palace.Registry
	log   zerolog.Logger
	mcp   *mcpserver.MCPServer
	tools map[string]bool
}

// New builds the server and registers every tool.
func New(cfg Config) (*Server, error) {
	if cfg.Registry == nil {
		return nil, errors.New("server: nil registry")
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{cfg: cfg, reg: cfg.Registry, log: cfg.Logger, tools: map[string]bool{}}
	s.mcp = mcpserver.NewMCPServer(Name, cfg.Version,
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithRecovery(),
	)
	for _, t := range s.toolset() {
		s.addTool(t)
	}
	s.registerResources()
	return s, nil
}

// MCP returns the underlying mcp-go server, for the HTTP transports.
func (s *Server) MCP() *mcpserver.MCPServer { return s.mcp }

// ToolNames lists the registered tools, sorted.
func (s *Server) ToolNames() []string {
	out := make([]string, 0, len(s.tools))
	for n := range s.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// tool describes one MCP tool: its name, description, JSON schema (as seed
// 003 prints it, with 'palace' required) and handler.
type tool struct {
	name        string
	description string
	schema      string
	// jsonResult tools return a value marshalled as JSON text; failures
	// are JSON-RPC -32603 errors (seed 003).
	jsonResult func(ctx context.Context, a *args) (any, error)
	// raw tools build their own result (seed 000/004 tools use isError).
	raw func(ctx context.Context, a *args) (*mcp.CallToolResult, error)
}

func (s *Server) addTool(t tool) {
	schema := t.schema
	if s.cfg.DefaultPalace != "" {
		schema = withoutRequired(schema, "palace")
	}
	mt := mcp.NewToolWithRawSchema(t.name, t.description, json.RawMessage(schema))
	s.tools[t.name] = true
	s.mcp.AddTool(mt, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if d := s.cfg.ToolDelay; d > 0 {
			time.Sleep(d)
		}
		a, err := newArgs(t.name, req.Params.Arguments)
		if err != nil {
			if t.raw != nil { // seed 000/004 tools report bad arguments as isError results
				return mcp.NewToolResultError(redactString(err.Error())), nil
			}
			return nil, err
		}
		start := time.Now()
		defer func() {
			s.log.Debug().Str("tool", t.name).Dur("took", time.Since(start)).Msg("tool call")
		}()
		if t.raw != nil {
			return t.raw(ctx, a)
		}
		v, err := t.jsonResult(ctx, a)
		if err != nil {
			return nil, s.toolFailure(t.name, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, s.toolFailure(t.name, err)
		}
		return mcp.NewToolResultText(string(redact.JSON(b))), nil
	})
}

// toolFailure turns an error into the message of a -32603 response: the
// tool name, then a message a user can act on. Store internals are logged,
// not shown.
func (s *Server) toolFailure(tool string, err error) error {
	var te *toolError
	if errors.As(err, &te) {
		return te
	}
	var pe *palace.Error
	if errors.As(err, &pe) && pe.Code != palace.CodeInternal {
		return &toolError{msg: tool + ": " + pe.Message}
	}
	if errors.Is(err, kg.ErrInvalid) {
		return &toolError{msg: tool + ": " + err.Error()}
	}
	s.log.Error().Err(err).Str("tool", tool).Msg("tool failed")
	return &toolError{msg: fmt.Sprintf("%s: internal error: %s", tool, redactString(err.Error()))}
}

func redactString(s string) string {
	out, _ := redact.String(s)
	return out
}

// palaceName returns the palace a call targets: its 'palace' argument, else
// the server's default.
func (s *Server) palaceName(a *args) (string, error) {
	name, err := a.str("palace", false)
	if err != nil {
		return "", err
	}
	if name == "" {
		if s.cfg.DefaultPalace == "" {
			return "", a.errf("missing 'palace' (no --palace default configured)")
		}
		return s.cfg.DefaultPalace, nil
	}
	if err := palace.ValidateName(name); err != nil {
		return "", a.errf("%s", err.Error())
	}
	return name, nil
}

// openPalace opens the palace a call targets. The default palace is created
// on demand; any other must exist.
func (s *Server) openPalace(ctx context.Context, a *args) (*palace.Palace, error) {
	name, err := s.palaceName(a)
	if err != nil {
		return nil, err
	}
	var p *palace.Palace
	if name == s.cfg.DefaultPalace {
		p, err = s.reg.OpenOrCreate(ctx, name)
	} else {
		p, err = s.reg.Open(ctx, name)
	}
	if errors.Is(err, palace.ErrNotFound) {
		return nil, a.errf("palace %q does not exist (create it with palace_create)", name)
	}
	if err != nil {
		return nil, s.toolFailure(a.tool, err)
	}
	return p, nil
}
