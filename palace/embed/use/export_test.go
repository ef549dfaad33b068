package use

// Kernels lists the kernels this CPU can run, fastest first.
func Kernels() []string {
	var ks []string
	if useAVX2 && halfPanels {
		ks = append(ks, "avx2-fma-f16c")
	}
	if useAVX2 {
		ks = append(ks, "avx2-fma")
	}
	return append(ks, "generic")
}

// NewForKernel returns a private encoder whose weights are decoded for the
// named kernel, and selects that kernel until restore is called. Tests
// using it must not run in parallel.
func NewForKernel(kernel string) (enc *Encoder, restore func()) {
	oldAVX, oldHalf := useAVX2, halfPanels
	switch kernel {
	case "generic":
		useAVX2, halfPanels = false, false
	case "avx2-fma":
		halfPanels = false
	}
	enc = &Encoder{}
	enc.once.Do(func() { enc.m, enc.err = loadModel(halfPanels) })
	return enc, func() { useAVX2, halfPanels = oldAVX, oldHalf }
}
