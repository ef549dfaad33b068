package palace

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// DreamLock is the holder of a palace's dreamer lock: at most one process
// runs dreamer passes on a palace at a time. The lock lives in the palace's
// SQLite file and expires unless renewed, so a killed holder blocks others
// for at most one lease.
type DreamLock struct {
	Owner      string    `json:"owner"`
	AcquiredAt time.Time `json:"acquired_at"`
	ExpiresAt  time.Time `json:"expires_at"`
}

// AcquireDreamLock takes the dreamer lock for owner until now+ttl when it
// is free, expired or already owner's. It reports whether owner holds the
// lock now and, when not, who does. now is wall-clock time: every process
// sharing the palace must read the same clock.
func (p *Palace) AcquireDreamLock(ctx context.Context, owner string, ttl time.Duration, now time.Time) (bool, DreamLock, error) {
	if owner == "" || ttl <= 0 {
		return false, DreamLock{}, Invalidf("dream lock needs an owner and a positive lease")
	}
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return false, DreamLock{}, internal("dream lock", err)
	}
	defer tx.Rollback()
	cur, held, err := readDreamLock(ctx, tx)
	if err != nil {
		return false, DreamLock{}, internal("dream lock", err)
	}
	if held && cur.Owner != owner && cur.ExpiresAt.After(now) {
		return false, cur, nil
	}
	acquired := now
	if held && cur.Owner == owner {
		acquired = cur.AcquiredAt
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO dream_lock(id, owner, acquired_at, expires_at) VALUES (1, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at,
		expires_at = excluded.expires_at`, owner, acquired.UnixMilli(), now.Add(ttl).UnixMilli())
	if err != nil {
		return false, DreamLock{}, internal("dream lock", err)
	}
	if err := tx.Commit(); err != nil {
		return false, DreamLock{}, internal("dream lock", err)
	}
	return true, DreamLock{Owner: owner, AcquiredAt: acquired.UTC(), ExpiresAt: now.Add(ttl).UTC()}, nil
}

// RenewDreamLock extends owner's lease to now+ttl. It reports false when
// owner no longer holds the lock (it expired and another process took it).
func (p *Palace) RenewDreamLock(ctx context.Context, owner string, ttl time.Duration, now time.Time) (bool, error) {
	res, err := p.db.ExecContext(ctx, `UPDATE dream_lock SET expires_at = ? WHERE id = 1 AND owner = ?`,
		now.Add(ttl).UnixMilli(), owner)
	if err != nil {
		return false, internal("renew dream lock", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ReleaseDreamLock gives the lock up if owner holds it.
func (p *Palace) ReleaseDreamLock(ctx context.Context, owner string) error {
	_, err := p.db.ExecContext(ctx, `DELETE FROM dream_lock WHERE id = 1 AND owner = ?`, owner)
	return internal("release dream lock", err)
}

// DreamLockHolder returns the current lock row, expired or not, and
// whether there is one.
func (p *Palace) DreamLockHolder(ctx context.Context) (DreamLock, bool, error) {
	l, ok, err := readDreamLock(ctx, p.db)
	return l, ok, internal("read dream lock", err)
}

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readDreamLock(ctx context.Context, q queryRower) (DreamLock, bool, error) {
	var l DreamLock
	var acq, exp int64
	err := q.QueryRowContext(ctx, `SELECT owner, acquired_at, expires_at FROM dream_lock WHERE id = 1`).Scan(&l.Owner, &acq, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return DreamLock{}, false, nil
	}
	if err != nil {
		return DreamLock{}, false, err
	}
	l.AcquiredAt, l.ExpiresAt = msTime(acq), msTime(exp)
	return l, true, nil
}

// errLockLost reports a dream transaction whose owner no longer holds the
// palace's dreamer lock; nothing of it is committed.
var errLockLost = &Error{Code: CodeConflict, Message: "the dreamer lock was lost to another process"}

// ErrDreamLockLost matches (errors.Is) the error of a dream write whose
// owner lost the dreamer lock.
var ErrDreamLockLost error = errLockLost
