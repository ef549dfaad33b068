//go:build !(amd64 || arm64) || purego

package index

var useAVX2, useVNNI, useNEON = false, false, false

func dot(a, b []float32) float32 { return dotGo(a, b) }

func l2sq(a, b []float32) float32 { return l2sqGo(a, b) }

func dotInt8(a, b []int8) int32 { return dotInt8Go(a, b) }

func dots(q *scanQuery, rows []int8, out []int32) { dotsGo(q, rows, out) }

func dotsNibble(q *nibbleQuery, rows []int8, floor int64, idx, out []int32) int {
	return dotsNibbleGo(q, rows, floor, idx, out)
}

// ScanKernel names the kernel of the int8 scan: the portable one here.
func ScanKernel() string { return "generic" }
