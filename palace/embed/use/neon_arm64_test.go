package use_test

import (
	"testing"

	"github.com/loci-mem/loci/palace/embed/use"
)

// On arm64 the encoder multiplies on the NEON kernels.
func TestKernelIsNEON(t *testing.T) {
	if k := use.Kernel(); k != "neon" {
		t.Fatalf("kernel %q on arm64, want neon", k)
	}
}
