package vector

import (
	"math"
	"testing"
)

// Two vectors at distance c share each p-stable hash with the probability
// of Collision: measured over 4,000 hashes for pairs at several distances.
func TestPStableCollision(t *testing.T) {
	const n, dim, w = 4000, 32, 4.0
	p := NewPStable(n, dim, w, 7)
	for _, c := range []float64{0.5, 2, 4, 8} {
		a, b := make([]float64, dim), make([]float64, dim)
		for j := range a {
			a[j] = math.Sin(float64(j)) * 3
			b[j] = a[j]
		}
		// b is a moved by c along a fixed unit direction.
		for j := range b {
			b[j] += c * math.Cos(float64(j*j)) / math.Sqrt(norm2(dim))
		}
		if d := Distance(a, b); math.Abs(d-c) > 1e-9 {
			t.Fatalf("distance %g, want %g", d, c)
		}
		ha, hb := p.Hashes(nil, a), p.Hashes(nil, b)
		same := 0
		for i := range ha {
			if ha[i] == hb[i] {
				same++
			}
		}
		got, want := float64(same)/n, Collision(c, w)
		if math.Abs(got-want) > 0.03 {
			t.Errorf("distance %g width %g: %d of %d hashes equal (%.3f), want %.3f", c, w, same, n, got, want)
		}
	}
}

func norm2(dim int) float64 {
	var s float64
	for j := range dim {
		x := math.Cos(float64(j * j))
		s += x * x
	}
	return s
}

// p(1) at width 4 is 0.80 (Datar et al.'s formula, which band --distance
// amplifies).
func TestCollision(t *testing.T) {
	if p := Collision(1, 4); math.Abs(p-0.80054) > 1e-4 {
		t.Errorf("Collision(1, 4) = %g, want 0.80054", p)
	}
	if p := Collision(0, 4); p != 1 {
		t.Errorf("Collision(0, 4) = %g, want 1", p)
	}
}
