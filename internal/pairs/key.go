package pairs

import (
	"math/bits"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/record"
)

// key128 names a bucket. Band keys of 20 hex digits (4 for the band or
// table, 16 for the hash) map to it exactly; any other key is hashed twice
// with independent seeds, so that two different keys share a bucket with
// probability 2^-128.
type key128 struct{ hi, lo uint64 }

const hashedKeyBit = 1 << 63

var keySeed = [2]uint64{0x243f6a8885a308d3, 0x13198a2e03707344}

func parseKey(k []byte) key128 {
	if len(k) == 20 {
		h, ok := record.ParseLowerHex64(k[4:])
		var band uint64
		for _, c := range k[:4] {
			d := lowerHexValue[c]
			ok = ok && d < 16
			band = band<<4 | uint64(d)
		}
		if ok {
			return key128{band, h}
		}
	}
	d := xxhash.NewWithSeed(keySeed[0])
	d.Write(k)
	hi := d.Sum64()
	d.ResetWithSeed(keySeed[1])
	d.Write(k)
	return key128{hi | hashedKeyBit, d.Sum64()}
}

// lowerHexValue maps a lower-case hex digit to its value, anything else to
// 0xff.
var lowerHexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := byte(0); i < 10; i++ {
		t['0'+i] = i
	}
	for i := byte(0); i < 6; i++ {
		t['a'+i] = 10 + i
	}
	return t
}()

// sortEntries sorts entries by key (lo, then hi), then document. The low
// word of a key is a hash, uniform: the entries are scattered into about n
// buckets by its leading bits, then each bucket (a few entries) is sorted by
// comparison. Linear time; the scatter needs a second array of the entries
// while it runs (48 bytes per band record in all), and is 4 times faster
// than pdqsort in place and 10 times faster than moving each entry straight
// to its bucket, whose swaps miss the cache one after another
// (BenchmarkSortEntries). The buckets are sorted by up to jobs goroutines;
// the order is the same for any jobs.
func sortEntries(a []entry, jobs int) {
	if len(a) < 64 {
		slices.SortFunc(a, compareEntries)
		return
	}
	sortEntriesWith(a, make([]entry, len(a)), jobs)
}

// sortEntriesWith is sortEntries with tmp, as long as a, as its scratch.
func sortEntriesWith(a, tmp []entry, jobs int) {
	n := len(a)
	if n < 64 {
		slices.SortFunc(a, compareEntries)
		return
	}
	b := bits.Len(uint(n)) - 1
	shift := 64 - b
	counts := make([]uint32, 1<<b+1)
	for i := range a {
		counts[a[i].key.lo>>shift+1]++
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	for i := range a {
		k := a[i].key.lo >> shift
		tmp[counts[k]] = a[i]
		counts[k]++
	}
	// The buckets in jobs spans of as many buckets (the hash spreads the
	// entries evenly), each sorted by one goroutine.
	spans := min(max(jobs, 1), 1<<b)
	parallelFor(spans, jobs, func(s int) {
		first, last := s*(1<<b)/spans, (s+1)*(1<<b)/spans
		start := uint32(0)
		if first > 0 {
			start = counts[first-1]
		}
		for _, end := range counts[first:last] {
			if end-start > 1 {
				slices.SortFunc(tmp[start:end], compareEntries)
			}
			start = end
		}
	})
	copyParts(a, tmp)
}

// compareEntries orders entries by key (lo, then hi), then document.
func compareEntries(a, b entry) int {
	switch {
	case a.key.lo != b.key.lo:
		if a.key.lo < b.key.lo {
			return -1
		}
		return 1
	case a.key.hi != b.key.hi:
		if a.key.hi < b.key.hi {
			return -1
		}
		return 1
	case a.doc != b.doc:
		if a.doc < b.doc {
			return -1
		}
		return 1
	}
	return 0
}

// isLowerHex reports whether k holds only lower-case hex digits.
func isLowerHex(k []byte) bool {
	for _, c := range k {
		if lowerHexValue[c] > 15 {
			return false
		}
	}
	return true
}
