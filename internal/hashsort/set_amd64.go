package hashsort

import (
	"math/bits"
	"slices"
	"unsafe"

	"github.com/neardup/neardup/internal/hugemem"
	"golang.org/x/sys/cpu"
)

// hasAVX512: the CPU and the OS support the AVX-512 foundation, and the
// CPU has BMI1 and BMI2 (setInsertAVX512's BLSI and MULX).
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasBMI1 && cpu.X86.HasBMI2

//go:noescape
func setInsertAVX512(a *uint64, n int, table *uint64, nb uint64, over *uint64, maxOver, ahead int) (done, nover, placed int, zero bool)

//go:noescape
func setEmitAVX512(table *uint64, nb int, dst *uint64, net *sortNet) int

// sortNet is setEmitAVX512's bitonic sorting network on eight lanes: for
// each of its six steps, the lane each lane is compared with, and a mask
// of the lanes that keep the larger value.
type sortNet struct {
	partner [6][8]uint64
	larger  [6]uint8
}

var bitonic = func() (n sortNet) {
	// The steps of a bitonic sort of eight: runs of 2, then 4, then 8
	// (k), each merged by comparing lanes j apart. A lane is in an
	// ascending run when its bit k is 0 (all are, at k = 8).
	for s, st := range [6][2]int{{2, 1}, {4, 2}, {4, 1}, {8, 4}, {8, 2}, {8, 1}} {
		k, j := st[0], st[1]
		for i := range 8 {
			p := i ^ j
			n.partner[s][i] = uint64(p)
			if (i > p) == (i&k == 0) {
				n.larger[s] |= 1 << i
			}
		}
	}
	return n
}()

// appendBuckets is AppendSet with AVX-512: each value goes into a table of
// buckets of eight slots (2.5 slots a value up to sparseValues values, 1.5
// past them), its bucket named by its leading bits (h·nb >> 64, so that
// the buckets are in the order of their values), at the first empty slot
// unless it is there already, with no branch on which. The buckets are
// then sorted one at a time on the eight lanes of a vector and written out
// whole, each past the last. The values a full bucket turns away (0.25 %
// of uniform ones at 2.5 slots a value, 3 % at 1.5) are sorted apart and
// merged into their bucket's place as it is written, by an insertion sort
// of the bucket and them. When more than a quarter of the values are
// turned away (they are not uniform), the values are sorted instead
// (NoteCrowded). It returns ok false where the CPU has no AVX-512.
//
// Each value writes its whole bucket back, not the one slot: the next
// load of a bucket just written then takes the store's 64 bytes as they
// are, where a store of 8 made it wait (3.5 times the time at 1,000
// values, 188 buckets).
func (s *Sorter) appendBuckets(dst, a []uint64) (_ []uint64, ok bool) {
	if !hasAVX512 {
		return dst, false
	}
	n := len(a)
	nb := max((3*n/2+7)/8, 2)
	if n <= sparseValues {
		nb = max((5*n/2+7)/8, 2)
	}
	table := s.buckets(8 * nb)
	maxOver := n/4 + 16
	if cap(s.over) < maxOver {
		s.over = make([]uint64, maxOver)
	}
	// In a table of a megabyte or more, past L2, the buckets are
	// prefetched 16 values ahead (BenchmarkSet, fastest of 6: 100,000
	// values 0.70 -> 0.60 ms, a million 11.3 -> 8.5 ms); in a smaller
	// one that cost more than it saved.
	ahead := 0
	if 64*nb >= 1<<20 {
		ahead = n - 16
	}
	done, nover, placed, zero := setInsertAVX512(&a[0], n, &table[0], uint64(nb), &s.over[0], maxOver, ahead)
	if done < n {
		clear(table)
		NoteCrowded()
		s.Sort(a)
		return AppendDistinct(dst, a), true
	}
	over := s.over[:nover]
	s.Sort(over)
	over = AppendDistinct(over[:0], over)
	start := len(dst)
	// Room for the distinct values (a text's shingles repeat: room for
	// all of them grew verify's batches before their time) and the eight
	// slots past the last that the last bucket's store writes.
	distinct := placed + len(over)
	if zero {
		distinct++
	}
	dst = slices.Grow(dst, distinct+8)[:start+distinct+8]
	k := start
	if zero {
		dst[k] = 0
		k++
	}
	from := 0 // the first bucket not yet written
	for i := 0; i < len(over); {
		b := bucketOf(over[i], nb)
		j := i + 1
		for j < len(over) && bucketOf(over[j], nb) == b {
			j++
		}
		if b > from {
			k += setEmitAVX512(&table[8*from], b-from, &dst[k], &bitonic)
		}
		// The bucket turned values away, so its eight slots are full:
		// they and the values it turned away go together.
		part := dst[k : k+8+j-i]
		copy(part, table[8*b:8*b+8])
		clear(table[8*b : 8*b+8])
		copy(part[8:], over[i:j])
		insertion(part, part)
		k += len(part)
		from, i = b+1, j
	}
	if nb > from {
		k += setEmitAVX512(&table[8*from], nb-from, &dst[k], &bitonic)
	}
	if k != start+distinct {
		panic("hashsort: the buckets held other than the values they counted")
	}
	return dst[:k], true
}

// bucketOf is the bucket of nb the value x goes to.
func bucketOf(x uint64, nb int) int {
	hi, _ := bits.Mul64(x, uint64(nb))
	return int(hi)
}

// buckets returns a table of size slots, kept apart from the scratch
// Sort uses (it sorts the values turned away while the table waits),
// empty, that starts on a cache line. The table is all 0 between sets:
// appendBuckets empties what it used as it writes it out, or when it
// gives up, so that it is not cleared for the next set.
func (s *Sorter) buckets(size int) []uint64 {
	if cap(s.table) < size+7 {
		s.table = hugemem.Prefault(make([]uint64, size+7))
	}
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(s.table))) % 64 / 8)
	return s.table[off : off+size]
}

// sparseValues is the most values appendBuckets gives 2.5 slots each (a
// table of 640 KiB at most, in L2): a bucket then overflows once in 175,
// not once in 11, and the insertion sorts of the full ones, mispredicted,
// were 14 % of AppendSet's time on real documents (BenchmarkSetCorpus).
// The emptier buckets cost little to write out while the table is in the
// cache; past it, fewer slots are faster.
const sparseValues = 1 << 15
