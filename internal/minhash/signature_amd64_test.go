package minhash

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The AVX-512 signature must equal the scalar one bit for bit, for every
// signature length (blocks of 32 and of 8) and set size.
func TestSignatureVectorEqualsScalar(t *testing.T) {
	if !hasAVX512 {
		t.Skip("CPU without AVX-512: only the scalar code runs here")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{8, 16, 24, 32, 40, 64, 128, 136, 256} {
		f := NewFamily(n, uint64(n))
		for _, m := range []int{1, 2, 7, 100, 1000} {
			set := make([]uint64, m)
			for i := range set {
				set[i] = r.Uint64()
			}
			want := make([]uint64, n)
			got := make([]uint64, n)
			for i := range want {
				// Both lower what is there: start from a mix of values
				// below and above the minima.
				want[i] = r.Uint64() | 1<<63
				if i%3 == 0 {
					want[i] = uint64(i)
				}
				got[i] = want[i]
			}
			f.signatureScalar(want, set)
			if !f.signatureVector(got, set) {
				t.Fatalf("n=%d m=%d: vector path not taken", n, m)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d m=%d: vector signature differs from scalar", n, m)
			}
		}
	}
}

func BenchmarkSignatureScalarVsVector(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	f := NewFamily(128, 1)
	set := make([]uint64, 1000)
	for i := range set {
		set[i] = r.Uint64()
	}
	sig := make([]uint64, 128)
	b.Run("scalar", func(b *testing.B) {
		b.SetBytes(8 * int64(len(set)))
		for b.Loop() {
			f.signatureScalar(sig, set)
		}
	})
	if hasAVX512 {
		b.Run("avx512", func(b *testing.B) {
			b.SetBytes(8 * int64(len(set)))
			for b.Loop() {
				f.signatureVector(sig, set)
			}
		})
	}
}
