package vector

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/simhash"
)

// Two vectors at angle θ differ in each bit with probability θ/π
// (Charikar): measured over many seeds for several angles.
func TestCharikarAngle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim, trials = 40, 300
	for _, theta := range []float64{0.1, 0.45, 1.0, 2.0} {
		diff := 0
		for seed := range uint64(trials) {
			// u and v: a random orthonormal pair, v turned by θ from u.
			u, w := make([]float64, dim), make([]float64, dim)
			for i := range u {
				u[i], w[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			normalize(u)
			d := dot(u, w)
			for i := range w {
				w[i] -= d * u[i]
			}
			normalize(w)
			v := make([]float64, dim)
			for i := range v {
				v[i] = math.Cos(theta)*u[i] + math.Sin(theta)*w[i]
			}
			// 1024 bits: the random vectors past the first 128 (of
			// another key) differ as often.
			h := NewHyperplanes(1024, dim, seed)
			fu, _ := h.Words(nil, nil, u)
			fv, _ := h.Words(nil, nil, v)
			for i := range fu {
				diff += bits.OnesCount64(fu[i] ^ fv[i])
			}
		}
		got, want := float64(diff)/(1024*trials), theta/math.Pi
		// The standard error is below 0.002 for these counts.
		if math.Abs(got-want) > 0.01 {
			t.Errorf("θ=%g: bits differ with frequency %.4f, want θ/π = %.4f", theta, got, want)
		}
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func normalize(v []float64) {
	n := math.Sqrt(dot(v, v))
	for i := range v {
		v[i] /= n
	}
}

// The 64-bit fingerprint is the first half of the 128-bit one, and a
// vector's fingerprint does not change when zeros are appended to it (the
// random vectors of a dimension are the first components of those of a
// larger one); the zero vector is all zeros.
func TestFingerprintPrefixes(t *testing.T) {
	v := knownVector(10)
	fp64 := fingerprint(NewHyperplanes(64, 10, 5), v)
	fp128 := fingerprint(NewHyperplanes(128, 10, 5), v)
	if fp64.Hi != fp128.Hi || fp64.Lo != 0 {
		t.Errorf("64 bits %x %x, 128 bits %x %x: want the first half", fp64.Hi, fp64.Lo, fp128.Hi, fp128.Lo)
	}
	padded := append(append([]float64{}, v...), make([]float64, 20)...)
	if got := fingerprint(NewHyperplanes(128, 30, 5), padded); got != fp128 {
		t.Errorf("padded with zeros: %x %x, want %x %x", got.Hi, got.Lo, fp128.Hi, fp128.Lo)
	}
	if got := fingerprint(NewHyperplanes(128, 10, 5), make([]float64, 10)); got != (simhash.Fingerprint{}) {
		t.Errorf("zero vector: %x %x, want zeros", got.Hi, got.Lo)
	}
	if fingerprint(NewHyperplanes(64, 10, 6), v) == fp64 {
		t.Error("seeds 5 and 6 give one fingerprint")
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []float64
		err  string
	}{
		{"[1, -2.5, 3e-2]", []float64{1, -2.5, 0.03}, ""},
		{" [ 0 ,1 ] ", []float64{0, 1}, ""},
		{"1 -2.5 3e-2", []float64{1, -2.5, 0.03}, ""},
		{"1,2, 3\t4", []float64{1, 2, 3, 4}, ""},
		{"[]", nil, "the vector has no components"},
		{"", nil, "the vector has no components"},
		{"[1, 2,]", nil, "component 3 of the vector is empty"},
		{"[1, [2]]", nil, `component 2 of the vector is "[2]", want a number`},
		{`[1, "2"]`, nil, `component 2 of the vector is "\"2\"", want a number`},
		{"[1, 2", nil, "want a JSON array of numbers"},
		{"1 NaN", nil, `component 2 of the vector is "NaN", want a finite number`},
		{"1 -Inf", nil, `component 2 of the vector is "-Inf", want a finite number`},
		{"1 1e999", nil, `component 2 of the vector is "1e999", want a finite number`},
		{"[1, Infinity]", nil, `component 2 of the vector is "Infinity", want a number`},
		{"[0x10]", nil, `component 1 of the vector is "0x10", want a number`},
		{"1 two", nil, `component 2 of the vector is "two", want a number`},
	} {
		got, err := Parse(nil, []byte(c.in))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Parse(%q): error %v, want %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("Parse(%q): %v", c.in, err)
		case c.err == "" && fmt.Sprint(got) != fmt.Sprint(c.want):
			t.Errorf("Parse(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// Radius is the least k with P(Binomial(bits, θ/π) <= k) >= recall,
// checked against the distribution summed by its recurrence.
func TestRadius(t *testing.T) {
	for _, c := range []struct {
		bits   int
		cosine float64
	}{{64, 0.9}, {128, 0.9}, {64, 0.95}, {128, 0.8}, {64, 0.99}} {
		p := math.Acos(c.cosine) / math.Pi
		cdf := make([]float64, c.bits+1)
		pmf := math.Pow(1-p, float64(c.bits))
		sum := 0.0
		for k := 0; k <= c.bits; k++ {
			sum += pmf
			cdf[k] = sum
			pmf *= float64(c.bits-k) / float64(k+1) * p / (1 - p)
		}
		k := Radius(c.bits, c.cosine, 0.99)
		if cdf[k] < 0.99 || k > 0 && cdf[k-1] >= 0.99 {
			t.Errorf("Radius(%d, %g) = %d: P(<= k) = %.4f, P(<= k-1) = %.4f", c.bits, c.cosine, k, cdf[k], cdf[max(k-1, 0)])
		}
	}
	if k := Radius(64, 0.9, 0.99); k != 16 {
		t.Errorf("Radius(64, 0.9, 0.99) = %d, want 16", k)
	}
	if k := Radius(64, 1, 0.99); k != 0 {
		t.Errorf("Radius(64, 1, 0.99) = %d, want 0", k)
	}
}

func TestCosine(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 0}, []float64{2, 0}, 1},
		{[]float64{1, 0}, []float64{0, 3}, 0},
		{[]float64{1, 1}, []float64{-1, -1}, -1},
		{[]float64{0, 0}, []float64{1, 1}, 0},
		{[]float64{3, 4}, []float64{4, 3}, 24.0 / 25},
	} {
		got := Cosine(c.a, c.b)
		bits := func(v []float64) []uint64 {
			var b []uint64
			for _, x := range v {
				b = append(b, math.Float64bits(x))
			}
			return b
		}
		if math.Abs(got-c.want) > 1e-12 || CosineBits(bits(c.a), bits(c.b)) != got {
			t.Errorf("Cosine(%v, %v) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
}

// fingerprint returns the 64- or 128-bit fingerprint of v under h.
func fingerprint(h *Hyperplanes, v []float64) simhash.Fingerprint {
	w, _ := h.Words(nil, nil, v)
	fp := simhash.Fingerprint{Hi: w[0]}
	if len(w) > 1 {
		fp.Lo = w[1]
	}
	return fp
}
