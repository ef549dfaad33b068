package index

import "math"

// The kernels below are the pure-Go versions. On amd64 with AVX2 and FMA
// the exported-to-package functions dot, l2sq and dotInt8 dispatch to
// assembly (kernel_amd64.go); elsewhere they are these.

// dotGo is the dot product of a and b, unrolled by eight with four
// accumulators. b must be at least as long as a.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i]*b[i] + a[i+4]*b[i+4]
		s1 += a[i+1]*b[i+1] + a[i+5]*b[i+5]
		s2 += a[i+2]*b[i+2] + a[i+6]*b[i+6]
		s3 += a[i+3]*b[i+3] + a[i+7]*b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// l2sqGo is the squared Euclidean distance between a and b.
func l2sqGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0 := a[i] - b[i]
		d1 := a[i+1] - b[i+1]
		d2 := a[i+2] - b[i+2]
		d3 := a[i+3] - b[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return s0 + s1 + s2 + s3
}

// dotInt8Go is the integer dot product of two int8 code vectors.
func dotInt8Go(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// scanQuery is a quantized query in the forms the scan's kernels read:
// widened to int16 once (AVX2: each 16 codes of a row then cost one
// widening, and the query is read from L1), and padded with zeros to a
// multiple of 64 codes with its correction (AVX-512 VNNI, dotsVNNI).
type scanQuery struct {
	codes  []int8
	wide   []int16
	padded []int8
	corr   int32 // 128 × the sum of the codes
}

// prepare readies the codes qc for dots.
func prepare(qc []int8) *scanQuery {
	q := &scanQuery{codes: qc, wide: make([]int16, len(qc)), padded: make([]int8, (len(qc)+63)/64*64)}
	copy(q.padded, qc)
	for i, c := range qc {
		q.wide[i] = int16(c)
		q.corr += 128 * int32(c)
	}
	return q
}

// dotsGo sets out[i] to the dot product of q with the i-th row of rows.
func dotsGo(q *scanQuery, rows []int8, out []int32) {
	d := len(q.codes)
	for i := range out {
		out[i] = dotInt8Go(q.codes, rows[i*d:(i+1)*d])
	}
}

// quantize writes the symmetric int8 code of v into dst and returns the
// scale: v[i] ≈ scale * dst[i].
func quantize(dst []int8, v []float32) float32 {
	var m float32
	for _, x := range v {
		if x < 0 {
			x = -x
		}
		if x > m {
			m = x
		}
	}
	if m == 0 {
		clear(dst)
		return 0
	}
	inv := 127 / m
	for i, x := range v {
		dst[i] = int8(math.RoundToEven(float64(x * inv))) // an instruction on amd64, unlike math.Round
	}
	return m / 127
}
