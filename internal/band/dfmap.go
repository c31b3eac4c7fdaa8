package band

import (
	"maps"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/neardup/neardup/internal/hugemem"
)

// dfMap is a document-frequency table in a hash table of buckets of eight
// 8-byte slots, each bucket one cache line: a lookup reads one line of
// memory where the table's binary search reads about log2(n) (band looks
// up every shingle of every document). At an average of 2 to 4 hashes a
// bucket that is 16 to 32 bytes a hash, half what a slot of the whole hash
// and its count took, so that more of the table stays in the cache.
//
// A hash's bucket is its top bits (hashes are uniform: tok64 and xxh64 end
// in a mixer), so a slot needs only the rest of it: a slot is the hash
// shifted left by the bucket bits b, and its count in the low b bits. The
// slot names the hash exactly. A hash whose bucket is full, or whose count
// does not fit in b bits (the count field all ones), is in over, a map a
// lookup reads only then. Slot 0 is empty (a count is at least 1).
//
// The table, sorted by hash, goes in in the order of the buckets: one sweep
// through memory, not a cache miss per hash, on each core a range of the
// buckets. Hashes that are not uniform would crowd some buckets: when more
// than a sixteenth of them overflow, the table is made again with the
// hashes scrambled (multiplied by an odd constant) first, on one core.
type dfMap struct {
	slots []uint64
	// shift is 64 - b; cmask is b bits of ones: the count field.
	shift, b uint
	cmask    uint64
	over     map[uint64]uint32
	// mul scrambles a hash before its bucket and slot are taken: 1, or an
	// odd constant.
	mul uint64
}

// bucketSlots is the slots of a bucket: 64 bytes.
const bucketSlots = 8

// newDFMap makes the map of the n hashes of runs, each ascending, the runs
// one after another ascending too, and their counts (count 0 is left out:
// a table never holds it, and 0 is DF's answer for it anyway). Up to jobs
// goroutines fill it, each the buckets of a range of hashes.
func newDFMap(n int, runs [][]uint64, counts [][]uint32, jobs int) *dfMap {
	b := uint(max(bits.Len(uint(n/4)), 8))
	m := &dfMap{shift: 64 - b, b: b, cmask: 1<<b - 1, mul: 1}
	var free func()
	m.slots, free = hugemem.Slice[uint64](bucketSlots << b)
	// The slots are given back when the map is unreachable: a stage that
	// stops on an error returns before its workers are done with it.
	runtime.AddCleanup(m, func(free func()) { free() }, free)
	if !m.fillParallel(runs, counts, n/16+64, max(jobs, 1)) {
		clear(m.slots)
		m.mul = 0x9e3779b97f4a7c15
		m.over = map[uint64]uint32{}
		m.fill(runs, counts, m.over, 0, ^uint64(0), n)
	}
	return m
}

// fillParallel fills the map, its multiplier 1, from jobs goroutines,
// each the hashes of a range of buckets: a hash's bucket is its top bits,
// so that the ranges are ranges of hashes, and the goroutines write apart.
// It returns false when more than most hashes overflowed their bucket.
func (m *dfMap) fillParallel(runs [][]uint64, counts [][]uint32, most, jobs int) bool {
	buckets := uint64(1) << m.b
	jobs = int(min(uint64(jobs), buckets))
	overs := make([]map[uint64]uint32, jobs)
	full := make([]int, jobs)
	var wg sync.WaitGroup
	for g := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The hashes of buckets [first, last].
			first := uint64(g) * buckets / uint64(jobs) << m.shift
			last := (uint64(g+1)*buckets/uint64(jobs))<<m.shift - 1
			overs[g] = map[uint64]uint32{}
			full[g] = m.fill(runs, counts, overs[g], first, last, most)
		}()
	}
	wg.Wait()
	m.over = overs[0]
	for _, o := range overs[1:] {
		maps.Copy(m.over, o)
	}
	sum := 0
	for _, f := range full {
		sum += f
	}
	return sum <= most
}

// fill puts the hashes from first to last of the runs in their slots, and
// in over those that overflow their bucket (and those whose count does not
// fit a slot); it returns how many overflowed their bucket, and gives up
// when more than most do.
func (m *dfMap) fill(runs [][]uint64, counts [][]uint32, over map[uint64]uint32, first, last uint64, most int) (full int) {
	for i, run := range runs {
		if len(run) == 0 || run[len(run)-1] < first || run[0] > last {
			continue
		}
		from, _ := slices.BinarySearch(run, first)
		for j, h := range run[from:] {
			if h > last {
				break
			}
			c := counts[i][from+j]
			if c == 0 {
				continue
			}
			x := h * m.mul
			slot := x << m.b
			if uint64(c) < m.cmask {
				slot |= uint64(c)
			} else {
				slot |= m.cmask
				over[h] = c
			}
			bucket := m.slots[(x>>m.shift)*bucketSlots:][:bucketSlots]
			placed := false
			for k, s := range bucket {
				if s == 0 {
					bucket[k] = slot
					placed = true
					break
				}
			}
			if !placed {
				over[h] = c
				if full++; full > most {
					return full
				}
			}
		}
	}
	return full
}

// DF returns the count of h, 0 when the table does not hold it.
func (m *dfMap) DF(h uint64) uint64 {
	x := h * m.mul
	key := x << m.b
	for _, s := range m.slots[(x>>m.shift)*bucketSlots:][:bucketSlots] {
		if s == 0 {
			return 0
		}
		if s&^m.cmask == key {
			if c := s & m.cmask; c != m.cmask {
				return c
			}
			break
		}
	}
	return uint64(m.over[h])
}

// appendDFs appends DF of each of hs to dst: with AVX-512 a bucket's slots
// are compared at once (dfsVector), and only the hashes of the overflow
// looked up in its map.
func (m *dfMap) appendDFs(dst, hs []uint64) []uint64 {
	start := len(dst)
	dst = slices.Grow(dst, len(hs))[:start+len(hs)]
	out := dst[start:]
	if !m.dfsVector(hs, out) {
		for i, h := range hs {
			out[i] = m.DF(h)
		}
		return dst
	}
	for i, df := range out {
		if df == ^uint64(0) {
			out[i] = uint64(m.over[hs[i]])
		}
	}
	return dst
}

// touch reads the first slot of each hash's bucket, without a branch on
// what it finds: the loads are independent, so the processor has many cache
// misses under way at once, where DF's loop, branching on each slot, waits
// for one after another. DF then finds the buckets in the cache (the table
// is far larger than it; a document's buckets are not). The caller keeps
// the sum returned, so that the loads are not left out.
func (m *dfMap) touch(hashes []uint64) (sum uint64) {
	for _, h := range hashes {
		sum += m.slots[(h*m.mul>>m.shift)*bucketSlots]
	}
	return sum
}
