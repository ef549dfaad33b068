package use

// Kernels lists the kernels this CPU can run, fastest first.
func Kernels() []string {
	var ks []string
	if bf16Panels {
		ks = append(ks, "amx-bf16")
	}
	if useAVX512 && halfPanels {
		ks = append(ks, "avx512-f16c")
	}
	if useAVX512 {
		ks = append(ks, "avx512")
	}
	if useAVX2 && halfPanels {
		ks = append(ks, "avx2-fma-f16c")
	}
	if useAVX2 {
		ks = append(ks, "avx2-fma")
	}
	if useNEON {
		ks = append(ks, "neon")
	}
	return append(ks, "generic")
}

// NewForKernel returns a private encoder whose weights are decoded for the
// named kernel, and selects that kernel until restore is called. Tests
// using it must not run in parallel.
func NewForKernel(kernel string) (enc *Encoder, restore func()) {
	oldAVX, old512, oldHalf, oldBF, oldNEON := useAVX2, useAVX512, halfPanels, bf16Panels, useNEON
	if kernel != "amx-bf16" {
		bf16Panels = false
	}
	switch kernel {
	case "generic":
		useAVX2, useAVX512, halfPanels, useNEON = false, false, false, false
	case "avx2-fma":
		useAVX512, halfPanels = false, false
	case "avx2-fma-f16c":
		useAVX512 = false
	case "avx512":
		halfPanels = false
	}
	enc = &Encoder{}
	enc.once.Do(func() { enc.m, enc.err = loadModel(currentPanels()) })
	return enc, func() { useAVX2, useAVX512, halfPanels, bf16Panels, useNEON = oldAVX, old512, oldHalf, oldBF, oldNEON }
}
