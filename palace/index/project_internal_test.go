package index

import (
	"math"
	"math/rand"
	"testing"
)

// Subspace iteration finds the directions the data varies along: for data
// spread over six orthonormal directions (with unequal variances, plus a
// little noise in every dimension), an 8-row basis is orthonormal, holds
// each direction almost entirely, and has rows to spare that are either
// zero or orthonormal to the rest.
func TestNewBasisFindsThePrincipalSubspace(t *testing.T) {
	const d, n = 64, 4000
	r := rand.New(rand.NewSource(5))
	dirs := make([][]float32, 6)
	for i := range dirs {
		dirs[i] = make([]float32, d)
		for j := range dirs[i] {
			dirs[i][j] = float32(r.NormFloat64())
		}
	}
	orthonormaliseRows(dirs)
	sd := []float64{8, 6, 5, 4, 3, 2}
	mean := make([]float32, d)
	for j := range mean {
		mean[j] = float32(r.NormFloat64())
	}
	sample := make([][]float32, n)
	for i := range sample {
		v := append([]float32(nil), mean...)
		for k, u := range dirs {
			a := float32(sd[k] * r.NormFloat64())
			for j := range v {
				v[j] += a * u[j]
			}
		}
		for j := range v {
			v[j] += float32(0.01 * r.NormFloat64())
		}
		sample[i] = v
	}
	p := newBasis(sample, 8)
	for j := range mean {
		if math.Abs(float64(p.mean[j]-mean[j])) > 0.5 {
			t.Fatalf("mean[%d] = %.3f, want about %.3f", j, p.mean[j], mean[j])
		}
	}
	row := func(j int) []float32 { return p.basis[j*d : (j+1)*d] }
	for i := range 8 {
		for j := range 8 {
			got := float64(dotGo(row(i), row(j)))
			zero := dotGo(row(i), row(i)) == 0 || dotGo(row(j), row(j)) == 0
			want := 0.0
			if i == j && !zero {
				want = 1
			}
			if math.Abs(got-want) > 1e-3 {
				t.Fatalf("basis rows %d·%d = %.4f, want %.0f", i, j, got, want)
			}
		}
	}
	for k, u := range dirs {
		var held float64
		for j := range 8 {
			c := float64(dotGo(row(j), u))
			held += c * c
		}
		if held < 0.99 {
			t.Fatalf("direction %d (sd %.0f): the basis holds %.3f of it, want ≥ 0.99", k, sd[k], held)
		}
	}
}

func flatten(rows [][]float32) []float32 {
	var out []float32
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// orthonormaliseRows orthonormalises rows in place.
func orthonormaliseRows(rows [][]float32) {
	d := len(rows[0])
	b := flatten(rows)
	orthonormalise(b, len(rows), d)
	for i := range rows {
		copy(rows[i], b[i*d:(i+1)*d])
	}
}
