package minhash

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/hugemem"
)

// hasAVX512BW: the CPU and the OS also support AVX-512's byte
// instructions (VPTESTMB, 64-bit masks).
var hasAVX512BW = hasAVX512 && cpu.X86.HasAVX512BW

// hasBMI: the CPU has BMI1 and BMI2 (countAVX512's BLSI and MULX).
var hasBMI = cpu.X86.HasBMI1 && cpu.X86.HasBMI2

//go:noescape
func agreementsAVX512(a, b *byte, n int) (done, differ int)

// agreementsVector counts the half bytes of a and b that differ, 64 bytes
// at a time with AVX-512 where the CPU has it; it returns how many bytes
// it took and the half bytes among them that differ.
func agreementsVector(a, b []byte) (done, differ int) {
	if !hasAVX512BW || len(a) < 64 {
		return 0, 0
	}
	return agreementsAVX512(&a[0], &b[0], len(a))
}

//go:noescape
func countAVX512(hs *uint64, n int, bins *uint64, filled *bool, m uint64, table *uint64, nb, tbytes uint64, st *countState) int

//go:noescape
func tallyAVX512(table *uint64, n int) (count, sum uint64)

// countState is what countAVX512 finds: its offsets are the assembly's.
type countState struct {
	zero    uint64 // 1 once the hash 0 was met
	budget  int64  // the steps to a next bucket left
	crowded uint64 // 1 when the budget ran out
	// prefetch: 1 to prefetch the buckets of the hashes 16 ahead (a large
	// table: prefetching)
	prefetch uint64
}

// bucketTable is OPH.countSum's table with AVX-512: 1.5 slots a value
// (at least two buckets), so at most two thirds full, in buckets of eight,
// each on a cache line; a value's bucket is h·nb >> 64.
type bucketTable struct {
	slots []uint64
	nb    uint64 // buckets
	st    countState
}

// bucketTable returns, where the CPU has AVX-512, a bucket table for n
// values, empty, in o's scratch. The scratch is all 0 between documents:
// each table is emptied as it is tallied (tally), or when crowded
// (countBuckets), so that it is not cleared for the next one.
func (o *OPH) bucketTable(n int) (bucketTable, bool) {
	if !hasAVX512 || !hasBMI {
		return bucketTable{}, false
	}
	nb := max((3*n/2+7)/8, 2)
	size := 8 * nb
	if cap(o.buckets) < size+7 {
		o.buckets = hugemem.Prefault(make([]uint64, size+7))
	}
	// The table starts at the first slot on a cache line.
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(o.buckets))) % 64 / 8)
	slots := o.buckets[off : off+size]
	return bucketTable{
		slots: slots,
		nb:    uint64(nb),
		st:    countState{budget: int64(hashsort.MaxProbes * n), prefetch: prefetching(size)},
	}, true
}

// add bins the hashes hs and counts the new ones (countAVX512); it
// returns how many it binned, all of them unless st.crowded.
func (t *bucketTable) add(hs, bins []uint64, filled []bool) int {
	if len(hs) == 0 {
		return 0
	}
	return countAVX512(&hs[0], len(hs), &bins[0], &filled[0], uint64(len(bins)), &t.slots[0], t.nb, uint64(8*len(t.slots)), &t.st)
}

// tally returns how many values the table holds (each once) and their
// sum, and empties it.
func (t *bucketTable) tally() (count, sum uint64) {
	return tallyAVX512(&t.slots[0], len(t.slots))
}

// prefetching is 1 when countAVX512 is to prefetch the buckets of a table
// of size slots: of a megabyte or more, in L2 no longer; a smaller one
// would lose more to it than it saves (BenchmarkOPHSignatureCountSum,
// fastest of 6, 3,000 values 3.2 -> 3.5 ns a value, 60,000 about the
// same, 100,000 5.5 -> 4.7, a million 9.1 -> 7.1).
func prefetching(size int) uint64 {
	if 8*size < 1<<20 {
		return 0
	}
	return 1
}
