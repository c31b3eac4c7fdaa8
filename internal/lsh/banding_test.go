package lsh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/testutil"
)

// randomPair returns two sets of distinct random values with |A ∪ B| = u and
// |A ∩ B| = inter.
func randomPair(rng *rand.Rand, u, inter int) (a, b []uint64) {
	seen := make(map[uint64]bool, u)
	v := make([]uint64, 0, u)
	for len(v) < u {
		if x := rng.Uint64(); !seen[x] {
			seen[x] = true
			v = append(v, x)
		}
	}
	onlyA := (u - inter) / 2
	return v[:inter+onlyA], append(slices.Clone(v[:inter]), v[inter+onlyA:]...)
}

// candidates reports whether two signatures share a band key under bd:
// some band with equal BandHash.
func candidates(bd Banding, x, y []uint64, buf []byte) (bool, []byte) {
	for i := range bd.B {
		var hx, hy uint64
		hx, buf = bd.BandHash(buf, x, i)
		hy, buf = bd.BandHash(buf, y, i)
		if hx == hy {
			return true, buf
		}
	}
	return false, buf
}

// TestCandidateProbabilitySimulated bands real signatures of random set
// pairs of known Jaccard similarity and counts the pairs that share a band
// key: the fraction must match 1-(1-J^r)^b within 4 standard errors of
// binomial sampling (plus one pair, for probabilities near 0 or 1).
func TestCandidateProbabilitySimulated(t *testing.T) {
	testutil.Slow(t)
	const n, union, trials = 128, 200, 3000
	bandings := []Banding{{20, 5}, {32, 4}, {16, 8}, {42, 3}, {8, 16}, {64, 2}}
	type signer interface{ Signature(sig, set []uint64) }
	for _, method := range []string{"minhash", "oph"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			var s signer = minhash.NewFamily(n, 17)
			u := union
			if method == "oph" {
				// OPH needs a union well above n to meet the minhash
				// bars (see the minhash tests).
				s, u = minhash.NewOPH(n, 17), 1000
			}
			rng := rand.New(rand.NewPCG(uint64(u), 1))
			sa, sb := make([]uint64, n), make([]uint64, n)
			var buf []byte
			var report strings.Builder
			defer func() { t.Log(report.String()) }()
			for _, j := range []float64{0.3, 0.5, 0.6, 0.7, 0.8, 0.9} {
				inter := int(math.Round(j * float64(u)))
				count := make([]int, len(bandings))
				for range trials {
					a, b := randomPair(rng, u, inter)
					s.Signature(sa, a)
					s.Signature(sb, b)
					for k, bd := range bandings {
						var c bool
						c, buf = candidates(bd, sa, sb, buf)
						if c {
							count[k]++
						}
					}
				}
				for k, bd := range bandings {
					p := CandidateProbability(j, bd.B, bd.R)
					sd := math.Sqrt(trials * p * (1 - p))
					dev := float64(count[k]) - trials*p
					fmt.Fprintf(&report, "\n\tJ=%.1f b=%2d r=%2d: %4d of %d candidates, formula %.4f, measured %.4f (%+.1f se)",
						j, bd.B, bd.R, count[k], trials, p, float64(count[k])/trials, dev/max(sd, 1e-9))
					if math.Abs(dev) > 4*sd+1 {
						t.Errorf("J=%.1f b=%d r=%d: %d of %d pairs became candidates, the formula expects %.1f ± %.1f", j, bd.B, bd.R, count[k], trials, trials*p, sd)
					}
				}
			}
		})
	}
}

// TestBandHash: a band's hash depends on its rows only.
func TestBandHash(t *testing.T) {
	bd := Banding{B: 4, R: 3}
	sig := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	other := slices.Clone(sig)
	other[4] = 99 // band 1
	var buf []byte
	for i := range bd.B {
		var h1, h2 uint64
		h1, buf = bd.BandHash(buf, sig, i)
		h2, buf = bd.BandHash(buf, other, i)
		if (h1 == h2) != (i != 1) {
			t.Errorf("band %d: hashes %x and %x; only band 1 differs", i, h1, h2)
		}
	}
	// The same rows in different bands hash alike: the band number is
	// added by the key, not the hash.
	rep := []uint64{7, 8, 9, 7, 8, 9}
	h0, buf := Banding{2, 3}.BandHash(buf, rep, 0)
	h1, _ := Banding{2, 3}.BandHash(buf, rep, 1)
	if h0 != h1 {
		t.Errorf("equal rows in bands 0 and 1 hash to %x and %x", h0, h1)
	}
}

