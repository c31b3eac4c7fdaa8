package simhash

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// angleFraction fingerprints u and v (weights over the same features
// 0..len-1) under trials seeds and returns the mean fraction of differing
// bits.
func angleFraction(t *testing.T, f int, u, v []float64, trials int, seed0 uint64) float64 {
	t.Helper()
	hashes := make([]uint64, len(u))
	for i := range hashes {
		hashes[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	diff := 0
	for trial := range trials {
		s, err := New(f, seed0+uint64(trial), TF)
		if err != nil {
			t.Fatal(err)
		}
		a := s.Sum(hashes, u)
		b := s.Sum(hashes, v)
		diff += Distance(a, b)
	}
	return float64(diff) / float64(trials*f)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestCharikarAngle checks Charikar's property: for weighted vectors at
// angle θ the expected fraction of differing bits is θ/π.
func TestCharikarAngle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const d = 600
	for _, f := range []int{64, 128} {
		for _, theta := range []float64{math.Pi / 16, math.Pi / 6, math.Pi / 3, math.Pi / 2, 2 * math.Pi / 3} {
			// u and w orthonormal Gaussian vectors, v at angle θ from u.
			u := make([]float64, d)
			w := make([]float64, d)
			for i := range u {
				u[i] = rng.NormFloat64()
				w[i] = rng.NormFloat64()
			}
			nu := math.Sqrt(dot(u, u))
			for i := range u {
				u[i] /= nu
			}
			p := dot(w, u)
			for i := range w {
				w[i] -= p * u[i]
			}
			nw := math.Sqrt(dot(w, w))
			v := make([]float64, d)
			for i := range w {
				w[i] /= nw
				v[i] = math.Cos(theta)*u[i] + math.Sin(theta)*w[i]
			}
			const trials = 150
			got := angleFraction(t, f, u, v, trials, uint64(f)*1000)
			want := theta / math.Pi
			sigma := math.Sqrt(want * (1 - want) / float64(trials*f))
			if math.Abs(got-want) > 4*sigma+0.005 {
				t.Errorf("f=%d θ=%.3f: fraction of differing bits %.4f, want θ/π = %.4f (σ %.4f)", f, theta, got, want, sigma)
			}
		}
	}
}

// TestCharikarCounts checks the property on what documents give it:
// non-negative term counts over partly shared vocabularies.
func TestCharikarCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const vocab = 2000
	for _, shared := range []float64{0.3, 0.6, 0.9} {
		u := make([]float64, vocab)
		v := make([]float64, vocab)
		for i := range vocab {
			c := float64(1 + rng.IntN(5))
			switch r := rng.Float64(); {
			case r < shared:
				u[i], v[i] = c, c+float64(rng.IntN(2))
			case r < shared+(1-shared)/2:
				u[i] = c
			default:
				v[i] = c
			}
		}
		theta := math.Acos(dot(u, v) / math.Sqrt(dot(u, u)*dot(v, v)))
		const trials = 200
		got := angleFraction(t, 64, u, v, trials, 77)
		want := theta / math.Pi
		sigma := math.Sqrt(want * (1 - want) / float64(trials*64))
		if math.Abs(got-want) > 4*sigma+0.005 {
			t.Errorf("shared %.1f: fraction of differing bits %.4f, want θ/π = %.4f (σ %.4f)", shared, got, want, sigma)
		}
	}
}

// TestBitsBalanced checks that the fingerprints of unrelated documents differ
// in half their bits on average, and that no bit position is biased.
func TestBitsBalanced(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s, _ := New(64, 0, TF)
	const docs = 2000
	var ones [64]int
	var prev uint64
	total := 0
	for d := range docs {
		s.Reset()
		for range 50 {
			s.Add(rng.Uint64(), float64(1+rng.IntN(3)))
		}
		fp := s.Fingerprint().Hi
		for i := range 64 {
			ones[i] += int(fp >> i & 1)
		}
		if d > 0 {
			total += bits.OnesCount64(fp ^ prev)
		}
		prev = fp
	}
	mean := float64(total) / float64(docs-1)
	if math.Abs(mean-32) > 0.5 {
		t.Errorf("mean distance of unrelated fingerprints %.2f, want 32", mean)
	}
	for i, n := range ones {
		// Binomial(2000, 1/2): σ ≈ 22.4.
		if math.Abs(float64(n)-docs/2) > 5*22.4 {
			t.Errorf("bit %d is 1 in %d of %d fingerprints", i, n, docs)
		}
	}
}

func TestSimpleCases(t *testing.T) {
	s, _ := New(64, 9, TF)
	if fp := s.Sum(nil, nil); fp != (Fingerprint{}) {
		t.Errorf("empty document: %016x, want all zeros", fp.Hi)
	}
	// One feature: the fingerprint is its bits.
	k0, _ := Keys(9)
	if fp := s.Sum([]uint64{42}, []float64{2.5}); fp.Hi != Mix(42^k0) {
		t.Errorf("one feature: %016x, want %016x", fp.Hi, Mix(42^k0))
	}
	// A negative weight inverts.
	if fp := s.Sum([]uint64{42}, []float64{-1}); fp.Hi != ^Mix(42^k0) {
		t.Errorf("one feature, weight -1: %016x, want %016x", fp.Hi, ^Mix(42^k0))
	}
	// Two features of equal weight: agreeing bits survive, others tie to 0.
	k1 := Mix(7 ^ k0)
	if fp := s.Sum([]uint64{42, 7}, []float64{1, 1}); fp.Hi != Mix(42^k0)&k1 {
		t.Errorf("two features: %016x, want %016x", fp.Hi, Mix(42^k0)&k1)
	}
	// The heavier feature wins.
	if fp := s.Sum([]uint64{42, 7}, []float64{1, 3}); fp.Hi != k1 {
		t.Errorf("weights 1 and 3: %016x, want %016x", fp.Hi, k1)
	}
	// Order of features does not matter for integer weights.
	a := s.Sum([]uint64{1, 2, 3, 4, 5}, []float64{1, 2, 3, 4, 5})
	b := s.Sum([]uint64{5, 3, 1, 4, 2}, []float64{5, 3, 1, 4, 2})
	if a != b {
		t.Errorf("order changed the fingerprint: %v %v", a, b)
	}
	// f=128: the first half equals the 64-bit fingerprint, the second half
	// uses other bits.
	s128, _ := New(128, 9, TF)
	fp := s128.Sum([]uint64{1, 2, 3}, []float64{1, 1, 1})
	if fp.Hi != s.Sum([]uint64{1, 2, 3}, []float64{1, 1, 1}).Hi || fp.Lo == fp.Hi {
		t.Errorf("f=128: %016x%016x", fp.Hi, fp.Lo)
	}
	// Seeds give different fingerprints.
	s2, _ := New(64, 10, TF)
	if s2.Sum([]uint64{1, 2, 3}, []float64{1, 1, 1}) == a {
		t.Error("seeds 9 and 10 gave the same fingerprint")
	}
	if _, err := New(32, 0, TF); err == nil {
		t.Error("New(32) accepted")
	}
}

func TestDistance(t *testing.T) {
	a := Fingerprint{Hi: 0xff00, Lo: 1}
	b := Fingerprint{Hi: 0x0f00, Lo: 3}
	if d := Distance(a, b); d != 5 {
		t.Errorf("Distance = %d, want 5", d)
	}
	if d := Distance64(0, ^uint64(0)); d != 64 {
		t.Errorf("Distance64 = %d, want 64", d)
	}
}

func TestWeights(t *testing.T) {
	for _, c := range []struct {
		w    Weight
		n    uint32
		want float64
	}{
		{TF, 3, 3}, {Binary, 3, 1}, {LogTF, 1, 1}, {LogTF, 3, 1 + math.Log(3)},
	} {
		if got := c.w.Of(c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%v.Of(%d) = %g, want %g", c.w, c.n, got, c.want)
		}
	}
	if got := IDFWeight(2, 10, 10); math.Abs(got-2*(math.Log(11.0/11)+1)) > 1e-12 {
		t.Errorf("IDFWeight(2, 10, 10) = %g", got)
	}
	if IDFWeight(1, 0, 1000) <= IDFWeight(1, 500, 1000) {
		t.Error("a rare feature does not weigh more than a common one")
	}
	for _, name := range []string{"tf", "logtf", "binary", "idf"} {
		w, err := ParseWeight(name)
		if err != nil || w.String() != name {
			t.Errorf("ParseWeight(%q) = %v, %v", name, w, err)
		}
	}
	if _, err := ParseWeight("bm25"); err == nil {
		t.Error("ParseWeight(bm25) accepted")
	}
}

// TestCountsMatchWeights checks that the bit-plane path of counted features
// gives the fingerprint that adding each feature's weight gives, also for
// groups of more than 255 features and counts beyond the grouped ones.
func TestCountsMatchWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, f := range []int{64, 128} {
		for _, w := range []Weight{TF, LogTF, Binary} {
			s, _ := New(f, 3, w)
			for doc := range 60 {
				n := 1 + rng.IntN(700)
				if doc%10 == 0 {
					n = doc / 10 // tiny documents, many ties
				}
				hashes := make([]uint64, n)
				counts := make([]uint32, n)
				weights := make([]float64, n)
				for i := range hashes {
					hashes[i] = rng.Uint64()
					counts[i] = uint32(1 + rng.IntN(3))
					if rng.IntN(20) == 0 {
						counts[i] = uint32(10 + rng.IntN(300))
					}
					weights[i] = w.Of(counts[i])
				}
				got := s.SumCounts(hashes, counts)
				want := s.Sum(hashes, weights)
				if w != LogTF && got != want {
					t.Fatalf("f=%d %v, %d features: counts give %016x%016x, weights %016x%016x", f, w, n, got.Hi, got.Lo, want.Hi, want.Lo)
				}
				// logtf sums in another order: rounding may flip a
				// counter that is zero within an ulp, nothing more.
				if w == LogTF && Distance(got, want) > 1 {
					t.Fatalf("f=%d logtf, %d features: counts and weights differ in %d bits", f, n, Distance(got, want))
				}
			}
		}
	}
}

