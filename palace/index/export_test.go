package index

// SetTestHook installs fn to run inside every guarded coder/hnsw call
// (op is "add", "search", "export" or "import"); nil removes it. Not safe
// to call while the index is in use.
func SetTestHook(fn func(op string)) { testHook = fn }

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

// Mapped reports whether a's exact index points into a mapped snapshot.
func Mapped(a *Auto) bool { return a.flat != nil && a.flat.mapped != nil }
