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

// UseProjection makes f answer Search through its projection with cand
// candidates, as a calibration choosing it would, and reports whether f
// has a projection.
func UseProjection(f *Flat, cand int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pj == nil || f.g == nil {
		return false
	}
	f.g.off = true
	f.pj.cand, f.pj.calK, f.pj.off, f.pj.calRows = cand, 10, false, len(f.rowOf)
	return true
}

// ColdCodes reports whether f reads candidates' codes from its snapshot
// file instead of the mapping.
func ColdCodes(f *Flat) bool { return f.mapped.isCold() }

// LowerBound is the mean of a width's per-query recalls and the lower
// confidence bound calibration judges the width by.
func LowerBound(recalls []float64) (mean, low float64) {
	for _, r := range recalls {
		mean += r
	}
	mean /= float64(len(recalls))
	return mean, mean - calibrationZ*standardError(recalls)
}

// LoadWidthSearch runs load inside the timing of every query of
// Calibrate's width search (not of the costs it then times side by side),
// until the returned function is called.
func LoadWidthSearch(load func()) (restore func()) {
	widthLoad = load
	return func() { widthLoad = nil }
}
