package index

// SetAVX2 switches the assembly kernels on or off and returns the old value.
func SetAVX2(on bool) bool {
	old := useAVX2
	useAVX2 = on
	return old
}

// SetMapSnapshots turns mapping version 2 snapshots on or off (off: they
// are read into memory) and returns the old value.
func SetMapSnapshots(on bool) bool {
	old := mapSnapshots
	mapSnapshots = on
	return old
}

// Mapped reports whether f points into a mapped snapshot.
func Mapped(f *Flat) bool { return f.mapped != nil }
