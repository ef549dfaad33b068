package server

import (
	"context"

	"github.com/google/uuid"
)

// A connection is one client's channel to the server: a stdio stream, an
// MCP HTTP session. Texts an agent stores one after another through one
// connection are neighbours in the palace (palace.RememberOptions), as the
// turns of one conversation are.

type connectionKey struct{}

// withConnection returns ctx carrying the connection id.
func withConnection(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, connectionKey{}, id)
}

// newConnection returns ctx carrying a fresh id for a connection of kind.
func newConnection(ctx context.Context, kind string) context.Context {
	return withConnection(ctx, kind+":"+uuid.NewString())
}

// connectionOf returns the id of the connection a call came through ("":
// none known).
func connectionOf(ctx context.Context) string {
	id, _ := ctx.Value(connectionKey{}).(string)
	return id
}
