package palace

import (
	"context"
	"fmt"
	"slices"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace/store"
)

// Access control for callers that are not the machine's owner: a team's
// users reaching a shared loci over HTTP with their own tokens. A context
// that carries a Caller (WithCaller, set by the HTTP companion for each
// authenticated request) is held to the caller's palaces and access; a
// context without one (stdio, the CLI, the dreamer) may do anything, as
// the owner of the data dir can.
//
// The checks sit at the core's few doors, so that no face can forget
// one: opening a palace (Registry.Open, OpenOrCreate), creating one
// (admin), starting a write transaction (Palace.Begin, the knowledge
// graph's), and changing a palace's description. Reads need only reach.

// Access is what a caller may do in the palaces it reaches.
type Access int

// Access levels, each including the ones before it.
const (
	AccessRead  Access = iota + 1 // search, recall, list, read
	AccessWrite                   // remember, forget, review, assert, add
	AccessAdmin                   // create palaces, read metrics that name every palace
)

var accessNames = map[Access]string{AccessRead: "read", AccessWrite: "write", AccessAdmin: "admin"}

func (a Access) String() string {
	if s, ok := accessNames[a]; ok {
		return s
	}
	return fmt.Sprintf("access(%d)", int(a))
}

// ParseAccess reads "read", "write" or "admin".
func ParseAccess(s string) (Access, error) {
	for a, n := range accessNames {
		if n == s {
			return a, nil
		}
	}
	return 0, Invalidf("scope %q: want read, write or admin", s)
}

// Caller is who a request acts for.
type Caller struct {
	User    string   // the token's user, for logs
	TokenID string   // the token's public id
	Access  Access   // what the caller may do
	Palaces []string // the palaces it reaches; "*" reaches every palace
}

// Reaches reports whether c may use palace name at all.
func (c Caller) Reaches(name string) bool {
	return slices.Contains(c.Palaces, "*") || slices.Contains(c.Palaces, name)
}

type callerKey struct{}

// WithCaller returns ctx acting for c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller ctx acts for (ok false: the owner).
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// allow checks that ctx may do need in palace name ("" for an action not
// on one palace, such as creating one).
func allow(ctx context.Context, name string, need Access) error {
	c, ok := CallerFrom(ctx)
	if !ok {
		return nil
	}
	if name != "" && !c.Reaches(name) {
		return &Error{Code: CodeForbidden, Message: fmt.Sprintf("user %q may not use palace %q", c.User, name),
			Hint: "Ask an admin for a token that covers the palace (`loci token create --palace " + name + "`)"}
	}
	if c.Access < need {
		what := "this"
		if name != "" {
			what = fmt.Sprintf("this in palace %q", name)
		}
		return &Error{Code: CodeForbidden, Message: fmt.Sprintf("user %q has %s access and may not do %s (it needs %s)", c.User, c.Access, what, need),
			Hint: "Ask an admin for a token with the " + need.String() + " scope"}
	}
	return nil
}

// Allow reports whether ctx may do need in palace name, as the core's own
// checks do (faces use it to filter lists, and to refuse early).
func Allow(ctx context.Context, name string, need Access) error { return allow(ctx, name, need) }

// Visible keeps the palaces of names that ctx reaches.
func Visible(ctx context.Context, names []string) []string {
	c, ok := CallerFrom(ctx)
	if !ok {
		return names
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		if c.Reaches(n) {
			out = append(out, n)
		}
	}
	return out
}

// guardedTriples is the knowledge graph's storage: the palace's store,
// whose write transactions need write access like the palace's own.
type guardedTriples struct {
	store.Store
	name string
}

func (g guardedTriples) BeginTriples(ctx context.Context) (kg.Tx, error) {
	if err := allow(ctx, g.name, AccessWrite); err != nil {
		return nil, err
	}
	return g.Store.BeginTriples(ctx)
}