func TestCandidateProbabilityFormula(t *testing.T) {
	for _, c := range []struct {
		s    float64
		b, r int
		want float64
	}{
		{0, 20, 5, 0},
		{1, 20, 5, 1},
		{0.5, 1, 1, 0.5},
		{0.5, 2, 1, 0.75},
		{0.5, 1, 2, 0.25},
		// MMDS 3.4.2: b = 20, r = 5, s = 0.8 gives 0.99965.
		{0.8, 20, 5, 0.999644},
	} {
		if got := CandidateProbability(c.s, c.b, c.r); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("CandidateProbability(%g, %d, %d) = %.6f, want %.6f", c.s, c.b, c.r, got, c.want)
		}
	}
	prev := -1.0
	for s := 0.0; s <= 1; s += 0.01 {
		p := CandidateProbability(s, 16, 8)
		if p < prev {
			t.Fatalf("the S-curve falls at s = %.2f", s)
		}
		prev = p
	}
}

// TestThreshold: (1/b)^(1/r), near where the S-curve is steepest. Setting
// the derivative of b·r·s^(r-1)·(1-s^r)^(b-1) to 0 gives the exact point
// s^r = (r-1)/(rb-1); (1/b)^(1/r) approximates it for large b and r, and a
// pair at the threshold becomes a candidate with probability about 1-1/e.
func TestThreshold(t *testing.T) {
	if got := Threshold(20, 5); math.Abs(got-0.5493) > 1e-4 {
		t.Errorf("Threshold(20, 5) = %.4f, want 0.5493", got)
	}
	if got := Threshold(4, 1); got != 0.25 {
		t.Errorf("Threshold(4, 1) = %g, want 1/b", got)
	}
	if got := Threshold(1, 7); got != 1 {
		t.Errorf("Threshold(1, 7) = %g, want 1", got)
	}
	for _, bd := range []Banding{{20, 5}, {32, 4}, {16, 8}, {10, 10}, {50, 5}, {25, 10}} {
		th := Threshold(bd.B, bd.R)
		steepest := math.Pow(float64(bd.R-1)/float64(bd.R*bd.B-1), 1/float64(bd.R))
		p := CandidateProbability(th, bd.B, bd.R)
		if math.Abs(th-steepest) > 0.03 {
			t.Errorf("b=%d r=%d: threshold %.4f, the S-curve is steepest at %.4f", bd.B, bd.R, th, steepest)
		}
		if math.Abs(p-(1-1/math.E)) > 0.02 {
			t.Errorf("b=%d r=%d: probability %.4f at the threshold, want about 1-1/e", bd.B, bd.R, p)
		}
	}
}

// curveAreas returns, for i = 0..20, the area under the S-curve of b and r
// on [0, i/20], by Simpson's rule with 200 intervals on each twentieth: ten
// to a hundred times finer than ChooseBanding's 200 intervals on [0, t].
func curveAreas(b, r int) (prefix [21]float64) {
	const k = 200
	h := 1.0 / 20 / k
	for i := range 20 {
		lo := float64(i) / 20
		sum := CandidateProbability(lo, b, r) + CandidateProbability(lo+k*h, b, r)
		for j := 1; j < k; j++ {
			sum += float64(2+2*(j%2)) * CandidateProbability(lo+float64(j)*h, b, r)
		}
		prefix[i+1] = prefix[i] + sum*h/3
	}
	return prefix
}

