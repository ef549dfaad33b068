//go:build !purego

package index

// The scan's kernels on arm64 (kernel_arm64.s): NEON, which every arm64
// CPU has (Advanced SIMD is part of ARMv8-A). The pure-Go kernels take
// what the NEON ones leave: a row's last codes past a multiple of 16, and
// l2sq (the L2 metric, which no palace uses by default).

// useAVX2 and useVNNI are amd64's; useNEON selects the NEON kernels here.
// Tests flip it to compare them with the pure-Go ones.
var useAVX2, useVNNI = false, false

var useNEON = true

//go:noescape
func dotsNEON(q *int8, rows *int8, stride, chunks, n int, out *int32)

//go:noescape
func dotsNibbleNEON(q *int8, rows *int8, chunks, n int, out *int32)

//go:noescape
func dotF32NEON(a, b *float32, chunks int, sums *[4]float32)

func dot(a, b []float32) float32 {
	n := len(a) &^ 15
	if !useNEON || n == 0 {
		return dotGo(a, b)
	}
	_ = b[len(a)-1]
	var sums [4]float32
	dotF32NEON(&a[0], &b[0], n/16, &sums)
	s := (sums[0] + sums[1]) + (sums[2] + sums[3])
	for i := n; i < len(a); i++ {
		s += a[i] * b[i]
	}
	return s
}

func l2sq(a, b []float32) float32 { return l2sqGo(a, b) }

func dotInt8(a, b []int8) int32 {
	n := len(a) &^ 15
	if !useNEON || n == 0 {
		return dotInt8Go(a, b)
	}
	_ = b[len(a)-1]
	var s int32
	dotsNEON(&a[0], &b[0], len(a), n/16, 1, &s)
	return s + dotInt8Go(a[n:], b[n:len(a)])
}

// dots sets out[i] to the dot product of the query q with the i-th row of
// rows (rows of q's dimension, one after another).
func dots(q *scanQuery, rows []int8, out []int32) {
	d := len(q.codes)
	full := d &^ 15
	if !useNEON || full == 0 || len(out) == 0 {
		dotsGo(q, rows, out)
		return
	}
	_ = rows[len(out)*d-1]
	dotsNEON(&q.codes[0], &rows[0], d, full/16, len(out), &out[0])
	if full < d {
		tail := q.codes[full:]
		for i := range out {
			out[i] += dotInt8Go(tail, rows[i*d+full:(i+1)*d])
		}
	}
}

// dotsNibble scores the rows of rows (4-bit levels, nibbleRowBytes bytes
// a row) by the dot product of q's weights with their levels, writes the
// index of each row scoring floor or more to idx and its score to out, in
// row order, and returns how many it wrote (math.MinInt64 keeps every
// row). idx and out hold a score for every row: the kernel scores them
// all into out, and the rows kept are then moved to its front.
func dotsNibble(q *nibbleQuery, rows []int8, floor int64, idx, out []int32) int {
	rb := len(q.padded) / 2
	n := len(rows) / max(rb, 1)
	if !useNEON || rb == 0 || n == 0 {
		return dotsNibbleGo(q, rows, floor, idx, out)
	}
	_, _ = idx[n-1], out[n-1]
	dotsNibbleNEON(&q.padded[0], &rows[0], rb/64, n, &out[0])
	m := 0
	for i, s := range out[:n] {
		if s -= q.corr; int64(s) >= floor {
			idx[m], out[m] = int32(i), s
			m++
		}
	}
	return m
}

// ScanKernel names the kernel of the int8 scan this CPU runs: "neon" or
// "generic".
func ScanKernel() string {
	if useNEON {
		return "neon"
	}
	return "generic"
}
