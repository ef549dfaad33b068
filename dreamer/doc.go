// Package dreamer runs loci's background work on open palaces: one
// goroutine per palace, shaped like litestream's Store (a context, its
// cancel func and a WaitGroup; Close is cancel then wait).
//
// dreamer imports palace and kg only; it is imported by server and cmd.
package dreamer
