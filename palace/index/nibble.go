package index

import "math"

// The projected first stage keeps each row's projection in 4-bit codes:
// 64 bytes a row at 128 directions, so that the scan every projected search
// makes reads half of what int8 codes would (at a million rows that scan
// is bound by memory: 128 MB of int8 codes took 19 ms on one core of the
// reference machine, 5 ms when they were in cache).
//
// Each direction j is first divided by its spread over the data (sd[j],
// measured on the sample the basis came from), so that every coordinate is
// about a standard normal, and then rounded to one of 16 levels nibbleStep
// apart, clipped to [-8, 7]. One step for every direction and every row
// means the codes of all rows share one scale: a search ranks rows by the
// integer dot product alone, with no per-row factor to load.

// nibbleStep is the spacing of the 16 levels, in units of a direction's
// spread: 0.3352 is the step of the uniform 16-level quantizer with the
// least mean squared error for a standard normal variable (Max, 1960).
// Measured on 200k of the 1M palace's rows (BenchmarkFirstStageRecall,
// stage int4), recall@10 of 500 candidates was .962, .970 and .972 at
// steps 0.25, 0.33 and 0.45 (.977 in int8 codes): the optimum is flat.
const nibbleStep = 0.3352

// nibbleChunk is how many directions one 64-byte chunk of a row holds: byte
// b of chunk t holds direction 128t+b in its low nibble and 128t+64+b in
// its high one. A row of dims directions is whole chunks (the directions
// past dims are zero).
const nibbleChunk = 128

// nibbleRowBytes is the size of a row's code of dims directions.
func nibbleRowBytes(dims int) int { return (dims + nibbleChunk - 1) / nibbleChunk * 64 }

// packNibbles writes the 4-bit code of y (a projected row) into dst
// (nibbleRowBytes(len(y)) bytes): level c in [-8, 7] of y[j] / (sd[j] ·
// nibbleStep) is stored as c + 8. A direction of no spread codes 0.
func packNibbles(dst []int8, y, sd []float32) {
	clear(dst)
	for j, x := range y {
		c := 0.0
		if sd[j] > 0 {
			c = max(-8, min(7, math.RoundToEven(float64(x/(sd[j]*nibbleStep)))))
		}
		u := byte(int(c) + 8)
		b := j/nibbleChunk*64 + j%64
		if j%nibbleChunk >= 64 {
			u <<= 4
		}
		dst[b] = int8(byte(dst[b]) | u)
	}
}

// nibbleQuery is a query's int8 weights for the 4-bit scan, padded with
// zeros to whole chunks, and its correction: a row's stored levels are
// c + 8, so 8 × the sum of the weights is taken off each product.
type nibbleQuery struct {
	padded []int8
	corr   int32
}

// prepareNibbles readies the int8 weights qc (one a direction) for
// dotsNibble.
func prepareNibbles(qc []int8) *nibbleQuery {
	q := &nibbleQuery{padded: make([]int8, nibbleRowBytes(len(qc))*2)}
	copy(q.padded, qc)
	for _, c := range qc {
		q.corr += 8 * int32(c)
	}
	return q
}

// dotsNibbleGo is dotsNibble in Go.
func dotsNibbleGo(q *nibbleQuery, rows []int8, floor int64, idx, out []int32) int {
	rb := len(q.padded) / 2
	m := 0
	for i := range len(rows) / max(rb, 1) {
		row := rows[i*rb : (i+1)*rb]
		var s int32
		for t := 0; t < rb; t += 64 {
			lo, hi := q.padded[2*t:2*t+64], q.padded[2*t+64:2*t+128]
			for b, u := range row[t : t+64] {
				s += int32(byte(u)&15)*int32(lo[b]) + int32(byte(u)>>4)*int32(hi[b])
			}
		}
		if s -= q.corr; int64(s) >= floor {
			idx[m], out[m] = int32(i), s
			m++
		}
	}
	return m
}
