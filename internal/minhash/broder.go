package minhash

import (
	"slices"

	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/mix"
)

// BottomK keeps the s smallest values of a permutation of the set (Broder's
// MIN_s sample).
type BottomK struct {
	S      int
	key    uint64
	tmp    []uint64
	sorter hashsort.Sorter
}

// NewBottomK returns a MIN_s sketcher.
func NewBottomK(s int, seed uint64) *BottomK {
	g := mix.SplitMix64(seed ^ 0x9fb21c651e98df25)
	return &BottomK{S: s, key: g.Next()}
}

// Permute is the permutation the sample is taken under.
func (b *BottomK) Permute(x uint64) uint64 { return Mix64(x ^ b.key) }

// Sample appends to dst the min(s, |set|) smallest permuted values,
// ascending.
func (b *BottomK) Sample(dst []uint64, set []uint64) []uint64 {
	t := b.tmp[:0]
	for _, x := range set {
		t = append(t, b.Permute(x))
	}
	b.sorter.Sort(t)
	t = slices.Compact(t)
	b.tmp = t
	if len(t) > b.S {
		t = t[:b.S]
	}
	return append(dst, t...)
}

// ModM keeps the values of a permutation of the set that are 0 mod m
// (Broder's MOD_m sample): a sample whose size grows with the set, from
// which containment can be estimated.
type ModM struct {
	M      uint64
	key    uint64
	tmp    []uint64
	sorter hashsort.Sorter
}

// NewModM returns a MOD_m sketcher.
func NewModM(m uint64, seed uint64) *ModM {
	g := mix.SplitMix64(seed ^ 0x7a5c3a2b1d4f6e8d)
	return &ModM{M: m, key: g.Next()}
}

// Sample appends to dst the permuted values that are 0 mod m, ascending.
func (s *ModM) Sample(dst []uint64, set []uint64) []uint64 {
	t := s.tmp[:0]
	for _, x := range set {
		if v := Mix64(x ^ s.key); v%s.M == 0 {
			t = append(t, v)
		}
	}
	s.sorter.Sort(t)
	t = slices.Compact(t)
	s.tmp = t
	return append(dst, t...)
}

// intersectCount counts the values common to two ascending lists.
func intersectCount(a, b []uint64) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// BottomKResemblance estimates the resemblance of two sets from their MIN_s
// samples (ascending): among the s smallest values of the union of the
// samples, the fraction found in both (Broder 1997).
func BottomKResemblance(a, b []uint64, s int) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	i, j, taken, both := 0, 0, 0, 0
	for taken < s && (i < len(a) || j < len(b)) {
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			i++
		case i >= len(a) || b[j] < a[i]:
			j++
		default:
			both++
			i++
			j++
		}
		taken++
	}
	return float64(both) / float64(taken)
}

// ModMResemblance estimates resemblance from MOD_m samples:
// |MOD(A) ∩ MOD(B)| / |MOD(A) ∪ MOD(B)|.
func ModMResemblance(a, b []uint64) float64 {
	inter := intersectCount(a, b)
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// ModMContainment estimates the containment c(A,B) = |A∩B|/|A| from MOD_m
// samples: |MOD(A) ∩ MOD(B)| / |MOD(A)|.
func ModMContainment(a, b []uint64) float64 {
	if len(a) == 0 {
		return 0
	}
	return float64(intersectCount(a, b)) / float64(len(a))
}
