//go:build bench

package index_test

import (
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loci-mem/loci/palace/index"
	"golang.org/x/sys/unix"
)

// Data generators and measurement helpers shared by the bench-tagged tests.

// randomUnit returns n vectors uniform on the unit sphere in d dimensions:
// the hardest case for any graph index (no structure at all).
func randomUnit(seed int64, n, d int) [][]float32 {
	r := rand.New(rand.NewSource(seed))
	out := make([][]float32, n)
	buf := make([]float32, n*d)
	for i := range out {
		v := buf[i*d : (i+1)*d : (i+1)*d]
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		normalise(v)
		out[i] = v
	}
	return out
}

// clusteredUnit returns n unit vectors drawn around c random centres: each
// is centre + Gaussian noise of norm ~spread, normalised. With spread 0.7
// neighbours within a cluster have cosine ~0.67 and across clusters ~0,
// roughly like sentence embeddings of a handful of topics.
func clusteredUnit(seed int64, n, d, c int, spread float64) [][]float32 {
	r := rand.New(rand.NewSource(seed))
	centres := randomUnit(seed+1, c, d)
	out := make([][]float32, n)
	buf := make([]float32, n*d)
	sd := spread / math.Sqrt(float64(d))
	for i := range out {
		ce := centres[r.Intn(c)]
		v := buf[i*d : (i+1)*d : (i+1)*d]
		for j := range v {
			v[j] = ce[j] + float32(sd*r.NormFloat64())
		}
		normalise(v)
		out[i] = v
	}
	return out
}

func normalise(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(s))
	for j := range v {
		v[j] *= inv
	}
}

const fashionDir = "/usr/share/datasets/fashion-mnist"

// fashionMNIST reads an IDX image file (gzip) as float32 pixel vectors
// (0..255, not normalised).
func fashionMNIST(tb testing.TB, name string) [][]float32 {
	tb.Helper()
	f, err := os.Open(fashionDir + "/" + name)
	if err != nil {
		tb.Skipf("Fashion-MNIST not installed (apt-get install -y dataset-fashion-mnist): %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var hdr [4]uint32
	if err := binary.Read(zr, binary.BigEndian, &hdr); err != nil {
		tb.Fatal(err)
	}
	if hdr[0] != 0x803 {
		tb.Fatalf("%s: magic %#x", name, hdr[0])
	}
	n, d := int(hdr[1]), int(hdr[2]*hdr[3])
	raw := make([]byte, n*d)
	if _, err := io.ReadFull(zr, raw); err != nil {
		tb.Fatal(err)
	}
	out := make([][]float32, n)
	buf := make([]float32, n*d)
	for i := range out {
		v := buf[i*d : (i+1)*d : (i+1)*d]
		for j := range v {
			v[j] = float32(raw[i*d+j])
		}
		out[i] = v
	}
	return out
}

// groundTruth is the exact top-k keys of each query, computed with a Flat
// index on all cores.
func groundTruth(base, queries [][]float32, k int, m index.Metric) [][]uint64 {
	f := index.NewFlat(index.FlatConfig{Metric: m})
	for i, v := range base {
		f.Add(uint64(i), v)
	}
	out := make([][]uint64, len(queries))
	parallel(len(queries), func(i int) {
		for _, r := range f.Search(queries[i], k, nil) {
			out[i] = append(out[i], r.Key)
		}
	})
	return out
}

func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// measured is recall@k and latency percentiles of one configuration:
// wall clock, and the thread's CPU time, which leaves out the time the
// goroutine's thread waited for a core (the measuring machine is shared).
type measured struct {
	recall       float64
	p50, p99     time.Duration
	cpu50, cpu99 time.Duration
}

func (m measured) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(time.Microsecond) }
	return fmt.Sprintf("recall@10=%.3f p50=%v p99=%v cpu-p50=%v cpu-p99=%v", m.recall, r(m.p50), r(m.p99), r(m.cpu50), r(m.cpu99))
}

func threadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// measure runs every query once, single-threaded, timing each.
func measure(idx index.Index, queries [][]float32, truth [][]uint64, k int) measured {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	lat := make([]time.Duration, len(queries))
	cpu := make([]time.Duration, len(queries))
	var hit, total int
	for i, q := range queries {
		t0, c0 := time.Now(), threadCPU()
		res := idx.Search(q, k, nil)
		lat[i], cpu[i] = time.Since(t0), threadCPU()-c0
		want := truth[i][:min(k, len(truth[i]))]
		for _, r := range res {
			if slices.Contains(want, r.Key) {
				hit++
			}
		}
		total += len(want)
	}
	slices.Sort(lat)
	slices.Sort(cpu)
	return measured{
		recall: float64(hit) / float64(total),
		p50:    lat[len(lat)/2],
		p99:    lat[len(lat)*99/100],
		cpu50:  cpu[len(cpu)/2],
		cpu99:  cpu[len(cpu)*99/100],
	}
}

func heapInuseMB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapInuse) / (1 << 20)
}

func envInt(name string, def int) int {
	if s := os.Getenv(name); s != "" {
		var v int
		if _, err := fmt.Sscan(s, &v); err == nil {
			return v
		}
	}
	return def
}

func envStr(name, def string) string {
	if s := os.Getenv(name); s != "" {
		return s
	}
	return def
}
