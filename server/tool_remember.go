package server

import (
	"context"

	"github.com/loci-mem/loci/palace/facts"
)

// remember (seed 004) stages a fact about the user for review.
type rememberParams struct {
	Fact       string     `json:"fact" required:"true" desc:"The assertion to store, in the user's first person, concise and declarative: \"I prefer pnpm over npm\""`
	Kind       factKind   `json:"kind" default:"\"preference\"" desc:"Kind of fact; it sets the risk tier. {kinds}"`
	Confidence confidence `json:"confidence" default:"0.6" desc:"How sure you are that the fact is accurate and durable: 0.5-0.7 inferred, 0.8-0.9 stated by the user, 1.0 confirmed"`
	Palace     string     `json:"palace"`
}

func rememberTool() *tool {
	return newTool("remember",
		"Stage a durable fact about the user for review. The fact is not recalled until a person promotes it "+
			"(`loci review approve mem-NNNN`), unless auto-promotion is configured for low-risk kinds. "+
			"Returns a line such as: staged mem-0042: [tooling] I prefer pnpm over npm",
		resultErrors, remember)
}

func remember(ctx context.Context, s *Server, p rememberParams) (plainText, error) {
	pal, err := s.openPalace(ctx, p.Palace)
	if err != nil {
		return "", err
	}
	r, err := facts.Of(pal).Stage(ctx, facts.Input{Text: p.Fact, Kind: string(p.Kind), Confidence: float64(p.Confidence), Source: "mcp:remember"})
	if err != nil {
		return "", err
	}
	return plainText(r.Line()), nil
}
