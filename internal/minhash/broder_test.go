package minhash

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
)

// bottomKSD is the spread of the MIN_s resemblance estimate. The s smallest
// values of A ∪ B under a random permutation are a sample without
// replacement of m = min(s, U) of the U elements of the union, and the
// estimate is the fraction of them in A ∩ B: hypergeometric, with mean J
// and variance J(1-J)/m · (U-m)/(U-1).
func bottomKSD(j float64, s, u int) float64 {
	m := min(s, u)
	if u == 1 {
		return 0
	}
	return math.Sqrt(j * (1 - j) / float64(m) * float64(u-m) / float64(u-1))
}

// TestBottomKEstimator measures Broder's MIN_s resemblance estimate against
// its hypergeometric mean and spread. With U ≤ s the samples hold the whole
// sets and the estimate is exact; at U = 200, s = 128 sampling without
// replacement makes the spread 0.6 of the binomial one, which the test tells
// apart from sqrt(J(1-J)/s).
func TestBottomKEstimator(t *testing.T) {
	for _, c := range []struct{ s, union, trials int }{
		{64, 60, 200}, {128, 60, 200}, {128, 200, 2000}, {64, 2000, 1000}, {128, 2000, 1000},
	} {
		t.Run(fmt.Sprintf("s=%d/union=%d", c.s, c.union), func(t *testing.T) {
			if c.union >= 2000 {
				testutil.Slow(t)
			}
			t.Parallel()
			bk := NewBottomK(c.s, 21)
			g := newPairGen(uint64(c.s)<<32 | uint64(c.union))
			report := fmt.Sprintf("%d pairs per J:", c.trials)
			defer func() { t.Log(report) }()
			var sa, sb []uint64
			for _, j := range testJaccards {
				inter := intersection(j, c.union)
				var errs summary
				for range c.trials {
					a, b := g.pair(c.union, inter)
					sa = bk.Sample(sa[:0], a)
					sb = bk.Sample(sb[:0], b)
					errs.add(BottomKResemblance(sa, sb, c.s) - j)
				}
				theory := bottomKSD(j, c.s, c.union)
				report += fmt.Sprintf("\n\tJ=%.2f  bias %+.4f  sd %.4f  hypergeometric sd %.4f  binomial sqrt(J(1-J)/s) %.4f",
					j, errs.mean(), errs.sd(), theory, math.Sqrt(j*(1-j)/float64(c.s)))
				if theory == 0 {
					if errs.mean() > 1e-12 || errs.sd() > 1e-12 {
						t.Errorf("J=%.2f: the samples hold the whole sets, yet the estimate is off by %+.4f (sd %.4f)", j, errs.mean(), errs.sd())
					}
					continue
				}
				if math.Abs(errs.mean()) >= maxBias {
					t.Errorf("J=%.2f: mean error %+.4f, want |bias| < %g", j, errs.mean(), maxBias)
				}
				if r := errs.sd() / theory; math.Abs(r-1) > sdTolerance {
					t.Errorf("J=%.2f: sd %.4f is %.3f × the hypergeometric %.4f, want within %g", j, errs.sd(), r, theory, sdTolerance)
				}
			}
		})
	}
}

// TestBottomKSample: the sample is the s smallest permuted values,
// ascending and distinct, all of them when the set is smaller.
func TestBottomKSample(t *testing.T) {
	g := newPairGen(8)
	bk := NewBottomK(16, 3)
	for _, size := range []int{0, 1, 15, 16, 17, 500} {
		set, _ := g.pair(size, size)
		permuted := make([]uint64, len(set))
		for i, x := range set {
			permuted[i] = bk.Permute(x)
		}
		slices.Sort(permuted)
		want := permuted[:min(16, len(permuted))]
		// Repeated values count once.
		got := bk.Sample(nil, append(slices.Clone(set), set...))
		if !slices.Equal(got, want) {
			t.Errorf("size %d: sample %x, want the 16 smallest permuted values %x", size, got, want)
		}
	}
	if got := BottomKResemblance(nil, []uint64{1}, 4); got != 0 {
		t.Errorf("resemblance with an empty sample: %g, want 0", got)
	}
}

// binomialPMF returns P(X = k) for X ~ Bin(n, p).
func binomialPMF(n, k int, p float64) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// modMMoments returns the mean and spread of the MOD_m estimate |MOD(A∩B)| /
// |MOD(A)| of the containment c = inter/size (or, with the union for A, of
// the resemblance). Each element is sampled with probability p = 1/m
// independently, so the sample of A has N ~ Bin(size, p) elements, and given
// N the sampled ones from A∩B are hypergeometric: the estimate has mean c
// and variance c(1-c)/N · (size-N)/(size-1). An empty sample gives 0.
func modMMoments(size, inter int, p float64) (mean, sd float64) {
	c := float64(inter) / float64(size)
	var m1, m2 float64
	for n := 1; n <= size; n++ {
		pn := binomialPMF(size, n, p)
		v := 0.0
		if size > 1 {
			v = c * (1 - c) / float64(n) * float64(size-n) / float64(size-1)
		}
		m1 += pn * c
		m2 += pn * (v + c*c)
	}
	return m1, math.Sqrt(max(m2-m1*m1, 0))
}