func BenchmarkFingerprint64(b *testing.B)       { benchmarkFingerprint(b, 64, false) }
func BenchmarkFingerprint128(b *testing.B)      { benchmarkFingerprint(b, 128, false) }
func BenchmarkFingerprint64Float(b *testing.B)  { benchmarkFingerprint(b, 64, true) }
func BenchmarkFingerprint128Float(b *testing.B) { benchmarkFingerprint(b, 128, true) }

// benchmarkFingerprint measures a document of 300 distinct features with
// counts 1 to 4 (tf weights), through the bit-plane path or with weights
// given one by one (the idf path); ns/op is per document.
func benchmarkFingerprint(b *testing.B, f int, float bool) {
	rng := rand.New(rand.NewPCG(1, 1))
	hashes := make([]uint64, 300)
	counts := make([]uint32, 300)
	weights := make([]float64, 300)
	for i := range hashes {
		hashes[i] = rng.Uint64()
		counts[i] = uint32(1 + rng.IntN(4))
		weights[i] = float64(counts[i])
	}
	s, _ := New(f, 0, TF)
	b.ReportAllocs()
	var sink Fingerprint
	for b.Loop() {
		if float {
			sink = s.Sum(hashes, weights)
		} else {
			sink = s.SumCounts(hashes, counts)
		}
	}
	_ = sink
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hashes)), "ns/feature")
}
