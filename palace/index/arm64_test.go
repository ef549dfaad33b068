//go:build crosstest && !arm64

package index

import (
	"testing"

	"github.com/loci-mem/loci/palace/internal/crosstest"
)

// The NEON kernels (kernel_arm64.s) checked by the tests that check the
// amd64 ones, and the searches built on them: exact scans, the graph and
// the 4-bit projected scan. TestScanKernelIsNEON makes sure the NEON
// kernels were the ones run.
func TestKernelsOnArm64(t *testing.T) {
	t.Parallel()
	crosstest.Arm64(t, "^(TestScanKernelIsNEON|TestKernelsMatchPureGo|TestScanKernelsMatchPureGo|TestNibbleKernelsMatchTheLevels|"+
		"TestExactMatchesBruteForce|TestInt8Recall|TestGraphRecall|TestGraphSearchIsExactWhenExhaustive|TestParallelScanMatchesSerial|"+
		"TestSearchKeysMatchesFilteredScan|TestProjection)$")
}
