package index

import (
	"fmt"
	"math"
)

// Metric says how vectors are compared.
type Metric uint8

const (
	// Cosine scores by dot product, which is the cosine similarity for the
	// unit vectors loci stores. It is the default.
	Cosine Metric = iota
	// L2 scores by negated Euclidean distance (higher is closer). It exists
	// for data sets that are not normalised, such as image benchmarks.
	L2
)

func (m Metric) String() string {
	switch m {
	case Cosine:
		return "cosine"
	case L2:
		return "l2"
	}
	return fmt.Sprintf("Metric(%d)", uint8(m))
}

func (m Metric) valid() bool { return m == Cosine || m == L2 }

// rank is the internal ordering score of v against q: higher is closer.
// For L2 it is the negated squared distance; finalScore turns it into the
// Score reported to callers.
func (m Metric) rank(q, v []float32) float32 {
	if m == L2 {
		return -l2sq(q, v)
	}
	return dot(q, v)
}

// finalScore converts a rank into the reported Score.
func (m Metric) finalScore(r float32) float32 {
	if m == L2 {
		return -float32(math.Sqrt(float64(-r)))
	}
	return r
}
