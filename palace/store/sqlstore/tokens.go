package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loci-mem/loci/palace/store"
)

// TokensSchema creates the table of access tokens (both engines; the
// hash column is a blob in SQLite and bytea in PostgreSQL, and a backend
// substitutes its type for BYTES).
const TokensSchema = `CREATE TABLE IF NOT EXISTS access_tokens (
	id         text PRIMARY KEY,
	user_name  text NOT NULL,
	scope      text NOT NULL,
	palaces    text NOT NULL DEFAULT '["*"]',
	hash       BYTES NOT NULL,
	created_at bigint NOT NULL,
	last_used  bigint NOT NULL DEFAULT 0,
	revoked_at bigint NOT NULL DEFAULT 0
)`

// Tokens is store.TokenStore over the access_tokens table.
type Tokens struct{ c conn }

var _ store.TokenStore = Tokens{}

// NewTokens keeps tokens through q in dialect d.
func NewTokens(q Querier, d Dialect) Tokens { return Tokens{conn{q, d}} }

func (t Tokens) PutToken(ctx context.Context, k store.Token) error {
	palaces, _ := json.Marshal(k.Palaces)
	_, err := t.c.ExecContext(ctx, `INSERT INTO access_tokens(id, user_name, scope, palaces, hash, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, k.ID, k.User, k.Scope, string(palaces), k.Hash, k.CreatedAt.UnixMilli())
	if err != nil {
		return t.c.conflict("store token", err)
	}
	return nil
}

const tokenCols = `id, user_name, scope, palaces, hash, created_at, last_used, revoked_at`

func scanToken(s scanner) (store.Token, error) {
	var k store.Token
	var palaces string
	var created, used, revoked int64
	if err := s.Scan(&k.ID, &k.User, &k.Scope, &palaces, &k.Hash, &created, &used, &revoked); err != nil {
		return k, err
	}
	_ = json.Unmarshal([]byte(palaces), &k.Palaces)
	k.CreatedAt = msTime(created)
	if used > 0 {
		k.LastUsed = msTime(used)
	}
	if revoked > 0 {
		k.RevokedAt = msTime(revoked)
	}
	return k, nil
}

func (t Tokens) Token(ctx context.Context, id string) (store.Token, error) {
	k, err := scanToken(t.c.QueryRowContext(ctx, `SELECT `+tokenCols+` FROM access_tokens WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return k, notFound("token")
	}
	if err != nil {
		return k, fmt.Errorf("read token: %w", err)
	}
	return k, nil
}

func (t Tokens) Tokens(ctx context.Context) ([]store.Token, error) {
	out, err := queryAll(ctx, t.c, scanToken, `SELECT `+tokenCols+` FROM access_tokens ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

func (t Tokens) RevokeToken(ctx context.Context, id string, at time.Time) error {
	res, err := t.c.ExecContext(ctx, `UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at = 0`, at.UnixMilli(), id)
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := t.Token(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

func (t Tokens) TouchToken(ctx context.Context, id string, at time.Time) error {
	_, err := t.c.ExecContext(ctx, `UPDATE access_tokens SET last_used = ? WHERE id = ?`, at.UnixMilli(), id)
	return err
}
