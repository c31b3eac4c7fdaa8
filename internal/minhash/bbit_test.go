package minhash

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bbitSigner signs a set with one of the two methods.
type bbitSigner struct {
	name      string
	sign      func(sig, set []uint64)
	densified bool
}

func bbitSigners(n int, seed uint64) []bbitSigner {
	oph, fam := NewOPH(n, seed), NewFamily(n, seed)
	return []bbitSigner{{"oph", oph.Signature, true}, {"minhash", fam.Signature, false}}
}

// bbitPair returns the b-bit signatures and sizes of a pair of sets of
// size about s and Jaccard j drawn by g.
func bbitPair(g *pairGen, sg bbitSigner, n, s int, j float64) (a, b []byte, sa, sb int) {
	// |A| = |B| = s: union u = 2s/(1+j), intersection j·u.
	u := int(math.Round(2 * float64(s) / (1 + j)))
	inter := int(math.Round(j * float64(u)))
	x, y := g.pair(u, inter)
	sx, sy := make([]uint64, n), make([]uint64, n)
	sg.sign(sx, x)
	sg.sign(sy, y)
	return AppendBits(nil, sx), AppendBits(nil, sy), len(x), len(y)
}

// TestFarBelowBound checks the error FarBelow states: pairs at the
// threshold are set aside at most at the rate asked. The test asks for a
// loose rate (5 %) that a few thousand trials can measure, on large sets
// and on small ones, whose oph signatures are mostly copies (densified):
// counting every position as independent there sets aside far more.
func TestFarBelowBound(t *testing.T) {
	const n, trials, rate = 128, 2000, 0.05
	logErr := -math.Log(rate)
	for _, sg := range bbitSigners(n, 7) {
		for _, s := range []int{8, 30, 2000} {
			for _, j := range []float64{0.5, 0.8, 0.9} {
				g := newPairGen(uint64(s)*1000 + uint64(j*100))
				drops := 0
				for range trials {
					a, b, sa, sb := bbitPair(g, sg, n, s, j)
					// The threshold is the pair's own similarity, on
					// the sizes drawn.
					inter := (sa + sb) * int(math.Round(j*1000)) / int(math.Round((1+j)*1000))
					least := float64(inter) / float64(sa+sb-inter)
					if farBelow(a, b, sa, sb, least, sg.densified, logErr) {
						drops++
					}
				}
				got := float64(drops) / trials
				t.Logf("%s, sets of %d, J %.1f: %.4f set aside at the threshold", sg.name, s, j, got)
				// Three standard deviations of a rate at the bound.
				if limit := rate + 3*math.Sqrt(rate*(1-rate)/trials); got > limit {
					t.Errorf("%s, sets of %d, J %.1f: %.4f of the pairs at the threshold set aside, want at most %.2f (%.4f with the spread of %d trials)", sg.name, s, j, got, rate, limit, trials)
				}
			}
		}
	}
}

// TestFarBelowPower checks that the filter does its work: pairs far below
// the threshold are set aside, and sizes that rule a pair out do so.
func TestFarBelowPower(t *testing.T) {
	const n, trials = 128, 2000
	for _, sg := range bbitSigners(n, 11) {
		g := newPairGen(99)
		drops := 0
		for range trials {
			a, b, sa, sb := bbitPair(g, sg, n, 2000, 0.2)
			if FarBelow(a, b, sa, sb, 0.8, sg.densified) {
				drops++
			}
		}
		if drops < trials*99/100 {
			t.Errorf("%s: %d of %d pairs at J 0.2 set aside at threshold 0.8, want 99 %%", sg.name, drops, trials)
		}
		a, b, _, _ := bbitPair(g, sg, n, 2000, 1)
		if !FarBelow(a, b, 100, 200, 0.8, sg.densified) {
			t.Errorf("%s: sizes 100 and 200 (J at most 0.5) not set aside at 0.8", sg.name)
		}
		if FarBelow(a, b, 100, 200, 0.4, sg.densified) {
			t.Errorf("%s: identical signatures of sizes 100 and 200 set aside at 0.4", sg.name)
		}
	}
}

