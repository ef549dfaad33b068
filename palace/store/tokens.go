package store

import (
	"context"
	"time"
)

// Token is a user's access token for the HTTP companion. The secret part
// is never stored: only its SHA-256 (a 256-bit random secret needs no
// salt or slow hash to resist guessing).
type Token struct {
	ID        string    // public: names the token in lists and logs
	User      string    // whom requests with it act for
	Scope     string    // read, write or admin
	Palaces   []string  // the palaces it reaches; "*" is every palace
	Hash      []byte    // SHA-256 of the secret
	CreatedAt time.Time //
	LastUsed  time.Time // zero: never (updated at most once a minute)
	RevokedAt time.Time // zero: valid
}

// TokenStore keeps a backend's access tokens: in SQLite a file beside
// the palaces (access.db), in PostgreSQL the catalog schema, so that
// every node of a team accepts the same tokens.
type TokenStore interface {
	// PutToken stores a new token (ErrConflict when its id exists).
	PutToken(ctx context.Context, t Token) error
	// Token returns one token, revoked or not (ErrNotFound when none).
	Token(ctx context.Context, id string) (Token, error)
	// Tokens lists every token, oldest first.
	Tokens(ctx context.Context) ([]Token, error)
	// RevokeToken marks a token revoked at at (ErrNotFound when none).
	RevokeToken(ctx context.Context, id string, at time.Time) error
	// TouchToken records a use of the token at at.
	TouchToken(ctx context.Context, id string, at time.Time) error
}
