package vector

import (
	"math"

	"github.com/neardup/neardup/internal/mix"
)

// The p-stable hashes of Datar, Immorlica, Indyk and Mirrokni (2004) are
// those of the Euclidean distance: hash i of v is ⌊(a_i·v + b_i)/W⌋, a_i a
// Gaussian vector and b_i uniform in [0, W), so that two vectors near in
// distance (against the width W) often share a value. Component j of a_i
// is Gaussian number i·MaxDim + j of the seed xor pstableSalt (apart from
// the hyperplanes of the same seed); b_i is W·u, u = (x>>11)·2⁻⁵³ and x
// output i+1 of the SplitMix64 sequence of the key Mix(seed ^
// offsetSalt), as the package comment's outputs are made.

const (
	pstableSalt = 0xbb67ae8584caa73b
	offsetSalt  = 0x3c6ef372fe94f82b
)

// PStable are the n p-stable hashes of width w of vectors of dim
// components of a seed. They are read-only: workers share them.
type PStable struct {
	n, dim int
	width  float64
	g      []float64 // component j of a_i at j*n + i
	b      []float64
}

// NewPStable returns the n hashes of width w (above 0) of vectors of dim
// components.
func NewPStable(n, dim int, width float64, seed uint64) *PStable {
	p := &PStable{n: n, dim: dim, width: width, g: make([]float64, n*dim), b: make([]float64, n)}
	for j := range dim {
		for i := range n {
			p.g[j*n+i] = Gaussian(seed^pstableSalt, uint64(i)*MaxDim+uint64(j))
		}
	}
	k := mix.SplitMix(seed ^ offsetSalt)
	for i := range n {
		x := mix.SplitMix(k + uint64(i+1)*gamma)
		p.b[i] = width * float64(x>>11) * 0x1p-53
	}
	return p
}

// Len returns the number of hashes.
func (p *PStable) Len() int { return p.n }

// Hashes appends the n hash values of v (of Dim components), each a signed
// integer held as its two's complement, so that band keys them as it keys
// any sketch's values.
func (p *PStable) Hashes(dst []uint64, v []float64) []uint64 {
	dots := make([]float64, p.n)
	for j, x := range v {
		if x == 0 {
			continue
		}
		for i, g := range p.g[j*p.n : (j+1)*p.n] {
			// Rounded, as in Fingerprint, so that no machine fuses it.
			dots[i] += float64(x * g)
		}
	}
	for i, d := range dots {
		dst = append(dst, uint64(int64(math.Floor((d+p.b[i])/p.width))))
	}
	return dst
}

// Distance returns the Euclidean distance of a and b (of one length).
func Distance(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		d := x - b[i]
		s += float64(d * d)
	}
	return math.Sqrt(s)
}

// Collision returns the probability that one p-stable hash of width w is
// the same for two vectors at distance c (Datar et al., with t = w/c):
// 1 − 2Φ(−t) − 2/(√(2π)·t)·(1 − e^(−t²/2)); 1 at distance 0.
func Collision(c, w float64) float64 {
	if c == 0 {
		return 1
	}
	t := w / c
	phi := 0.5 * math.Erfc(t/math.Sqrt2)
	return 1 - 2*phi - 2/(math.Sqrt(2*math.Pi)*t)*(1-math.Exp(-t*t/2))
}

// DistanceBits is Distance of two vectors held as the bits of their
// components (math.Float64bits), as verify holds them.
func DistanceBits(a, b []uint64) float64 {
	var s float64
	for i, x := range a {
		d := math.Float64frombits(x) - math.Float64frombits(b[i])
		s += float64(d * d)
	}
	return math.Sqrt(s)
}
