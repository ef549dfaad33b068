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