// TestChooseBanding checks the choice against a brute-force search over
// every banding with b·r ≤ n: it fits, meets the floor whenever some banding
// does, and no banding that meets the floor costs less.
func TestChooseBanding(t *testing.T) {
	testutil.Slow(t)
	type weights struct{ fp, fn, floor float64 }
	for _, n := range []int{64, 128, 256} {
		all := map[Banding][21]float64{}
		for b := 1; b <= n; b++ {
			for r := 1; b*r <= n; r++ {
				all[Banding{b, r}] = curveAreas(b, r)
			}
		}
		// areas returns the false-positive and false-negative areas at the
		// threshold i/20.
		areas := func(bd Banding, i int) (fp, fn float64) {
			p := all[bd]
			return p[i], (1 - float64(i)/20) - (p[20] - p[i])
		}
		for _, w := range []weights{{0.5, 0.5, 0.995}, {0.2, 0.8, 0.9}, {0.5, 0.5, 0}} {
			for ti := 10; ti <= 19; ti++ {
				th := float64(ti) / 20
				c := ChooseBanding(n, th, w.fp, w.fn, w.floor)
				name := fmt.Sprintf("n=%d t=%.2f weights %g/%g floor %g", n, th, w.fp, w.fn, w.floor)
				if c.B < 1 || c.R < 1 || c.B*c.R > n {
					t.Errorf("%s: %d bands of %d rows do not fit", name, c.B, c.R)
					continue
				}
				if p := CandidateProbability(th, c.B, c.R); math.Abs(c.AtThreshold-p) > 1e-12 {
					t.Errorf("%s: AtThreshold %g, the formula gives %g", name, c.AtThreshold, p)
				}
				fp, fn := areas(c.Banding, ti)
				if math.Abs(c.FalsePositiveArea-fp) > 1e-4 || math.Abs(c.FalseNegativeArea-fn) > 1e-4 {
					t.Errorf("%s: areas %.6f/%.6f, finer integration gives %.6f/%.6f", name, c.FalsePositiveArea, c.FalseNegativeArea, fp, fn)
				}
				chosen := w.fp*fp + w.fn*fn
				some := false
				for bd := range all {
					if CandidateProbability(th, bd.B, bd.R) < w.floor {
						continue
					}
					some = true
					fp, fn := areas(bd, ti)
					if cost := w.fp*fp + w.fn*fn; cost < chosen-1e-5 {
						t.Errorf("%s: chose b=%d r=%d (cost %.6f), b=%d r=%d costs %.6f", name, c.B, c.R, chosen, bd.B, bd.R, cost)
					}
				}
				if c.FloorMet != some {
					t.Errorf("%s: FloorMet %v, brute force says %v", name, c.FloorMet, some)
				}
				if some && c.AtThreshold < w.floor {
					t.Errorf("%s: probability %.4f at the threshold is below the floor", name, c.AtThreshold)
				}
				if ti%3 == 1 {
					t.Logf("%s: b=%d r=%d, P(t) %.4f, areas FP %.4f FN %.4f", name, c.B, c.R, c.AtThreshold, fp, fn)
				}
			}
		}
	}
}

// TestChooseBandingUnreachable: when no banding reaches the floor, the one
// with the highest probability at the threshold, and FloorMet false.
func TestChooseBandingUnreachable(t *testing.T) {
	c := ChooseBanding(8, 0.1, 0.5, 0.5, 0.995)
	if c.FloorMet {
		t.Fatalf("8 values can't make a pair at 0.1 a candidate with probability 0.995, yet FloorMet")
	}
	if c.B != 8 || c.R != 1 {
		t.Errorf("chose b=%d r=%d, want the most sensitive b=8 r=1", c.B, c.R)
	}
	if want := 1 - math.Pow(0.9, 8); math.Abs(c.AtThreshold-want) > 1e-12 {
		t.Errorf("AtThreshold %g, want %g", c.AtThreshold, want)
	}
}

func TestBandingCheck(t *testing.T) {
	for _, c := range []struct {
		bd   Banding
		n    int
		want string
	}{
		{Banding{20, 5}, 100, ""},
		{Banding{20, 5}, 128, ""},
		{Banding{20, 5}, 99, "need 100"},
		{Banding{0, 5}, 128, "at least 1"},
		{Banding{5, 0}, 128, "at least 1"},
		{Banding{0x10000, 1}, 1 << 17, "at most 65535"},
	} {
		err := c.bd.Check(c.n)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v.Check(%d) = %v, want %q", c.bd, c.n, err, c.want)
		}
	}
}

