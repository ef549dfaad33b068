//go:build crosstest && !arm64

package use_test

import (
	"testing"

	"github.com/loci-mem/loci/palace/internal/crosstest"
)

// The NEON kernels (gemm_arm64.s) checked by the tests that check the
// amd64 ones: each kernel against a plain loop, the reference sentences'
// vectors, and a text's vector the same bit for bit whatever batch it is
// embedded in; TestKernelIsNEON makes sure the NEON kernels were the ones
// run.
func TestKernelsOnArm64(t *testing.T) {
	t.Parallel()
	crosstest.Arm64(t, "^(TestKernelIsNEON|TestDenseKernelsAgree|TestAttentionAgrees|TestReference|TestEmbedContract|TestVectorsHoldUnderPreemption)$")
}