// TestModMEstimator measures the MOD_m containment estimates c(A,B) and
// c(B,A) and the resemblance estimate against their theory (modMMoments):
// unbiased, with the spread of a sample of about |A|/m elements.
func TestModMEstimator(t *testing.T) {
	for _, c := range []struct {
		size   int
		m      uint64
		trials int
	}{{60, 4, 2000}, {2000, 16, 2000}} {
		t.Run(fmt.Sprintf("size=%d/m=%d", c.size, c.m), func(t *testing.T) {
			if c.size >= 2000 {
				testutil.Slow(t)
			}
			t.Parallel()
			mm := NewModM(c.m, 5)
			g := newPairGen(uint64(c.size)<<8 | c.m)
			p := 1 / float64(c.m)
			report := fmt.Sprintf("%d pairs per containment:", c.trials)
			defer func() { t.Log(report) }()
			check := func(what string, errs summary, size, inter int) {
				mean, sd := modMMoments(size, inter, p)
				want := float64(inter) / float64(size)
				report += fmt.Sprintf("\n\t%s = %.3f  bias %+.4f  sd %.4f  theory: bias %+.1e sd %.4f", what, want, errs.mean(), errs.sd(), mean-want, sd)
				if math.Abs(errs.mean()) >= maxBias {
					t.Errorf("%s = %.3f: mean error %+.4f, want |bias| < %g", what, want, errs.mean(), maxBias)
				}
				if inter == size {
					// Exact but for an empty sample (estimate 0), which
					// has probability (1-1/m)^size.
					if errs.sd() > sd {
						t.Errorf("%s = %.3f: sd %.4f, want at most %.4f", what, want, errs.sd(), sd)
					}
					return
				}
				if r := errs.sd() / sd; math.Abs(r-1) > sdTolerance {
					t.Errorf("%s = %.3f: sd %.4f is %.3f × the theory's %.4f, want within %g", what, want, errs.sd(), r, sd, sdTolerance)
				}
			}
			var sa, sb []uint64
			extra := c.size / 2
			for _, cont := range append(slices.Clone(testJaccards), 1) {
				inter := intersection(cont, c.size)
				var ab, ba summary
				for range c.trials {
					a, b := g.containment(c.size, inter, extra)
					sa = mm.Sample(sa[:0], a)
					sb = mm.Sample(sb[:0], b)
					ab.add(ModMContainment(sa, sb) - cont)
					ba.add(ModMContainment(sb, sa) - float64(inter)/float64(inter+extra))
				}
				check("c(A,B)", ab, c.size, inter)
				check("c(B,A)", ba, inter+extra, inter)
			}
			for _, j := range testJaccards {
				inter := intersection(j, c.size)
				var errs summary
				for range c.trials {
					a, b := g.pair(c.size, inter)
					errs.add(ModMResemblance(mm.Sample(sa[:0], a), mm.Sample(sb[:0], b)) - j)
				}
				check("J", errs, c.size, inter)
			}
		})
	}
}

// TestModMSample: the sample keeps each element with probability 1/m, and
// the sample of A ∩ B is the intersection of the samples of A and B, which
// is what makes the estimates work.
func TestModMSample(t *testing.T) {
	const m = 8
	mm := NewModM(m, 1)
	g := newPairGen(4)
	a, b := g.containment(100000, 50000, 50000)
	a, b = slices.Clone(a), slices.Clone(b)
	sa, sb := mm.Sample(nil, a), mm.Sample(nil, b)
	for _, v := range sa {
		if v%m != 0 {
			t.Fatalf("sampled value %#x is not 0 mod %d", v, m)
		}
	}
	if !slices.IsSorted(sa) || len(slices.Compact(slices.Clone(sa))) != len(sa) {
		t.Fatalf("sample is not ascending and distinct")
	}
	// Expected 100000/8 = 12500 with sd sqrt(100000·(1/8)(7/8)) ≈ 105.
	if d := math.Abs(float64(len(sa)) - 12500); d > 5*105 {
		t.Errorf("sampled %d of 100000 values with m = 8, want 12500 ± 525", len(sa))
	}
	both := mm.Sample(nil, a[50000:])
	if got := intersectCount(sa, sb); got != len(both) {
		t.Errorf("|MOD(A) ∩ MOD(B)| = %d, |MOD(A ∩ B)| = %d: want equal", got, len(both))
	}
	if got := ModMContainment(nil, sb); got != 0 {
		t.Errorf("containment of an empty sample: %g, want 0", got)
	}
	if got := ModMResemblance(nil, nil); got != 0 {
		t.Errorf("resemblance of empty samples: %g, want 0", got)
	}
}