// TestContainmentLeast checks the bound against the sets it describes.
func TestContainmentLeast(t *testing.T) {
	// A of 10 inside B of 40 at 0.9: 9 common, union 41.
	if got, want := ContainmentLeast(10, 40, 0.9), 9.0/41; math.Abs(got-want) > 1e-12 {
		t.Errorf("ContainmentLeast(10, 40, 0.9) = %g, want %g", got, want)
	}
	if got := ContainmentLeast(40, 10, 0.9); math.Abs(got-9.0/41) > 1e-12 {
		t.Errorf("ContainmentLeast is not symmetric: %g", got)
	}
}

func TestAppendBits(t *testing.T) {
	sig := []uint64{1, 2, 3, 1}
	b := AppendBits(nil, sig)
	if len(b) != 2 || b[0]&0xf != b[1]>>4 || agreements(b, b) != 4 {
		t.Errorf("AppendBits(%v) = %x", sig, b)
	}
}

// TestAgreements counts agreeing half bytes one at a time, on signatures of
// every length up to 200 bytes (blocks of 64 with AVX-512, words, a tail
// after them, or none) that agree on about half their positions.
func TestAgreements(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 201 {
		for range 50 {
			a, b := make([]byte, n), make([]byte, n)
			want := 0
			for i := range n {
				a[i] = byte(r.Uint32())
				b[i] = a[i]
				for _, half := range []byte{0x0f, 0xf0} {
					if r.IntN(2) == 0 {
						b[i] ^= half & byte((1+r.IntN(15))*0x11)
					}
					if (a[i]^b[i])&half == 0 {
						want++
					}
				}
			}
			if got := agreements(a, b); got != want {
				t.Fatalf("agreements(%x, %x) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// BenchmarkAgreements is one b-bit test's count: 128 positions, 64 bytes.
func BenchmarkAgreements(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	sigs := make([][]byte, 1024)
	for i := range sigs {
		sigs[i] = make([]byte, 64)
		for j := range sigs[i] {
			sigs[i][j] = byte(r.Uint32())
		}
	}
	n := 0
	i := 0
	for b.Loop() {
		n += agreements(sigs[i&1023], sigs[(i+1)&1023])
		i++
	}
	if n < 0 {
		b.Fatal(n)
	}
}

// FarJudge answers as FarBelow does, for signatures of 128 and 256 values
// that agree on any number of positions, sizes on both sides of the size
// from which n_eff stops changing, both kinds of signature and thresholds.
func TestFarJudge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{128, 256} {
		for _, densified := range []bool{true, false} {
			for _, least := range []float64{0.5, 0.8, 0.95} {
				j := NewFarJudge(n, least, densified)
				far := 0
				for trial := range 20000 {
					a, b := make([]byte, n/2), make([]byte, n/2)
					for i := range a {
						a[i] = byte(rng.Uint32())
						b[i] = a[i]
					}
					// Disagree on a share of the positions.
					share := rng.Float64()
					for i := range n {
						if rng.Float64() < share {
							b[i/2] ^= byte(1+rng.IntN(15)) << (4 * (i % 2))
						}
					}
					sa := 1 + rng.IntN(50*n)
					if trial%4 == 0 {
						sa = 1 + rng.IntN(n)
					}
					sb := sa + rng.IntN(sa/4+1)
					want := FarBelow(a, b, sa, sb, least, densified)
					if got := j.Far(a, b, sa, sb); got != want {
						t.Fatalf("n %d, densified %v, least %g, sizes %d and %d, %d agreements: Far %v, FarBelow %v", n, densified, least, sa, sb, agreements(a, b), got, want)
					}
					if want {
						far++
					}
				}
				if far == 0 || far == 20000 {
					t.Fatalf("n %d, densified %v, least %g: %d of 20000 far below: the trials test nothing", n, densified, least, far)
				}
			}
		}
	}
}