func BenchmarkBandHash(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	sig := make([]uint64, 128)
	for i := range sig {
		sig[i] = rng.Uint64()
	}
	bd := Banding{B: 20, R: 5}
	var buf []byte
	var sink uint64
	b.ReportAllocs()
	b.SetBytes(int64(8 * bd.Rows()))
	for b.Loop() {
		for i := range bd.B {
			var h uint64
			h, buf = bd.BandHash(buf, sig, i)
			sink ^= h
		}
	}
	_ = sink
}

func BenchmarkChooseBanding(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ChooseBanding(128, 0.8, 0.5, 0.5, 0.995)
	}
}

// A band of bits hashes the band's bits alone, wherever they fall across
// the words: flipping any bit of band i changes its hash and no other's.
func TestBitBandHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, bd := range []Banding{{B: 21, R: 12}, {B: 3, R: 70}, {B: 4, R: 64}, {B: 256, R: 1}} {
		words := make([]uint64, 4) // 256 bits
		for i := range words {
			words[i] = rng.Uint64()
		}
		var buf []byte
		hashes := make([]uint64, bd.B)
		for i := range bd.B {
			hashes[i], buf = bd.BitBandHash(buf, words, i)
		}
		for _, bit := range []int{0, 11, 12, 63, 64, 65, 127, 128, 200, bd.Rows() - 1} {
			flipped := slices.Clone(words)
			flipped[bit/64] ^= 1 << (63 - bit%64)
			for i := range bd.B {
				var h uint64
				h, buf = bd.BitBandHash(buf, flipped, i)
				if in := bit/bd.R == i; (h != hashes[i]) != in {
					t.Errorf("b=%d r=%d: bit %d flipped, band %d's hash changed %v", bd.B, bd.R, bit, i, !in)
				}
			}
		}
	}
	// Equal bits in different bands hash alike (the key adds the band).
	words := []uint64{0xabcabc0000000000}
	h0, buf := Banding{B: 2, R: 12}.BitBandHash(nil, words, 0)
	h1, _ := Banding{B: 2, R: 12}.BitBandHash(buf, words, 1)
	if h0 != h1 {
		t.Errorf("equal bits in bands 0 and 1 hash to %x and %x", h0, h1)
	}
}

// Amplify takes the most rows that reach the floor with as many bands as
// fit: at p = 0.7952 (cosine 0.8) and 1024 bits, 12 rows and 85 bands
// reach 0.995 and 13 rows (78 bands) do not.
func TestAmplify(t *testing.T) {
	p := 1 - math.Acos(0.8)/math.Pi
	bd, prob, ok := Amplify(1024, p, 0.995)
	if !ok || bd != (Banding{B: 85, R: 12}) || prob < 0.995 {
		t.Errorf("Amplify(1024, %.4f, 0.995) = %v, %.4f, %v; want 85 bands of 12 rows", p, bd, prob, ok)
	}
	if CandidateProbability(p, 1024/13, 13) >= 0.995 {
		t.Errorf("13 rows reach the floor too: the test does not pin the most rows")
	}
	if bd, _, ok := Amplify(4, 0.1, 0.99); ok || bd != (Banding{B: 4, R: 1}) {
		t.Errorf("Amplify(4, 0.1, 0.99) = %v, %v; want 4 bands of 1 row, not ok", bd, ok)
	}
}

// ChooseBanding's choice, areas and all, are exactly those of the search
// that integrates both areas of every banding that meets the floor, over
// lengths, thresholds, weights and floors.
func TestChooseBandingPruned(t *testing.T) {
	testutil.Slow(t)
	for _, n := range []int{4, 16, 100, 128, 256} {
		for ti := 1; ti <= 19; ti += 2 {
			th := float64(ti) / 20
			for _, w := range [][3]float64{{0.5, 0.5, 0.995}, {0.2, 0.8, 0.9}, {0.9, 0.1, 0.5}, {1, 0, 0.99}, {0, 1, 0.995}, {0.5, 0.5, 0}} {
				got := ChooseBanding(n, th, w[0], w[1], w[2])
				skipCostly = false
				want := ChooseBanding(n, th, w[0], w[1], w[2])
				skipCostly = true
				if got != want {
					t.Fatalf("n=%d t=%g weights %g/%g floor %g: %+v, the full search %+v", n, th, w[0], w[1], w[2], got, want)
				}
			}
		}
	}
}
