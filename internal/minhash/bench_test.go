package minhash

import (
	"fmt"
	"testing"
)

// benchSet returns size distinct random values, as a shingle record holds
// them (ascending).
func benchSet(size int) []uint64 {
	return sortedCopy(newPairGen(uint64(size)).distinct(size))
}

var benchSizes = []int{1, 3, 10, 100, 1000, 10000}

// benchSigner runs Signature of n = 128 over sets of each size; MB/s is of
// the set's 8-byte values.
func benchSigner(b *testing.B, s signer) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("set=%d", size), func(b *testing.B) {
			set := benchSet(size)
			sig := make([]uint64, s.Len())
			b.ReportAllocs()
			b.SetBytes(8 * int64(size))
			for b.Loop() {
				s.Signature(sig, set)
			}
		})
	}
}

func BenchmarkFamilySignature(b *testing.B) { benchSigner(b, NewFamily(128, 1)) }

func BenchmarkOPHSignature(b *testing.B) { benchSigner(b, NewOPH(128, 1)) }

func BenchmarkBottomKSample(b *testing.B) {
	bk := NewBottomK(128, 1)
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("set=%d", size), func(b *testing.B) {
			set := benchSet(size)
			dst := bk.Sample(nil, set)
			b.ReportAllocs()
			b.SetBytes(8 * int64(size))
			for b.Loop() {
				dst = bk.Sample(dst[:0], set)
			}
		})
	}
}

func BenchmarkModMSample(b *testing.B) {
	mm := NewModM(16, 1)
	set := benchSet(1000)
	dst := mm.Sample(nil, set)
	b.ReportAllocs()
	b.SetBytes(8 * int64(len(set)))
	for b.Loop() {
		dst = mm.Sample(dst[:0], set)
	}
}

func BenchmarkSimilarity(b *testing.B) {
	x, y := benchSet(128), benchSet(128)
	b.ReportAllocs()
	for b.Loop() {
		Similarity(x, y)
	}
}

// TestSignatureAllocs pins the signatures and samples to no allocation
// once their scratch space has grown.
func TestSignatureAllocs(t *testing.T) {
	set := benchSet(1000)
	for _, s := range []struct {
		name string
		signer
	}{{"Family", NewFamily(128, 1)}, {"OPH", NewOPH(128, 1)}} {
		sig := make([]uint64, 128)
		s.Signature(sig, set)
		if a := testing.AllocsPerRun(20, func() { s.Signature(sig, set) }); a != 0 {
			t.Errorf("%s.Signature: %.1f allocations, want 0", s.name, a)
		}
	}
	bk, mm := NewBottomK(128, 1), NewModM(16, 1)
	dk, dm := bk.Sample(nil, set), mm.Sample(nil, set)
	if a := testing.AllocsPerRun(20, func() { dk = bk.Sample(dk[:0], set) }); a != 0 {
		t.Errorf("BottomK.Sample: %.1f allocations, want 0", a)
	}
	if a := testing.AllocsPerRun(20, func() { dm = mm.Sample(dm[:0], set) }); a != 0 {
		t.Errorf("ModM.Sample: %.1f allocations, want 0", a)
	}
}

// BenchmarkOPHSignatureCountSum signs sets with their repeats (one value
// in eight repeated), as shingle --sketch oph --bbit does a document's
// shingles; MB/s is of the 8-byte values.
func BenchmarkOPHSignatureCountSum(b *testing.B) {
	o := NewOPH(128, 1)
	for _, size := range []int{1000, 16000, 100000, 1000000} {
		b.Run(fmt.Sprintf("values=%d", size), func(b *testing.B) {
			values := newPairGen(uint64(size)).distinct(size)
			for i := 0; i < size; i += 8 {
				values[i] = values[(i*7919)%size]
			}
			hashes := make([]uint64, size)
			sig := make([]uint64, o.Len())
			b.SetBytes(8 * int64(size))
			for b.Loop() {
				copy(hashes, values)
				o.SignatureCountSum(sig, hashes)
			}
		})
	}
}

// BenchmarkFamilyPrefix is BenchmarkFamilySignature for the first 112
// functions of 128 (a prefix of 3 blocks of 32 and one of 16), those a
// banding of 18 bands of 6 rows reads, rounded up to 16.
func BenchmarkFamilyPrefix(b *testing.B) { benchSigner(b, NewFamily(128, 1).Prefix(112)) }
