package seen

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The false-positive rate measured on keys never added agrees with the
// theory, (1 − e^(−kn/m))^k, within the binomial spread of the probes, at
// several sizes and hash counts; and no key added is ever missed.
func TestFalsePositiveRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const probes = 400_000
	for _, c := range []struct {
		m uint64
		k int
		n int
	}{
		{1 << 14, 3, 2_000},
		{1 << 16, 7, 6_800},   // about 1% (the default sizing)
		{1 << 20, 7, 109_000}, // about 1%
		{1 << 20, 10, 73_000}, // about 0.1%
		{1 << 18, 4, 60_000},  // overfull: about 16%
		{123 * 512, 5, 9_000}, // a size not a power of two
	} {
		f := NewFilter(c.m, c.k)
		keys := make([]uint64, c.n)
		for i := range keys {
			keys[i] = rng.Uint64()
			f.Add(keys[i])
		}
		for _, h := range keys {
			if !f.Has(h) {
				t.Fatalf("m %d k %d: a key added is not found", c.m, c.k)
			}
		}
		fp := 0
		for range probes {
			if f.Has(rng.Uint64()) {
				fp++
			}
		}
		p := TheoreticalRate(c.m, c.k, float64(c.n))
		mean, sd := probes*p, math.Sqrt(probes*p*(1-p))
		t.Logf("m %d k %d n %d: %d false positives in %d probes (%.5f), theory %.5f ± %.5f, from the bits set %.5f",
			c.m, c.k, c.n, fp, probes, float64(fp)/probes, p, sd/probes, f.FalsePositiveRate())
		if math.Abs(float64(fp)-mean) > 4*sd+2 {
			t.Errorf("m %d k %d n %d: %d false positives, theory %.0f ± %.0f (4 sd)", c.m, c.k, c.n, fp, mean, 4*sd)
		}
		if est := f.EstimatedKeys(); math.Abs(est-float64(c.n)) > 0.03*float64(c.n) {
			t.Errorf("m %d k %d n %d: %0.f keys estimated", c.m, c.k, c.n, est)
		}
	}
}

func TestSize(t *testing.T) {
	s, err := Size(1_000_000, 0.01, 0)
	if err != nil || s.Hashes != 7 || s.Bits < 9_585_058 || s.Bits > 9_585_058+512 || math.Abs(s.Rate-0.01) > 0.0005 {
		t.Errorf("1e6 at 1%%: %+v, %v", s, err)
	}
	s, err = Size(0, 0.01, 1<<20)
	if err != nil || s.Hashes != 7 || s.Bits != 8<<20 || s.Expected < 870_000 || s.Expected > 880_000 {
		t.Errorf("1 MiB at 1%%: %+v, %v", s, err)
	}
	s, err = Size(1_000_000, 0, 1<<20)
	if err != nil || s.Hashes != 6 || s.Bits != 8<<20 || s.Rate < 0.01 || s.Rate > 0.02 {
		t.Errorf("1e6 in 1 MiB: %+v, %v", s, err)
	}
}

func BenchmarkFilter(b *testing.B) {
	for _, size := range []struct {
		name string
		bits uint64
	}{{"1MiB", 8 << 20}, {"1GiB", 8 << 30}} {
		b.Run(size.name, func(b *testing.B) {
			f := NewFilter(size.bits, 7)
			rng := rand.New(rand.NewPCG(3, 4))
			b.ResetTimer()
			for b.Loop() {
				h := rng.Uint64()
				if !f.Has(h) {
					f.Add(h)
				}
			}
		})
	}
}
