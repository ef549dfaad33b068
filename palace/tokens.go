package palace

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/loci-mem/loci/palace/store"
)

// Access tokens: each user of a shared loci gets a token of their own,
// scoped to palaces and an access level, stored hashed in the backend
// (so every node of a team accepts it) and revocable.
//
// A token reads "loci_<id>_<secret>": the id (12 hex digits) is public and
// names the token in lists and logs; the secret (64 hex digits, 256
// random bits) is shown once, when the token is made, and only its
// SHA-256 is kept.

// TokenInfo describes a token without its secret.
type TokenInfo struct {
	ID        string    `json:"id"`
	User      string    `json:"user"`
	Scope     string    `json:"scope"`
	Palaces   []string  `json:"palaces"`
	CreatedAt time.Time `json:"created_at"`
	LastUsed  time.Time `json:"last_used,omitzero"`
	RevokedAt time.Time `json:"revoked_at,omitzero"`
}

func tokenInfo(t store.Token) TokenInfo {
	return TokenInfo{ID: t.ID, User: t.User, Scope: t.Scope, Palaces: t.Palaces, CreatedAt: t.CreatedAt,
		LastUsed: t.LastUsed, RevokedAt: t.RevokedAt}
}

// tokenPrefix starts every token, so that a leaked one is recognisable
// (and redactable) as loci's.
const tokenPrefix = "loci_"

// maxUserBytes bounds a token's user name.
const maxUserBytes = 128

// CreateToken makes a token for user with access to palaces ("*" for
// every palace; none means every palace) and returns it in full — the
// only time its secret is seen — with its description.
func (r *Registry) CreateToken(ctx context.Context, user string, access Access, palaces []string) (string, TokenInfo, error) {
	user = strings.TrimSpace(user)
	if user == "" || len(user) > maxUserBytes || strings.IndexFunc(user, func(c rune) bool { return !unicode.IsPrint(c) }) >= 0 {
		return "", TokenInfo{}, Invalidf("user: want a printable name of 1 to %d bytes", maxUserBytes)
	}
	if accessNames[access] == "" {
		return "", TokenInfo{}, Invalidf("scope: want read, write or admin")
	}
	user, _ = Scrub(user) // a name is text that enters the store, like any other
	if len(palaces) == 0 {
		palaces = []string{"*"}
	}
	for _, p := range palaces {
		if p != "*" {
			if err := ValidateName(p); err != nil {
				return "", TokenInfo{}, err
			}
		}
	}
	ts, err := r.backend.Tokens(ctx)
	if err != nil {
		return "", TokenInfo{}, internal("access tokens", err)
	}
	var id, secret [32]byte
	if _, err := rand.Read(id[:6]); err != nil {
		return "", TokenInfo{}, internal("make token", err)
	}
	if _, err := rand.Read(secret[:]); err != nil {
		return "", TokenInfo{}, internal("make token", err)
	}
	sum := sha256.Sum256(secret[:])
	t := store.Token{ID: hex.EncodeToString(id[:6]), User: user, Scope: access.String(), Palaces: palaces,
		Hash: sum[:], CreatedAt: r.cfg.Now().UTC().Truncate(time.Millisecond)}
	if err := ts.PutToken(ctx, t); err != nil {
		return "", TokenInfo{}, storeErr("store token", err)
	}
	return tokenPrefix + t.ID + "_" + hex.EncodeToString(secret[:]), tokenInfo(t), nil
}

// Tokens lists every token, oldest first.
func (r *Registry) Tokens(ctx context.Context) ([]TokenInfo, error) {
	ts, err := r.backend.Tokens(ctx)
	if err != nil {
		return nil, internal("access tokens", err)
	}
	list, err := ts.Tokens(ctx)
	if err != nil {
		return nil, storeErr("list tokens", err)
	}
	out := make([]TokenInfo, len(list))
	for i, t := range list {
		out[i] = tokenInfo(t)
	}
	return out, nil
}

// RevokeToken revokes a token by id (CodeNotFound when unknown).
// Requests with it fail from then on, on every node.
func (r *Registry) RevokeToken(ctx context.Context, id string) error {
	ts, err := r.backend.Tokens(ctx)
	if err != nil {
		return internal("access tokens", err)
	}
	if err := ts.RevokeToken(ctx, strings.TrimPrefix(id, tokenPrefix), r.cfg.Now().UTC()); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return &Error{Code: CodeNotFound, Message: fmt.Sprintf("no token %q", id), Hint: "Run `loci token list` to see the tokens"}
		}
		return storeErr("revoke token", err)
	}
	return nil
}

// HasTokens reports whether the backend holds a token that is not
// revoked: then the HTTP companion requires one.
func (r *Registry) HasTokens(ctx context.Context) (bool, error) {
	list, err := r.Tokens(ctx)
	if err != nil {
		return false, err
	}
	for _, t := range list {
		if t.RevokedAt.IsZero() {
			return true, nil
		}
	}
	return false, nil
}

// ErrBadToken is returned by Authenticate for a token that is malformed,
// unknown or revoked.
var ErrBadToken = errors.New("unknown or revoked token")

// tokenTouchEvery bounds how often a token's last use is written.
const tokenTouchEvery = time.Minute

var touched sync.Map // token id -> time of the last recorded use

// Authenticate returns the caller a presented token acts for, or
// ErrBadToken.
func (r *Registry) Authenticate(ctx context.Context, presented string) (Caller, error) {
	rest, ok := strings.CutPrefix(presented, tokenPrefix)
	id, secretHex, ok2 := strings.Cut(rest, "_")
	secret, err := hex.DecodeString(secretHex)
	if !ok || !ok2 || err != nil || len(secret) != 32 {
		return Caller{}, ErrBadToken
	}
	ts, err := r.backend.Tokens(ctx)
	if err != nil {
		return Caller{}, internal("access tokens", err)
	}
	t, err := ts.Token(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Caller{}, ErrBadToken
	}
	if err != nil {
		return Caller{}, storeErr("read token", err)
	}
	sum := sha256.Sum256(secret)
	if subtle.ConstantTimeCompare(sum[:], t.Hash) != 1 || !t.RevokedAt.IsZero() {
		return Caller{}, ErrBadToken
	}
	access, err := ParseAccess(t.Scope)
	if err != nil {
		return Caller{}, ErrBadToken
	}
	now := r.cfg.Now()
	if last, ok := touched.Load(t.ID); !ok || now.Sub(last.(time.Time)) >= tokenTouchEvery {
		touched.Store(t.ID, now)
		_ = ts.TouchToken(context.WithoutCancel(ctx), t.ID, now.UTC())
	}
	return Caller{User: t.User, TokenID: t.ID, Access: access, Palaces: t.Palaces}, nil
}
