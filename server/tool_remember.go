package server

import (
	"context"

	"github.com/loci-mem/loci/palace/facts"
	"github.com/mark3labs/mcp-go/mcp"
)

func (s *Server) remember() tool {
	return tool{
		name: "remember",
		description: "Stage a durable fact about the user for review. The fact is not recalled until a person promotes it " +
			"(`loci review approve mem-NNNN`), unless auto-promotion is configured for low-risk kinds. " +
			"Returns a line such as: staged mem-0042: [tooling] I prefer pnpm over npm",
		schema: `{"type":"object","properties":{
"fact":{"type":"string","description":"The assertion to store, in the user's first person, concise and declarative: \"I prefer pnpm over npm\""},
"kind":{"type":"string","default":"preference","enum":["preference","tooling","project","infra","identity","fiscal","people","constraint","location","health"],"description":"Kind of fact; it sets the risk tier. ` + kindsDescription() + `"},
"confidence":{"type":"number","default":0.6,"minimum":0,"maximum":1,"description":"How sure you are that the fact is accurate and durable: 0.5-0.7 inferred, 0.8-0.9 stated by the user, 1.0 confirmed"},
"palace":{"type":"string","description":"Palace ID (optional if server started with --palace)"}},
"required":["fact"]}`,
		raw: s.rawTool("remember", func(ctx context.Context, a *args) (*mcp.CallToolResult, error) {
			text, err := a.str("fact", true)
			if err != nil {
				return nil, err
			}
			kind, err := a.str("kind", false)
			if err != nil {
				return nil, err
			}
			if kind, err = facts.CheckKind(kind); err != nil {
				return nil, a.errf("%s", err.Error())
			}
			conf, err := a.number("confidence", facts.DefaultConfidence, 0, 1)
			if err != nil {
				return nil, err
			}
			p, err := s.openPalace(ctx, a)
			if err != nil {
				return nil, err
			}
			r, err := facts.Of(p).Stage(ctx, facts.Input{Text: text, Kind: kind, Confidence: conf, Source: "mcp:remember"})
			if err != nil {
				return nil, err
			}
			return textResult(r.Line()), nil
		}),
	}
}
