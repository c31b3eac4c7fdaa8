package minhash

import (
	"math"
	"testing"
)

// Sets of consecutive integers are what a user's own shingle program might
// write (dictionary indices). A bare multiply-add over them is biased by
// about 0.05; the mixer in front of it must make them as good as hashes.
func TestFamilyUnbiasedOnConsecutiveIntegers(t *testing.T) {
	const n, union, trials = 128, 400, 400
	for _, j := range []float64{0.2, 0.5, 0.8} {
		inter := int(math.Round(j * union))
		var sum float64
		for trial := 0; trial < trials; trial++ {
			f := NewFamily(n, uint64(trial))
			// A = [0, (union+inter)/2), B shares inter of them and adds
			// the rest consecutively.
			sizeA := (union + inter) / 2
			a := make([]uint64, sizeA)
			for i := range a {
				a[i] = uint64(i)
			}
			b := make([]uint64, 0, union+inter-sizeA)
			for i := sizeA - inter; i < union; i++ {
				b = append(b, uint64(i))
			}
			exact := float64(inter) / float64(sizeA+len(b)-inter)
			sa, sb := make([]uint64, n), make([]uint64, n)
			f.Signature(sa, a)
			f.Signature(sb, b)
			sum += Similarity(sa, sb) - exact
		}
		if bias := sum / trials; math.Abs(bias) >= 0.01 {
			t.Errorf("J=%.1f: mean error %+.4f over %d seeds, want |bias| < 0.01", j, bias, trials)
		}
	}
}
