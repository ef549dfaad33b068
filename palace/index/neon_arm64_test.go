//go:build !purego

package index

import "testing"

// On arm64 the scan runs on the NEON kernels.
func TestScanKernelIsNEON(t *testing.T) {
	if k := ScanKernel(); k != "neon" {
		t.Fatalf("scan kernel %q on arm64, want neon", k)
	}
}
