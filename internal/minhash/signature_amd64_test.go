package minhash

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// vectorKernels are the vector signatures this CPU can run.
func vectorKernels() map[string]func(a, b, sig *uint64, n int, set *uint64, m int) {
	k := map[string]func(a, b, sig *uint64, n int, set *uint64, m int){}
	if hasAVX512 {
		k["avx512"] = signatureAVX512
	}
	if hasAVX2 {
		k["avx2"] = signatureAVX2
	}
	return k
}

// The vector signatures (AVX-512, AVX2) must equal the scalar one bit for
// bit, for every signature length (blocks of 32, 16 and 8), set size, and
// values at the edges of the unsigned order (0, 2^63 - 1, 2^63, 2^64 - 1).
func TestSignatureVectorEqualsScalar(t *testing.T) {
	kernels := vectorKernels()
	if len(kernels) == 0 {
		t.Skip("CPU without AVX2 or AVX-512: only the scalar code runs here")
	}
	for name, kernel := range kernels {
		t.Run(name, func(t *testing.T) { testKernel(t, kernel) })
	}
	if !hasAVX512 && hasAVX2 {
		// Signature takes the AVX2 path here.
		f := NewFamily(128, 9)
		set := []uint64{1, 2, 3}
		want, got := make([]uint64, 128), make([]uint64, 128)
		f.signature(want, set, false)
		f.Signature(got, set)
		if !slices.Equal(got, want) {
			t.Fatal("Signature differs from the scalar signature")
		}
	}
}

func testKernel(t *testing.T, kernel func(a, b, sig *uint64, n int, set *uint64, m int)) {
	r := rand.New(rand.NewPCG(3, 4))
	edges := []uint64{0, 1, 1<<63 - 1, 1 << 63, 1<<63 + 1, 1<<64 - 1}
	for _, n := range []int{8, 16, 24, 32, 40, 48, 56, 64, 112, 128, 136, 256} {
		f := NewFamily(n, uint64(n))
		for _, m := range []int{1, 2, 7, 100, 1000} {
			set := make([]uint64, m)
			for i := range set {
				set[i] = r.Uint64()
				if i%5 == 0 {
					set[i] = edges[i%len(edges)]
				}
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
			kernel(&f.A[0], &f.B[0], &got[0], n, &set[0], m)
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
	for name, kernel := range vectorKernels() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(8 * int64(len(set)))
			for b.Loop() {
				kernel(&f.A[0], &f.B[0], &sig[0], len(sig), &set[0], len(set))
			}
		})
	}
}
