package store

import "context"

// Engram facts (seed 004) carry per-palace numbers ("mem-0042") that are
// never handed out twice.

// FactNumber maps a fact number to its drawer.
type FactNumber struct {
	N        int64
	DrawerID string
}

// FactReader reads fact numbers.
type FactReader interface {
	// DrawerOf returns the drawer id of fact number n.
	DrawerOf(ctx context.Context, n int64) (string, bool, error)
	// Numbers returns every fact number, in order.
	Numbers(ctx context.Context) ([]FactNumber, error)
	// LastNumber is the highest number ever handed out (0: none), even
	// if its row is gone.
	LastNumber(ctx context.Context) (int64, error)
}

// FactWriter allocates fact numbers.
type FactWriter interface {
	FactReader
	// Allocate hands out the next fact number to drawerID.
	Allocate(ctx context.Context, drawerID string) (int64, error)
	// Assign gives number n to drawerID (an import); ErrConflict when n
	// is taken.
	Assign(ctx context.Context, n int64, drawerID string) error
	// RaiseCounter makes later Allocate calls hand out numbers above n.
	RaiseCounter(ctx context.Context, n int64) error
}
