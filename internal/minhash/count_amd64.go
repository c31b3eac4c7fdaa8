package minhash

import (
	"math/bits"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/neardup/neardup/internal/hashsort"
)

// hasAVX512BW: the CPU and the OS also support AVX-512's byte
// instructions (VPTESTMB, 64-bit masks).
var hasAVX512BW = hasAVX512 && cpu.X86.HasAVX512BW

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
func countAVX512(hs *uint64, n int, bins *uint64, filled *bool, m uint64, table *uint64, shift, tmask uint64, st *countState) int

// countState is what countAVX512 counts and finds: its offsets are the
// assembly's.
type countState struct {
	distinct, sum uint64
	zero          uint64 // 1 once the hash 0 was met
	budget        int64  // the steps to a next bucket left
	crowded       uint64 // 1 when the budget ran out
}

// bucketTable is OPH.countSum's table with AVX-512: 2 to 4 slots a value
// (at least two buckets), in buckets of eight, each on a cache line.
type bucketTable struct {
	slots        []uint64
	shift, tmask uint64
	st           countState
}

// bucketTable returns, where the CPU has AVX-512, a bucket table for n
// values, cleared, in o's scratch.
func (o *OPH) bucketTable(n int) (bucketTable, bool) {
	if !hasAVX512 {
		return bucketTable{}, false
	}
	b := max(bits.Len(uint(2*n-1)), 4)
	size := 1 << b
	if cap(o.buckets) < size+7 {
		o.buckets = make([]uint64, size+7)
	}
	// The table starts at the first slot on a cache line.
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(o.buckets))) % 64 / 8)
	slots := o.buckets[off : off+size]
	clear(slots)
	return bucketTable{
		slots: slots,
		shift: uint64(64 - (b - 3)),
		tmask: uint64(8*size - 1),
		st:    countState{budget: int64(hashsort.MaxProbes * n)},
	}, true
}

// add bins the hashes hs and counts the new ones (countAVX512); it
// returns how many it binned, all of them unless st.crowded.
func (t *bucketTable) add(hs, bins []uint64, filled []bool) int {
	if len(hs) == 0 {
		return 0
	}
	return countAVX512(&hs[0], len(hs), &bins[0], &filled[0], uint64(len(bins)), &t.slots[0], t.shift, t.tmask, &t.st)
}
