package seen

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The false-positive rate measured on keys never added agrees with the
// theory (TheoreticalRate) within the binomial spread of the probes, at
// several sizes and hash counts, and with the rate the bits set give; no
// key added is ever missed.
func TestFalsePositiveRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const probes = 400_000
	for _, c := range []struct {
		m uint64
		k int
		n int
	}{
		{1 << 15, 3, 4_000},
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
		// Against the filter as it is: its rate from the bits set.
		if q := f.FalsePositiveRate(); math.Abs(float64(fp)-probes*q) > 4*math.Sqrt(probes*q*(1-q))+2 {
			t.Errorf("m %d k %d n %d: %d false positives, %.0f from the bits set", c.m, c.k, c.n, fp, probes*q)
		}
		if math.Abs(float64(fp)-mean) > 4*sd+2 {
			t.Errorf("m %d k %d n %d: %d false positives, theory %.0f ± %.0f (4 sd)", c.m, c.k, c.n, fp, mean, 4*sd)
		}
		if est := f.EstimatedKeys(); math.Abs(est-float64(c.n)) > 0.03*float64(c.n) {
			t.Errorf("m %d k %d n %d: %0.f keys estimated", c.m, c.k, c.n, est)
		}
	}
}

// Size gives the smallest filter that meets the target, with the best
// hash count; from a memory, the most n-grams it holds at the target.
func TestSize(t *testing.T) {
	s, err := Size(1_000_000, 0.01, 0)
	if err != nil || s.Rate > 0.01 || s.Bits < 9_500_000 || s.Bits > 10_500_000 {
		t.Errorf("1e6 at 1%%: %+v, %v", s, err)
	}
	if _, r := bestHashes(s.Bits-BlockBits, 1e6); r <= 0.01 {
		t.Errorf("1e6 at 1%%: a block fewer, %d bits, has rate %g", s.Bits-BlockBits, r)
	}
	t.Logf("1e6 at 1%%: %+v, %.2f bits an n-gram", s, float64(s.Bits)/1e6)
	s, err = Size(0, 0.01, 1<<20)
	if err != nil || s.Bits != 8<<20 || s.Rate > 0.01 || TheoreticalRate(s.Bits, s.Hashes, float64(s.Expected)*1.01) <= 0.01 {
		t.Errorf("1 MiB at 1%%: %+v, %v", s, err)
	}
	s, err = Size(1_000_000, 0, 1<<20)
	if k, r := bestHashes(8<<20, 1e6); err != nil || s.Bits != 8<<20 || s.Hashes != k || s.Rate != r || r < 0.01 || r > 0.03 {
		t.Errorf("1e6 in 1 MiB: %+v, %v", s, err)
	}
}

func BenchmarkFilter(b *testing.B) {
	for _, size := range []struct {
		name string
		bits uint64
	}{{"1MiB", 8 << 20}, {"256MiB", 8 << 28}} {
		b.Run(size.name, func(b *testing.B) {
			f := NewFilter(size.bits, 7)
			for i := range f.words {
				f.words[i] = 1 // its pages in memory before the clock starts
			}
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

// The bits a key sets are a stored value (the state file's
// layout=blocked512): pinned here. A change to them is a new layout name.
func TestLayoutPinned(t *testing.T) {
	f := NewFilter(1024, 6)
	f.Add(1)
	f.Add(0xdeadbeefcafef00d)
	want := map[int]uint64{
		0: 0x000a000000001000, 1: 0x1000000000000000, 3: 0x0800000000000000, 7: 0x0000000000000008,
		10: 0x0000000001000000, 11: 0x0000000000000040, 12: 0x0040000000008000, 13: 0x0000000000080002,
	}
	for i, w := range f.words {
		if w != want[i] {
			t.Errorf("word %d is %#016x, want %#016x: a changed layout needs a new name (layout=)", i, w, want[i])
		}
	}
}

// BenchmarkGroups looks up and adds keys as the stage does, a paragraph's
// 64 at a time (CountHas, AddAll: the blocks of 16 fetched together).
func BenchmarkGroups(b *testing.B) {
	f := NewFilter(8<<28, 6)
	for i := range f.words {
		f.words[i] = 1
	}
	rng := rand.New(rand.NewPCG(3, 4))
	keys := make([]uint64, 64)
	b.SetBytes(int64(len(keys))) // a "byte" a key
	b.ResetTimer()
	for b.Loop() {
		for i := range keys {
			keys[i] = rng.Uint64()
		}
		f.CountHas(keys)
		f.AddAll(keys)
	}
}
