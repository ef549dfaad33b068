package dreamlog

import (
	"context"
	"time"

	"github.com/loci-mem/loci/palace"
)

// The lease: at most one process runs dreamer passes on a palace at a
// time. It lives in the palace's store, so it holds across the processes
// of one machine and across the nodes of a team palace, and it expires
// unless renewed, so a killed holder blocks others for at most one lease.
// Every change a pass commits checks the lease in the same transaction
// (Journal.Begin), so a holder that lost its lease commits nothing.

// errLeaseLost reports a dream transaction whose owner no longer holds the
// palace's lease; nothing of it is committed.
var errLeaseLost = &palace.Error{Code: palace.CodeConflict, Message: "the dreamer lock was lost to another process"}

// ErrLeaseLost matches (errors.Is) the error of a dream write whose owner
// lost the lease.
var ErrLeaseLost error = errLeaseLost

// Acquire takes the lease for owner until now+ttl when it is free, expired
// or already owner's. It reports whether owner holds the lease now and,
// when not, who does. now is wall-clock time: every process sharing the
// palace must read the same clock.
func (j Journal) Acquire(ctx context.Context, owner string, ttl time.Duration, now time.Time) (bool, Lease, error) {
	if owner == "" || ttl <= 0 {
		return false, Lease{}, palace.Invalidf("dream lock needs an owner and a positive lease")
	}
	var got bool
	var holder Lease
	err := j.p.Write(ctx, func(t *palace.Tx) error {
		cur, held, err := t.Store().Dream().Lease(ctx)
		if err != nil {
			return storeErr("dream lock", err)
		}
		if held && cur.Owner != owner && cur.ExpiresAt.After(now) {
			holder = cur
			return nil
		}
		acquired := now
		if held && cur.Owner == owner {
			acquired = cur.AcquiredAt
		}
		holder = Lease{Owner: owner, AcquiredAt: acquired.UTC(), ExpiresAt: now.Add(ttl).UTC()}
		got = true
		return storeErr("dream lock", t.Store().Dream().PutLease(ctx, holder))
	})
	if err != nil {
		return false, Lease{}, err
	}
	return got, holder, nil
}

// Renew extends owner's lease to now+ttl. It reports false when owner no
// longer holds it (it expired and another process took it).
func (j Journal) Renew(ctx context.Context, owner string, ttl time.Duration, now time.Time) (bool, error) {
	var ok bool
	err := j.p.Write(ctx, func(t *palace.Tx) error {
		var err error
		ok, err = t.Store().Dream().RenewLease(ctx, owner, now.Add(ttl))
		return storeErr("renew dream lock", err)
	})
	return ok, err
}

// Release gives the lease up if owner holds it.
func (j Journal) Release(ctx context.Context, owner string) error {
	return j.p.Write(ctx, func(t *palace.Tx) error {
		return storeErr("release dream lock", t.Store().Dream().ReleaseLease(ctx, owner))
	})
}

// Holder returns the current lease, expired or not, and whether there is
// one.
func (j Journal) Holder(ctx context.Context) (Lease, bool, error) {
	l, ok, err := j.p.Store().Dream().Lease(ctx)
	return l, ok, storeErr("read dream lock", err)
}
