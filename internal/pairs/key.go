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
// word of a key is a hash, uniform: the entries are scattered by its
// leading bits into 256 parts, then each part, on up to jobs goroutines,
// into about as many buckets as it has entries by its next bits, and each
// bucket (a few entries) is sorted by comparison. Linear time; the scatter
// needs a second array of the entries while it runs (48 bytes per band
// record in all). A scatter straight into n buckets missed the cache at
// each entry, twice, once the buckets' counts were larger than it; in
// parts, each pass writes to 256 places at a time or into a part the
// cache holds (BenchmarkSortEntries, 18.9 million entries: 1.77 s, and
// 1.46 s on two cores, before). The order is the same for any jobs.
func sortEntries(a []entry, jobs int) {
	if len(a) < 64 {
		slices.SortFunc(a, compareEntries)
		return
	}
	sortEntriesWith(a, make([]entry, len(a)), jobs)
}

// entryParts is log2 of the parts sortEntries scatters the entries into
// first.
const entryParts = 8

// sortEntriesWith is sortEntries with tmp, as long as a, as its scratch.
func sortEntriesWith(a, tmp []entry, jobs int) {
	if len(a) < 64 {
		slices.SortFunc(a, compareEntries)
		return
	}
	var ends [1<<entryParts + 1]int
	scatterEntries(tmp, a, 0, entryParts, ends[:])
	parallelFor(1<<entryParts, jobs, func(p int) {
		part, out := tmp[ends[p]:ends[p+1]], a[ends[p]:ends[p+1]]
		if len(part) < 64 {
			copy(out, part)
			slices.SortFunc(out, compareEntries)
			return
		}
		b := bits.Len(uint(len(part))) - 1
		buckets := make([]int, 1<<b+1)
		scatterEntries(out, part, entryParts, b, buckets)
		start := 0
		for _, end := range buckets[1:] {
			if end-start > 1 {
				slices.SortFunc(out[start:end], compareEntries)
			}
			start = end
		}
	})
}

// scatterEntries moves the entries of src to dst (as long) in the order of
// the b bits of their keys' low words after the first skip, keeping the
// order of those alike; ends (1<<b + 1 long) gets where each value's
// entries start in dst, and their end last.
func scatterEntries(dst, src []entry, skip, b int, ends []int) {
	shift := 64 - b
	for i := range src {
		ends[src[i].key.lo<<skip>>shift+1]++
	}
	for i := 1; i < len(ends); i++ {
		ends[i] += ends[i-1]
	}
	pos := ends[:len(ends)-1]
	for i := range src {
		k := src[i].key.lo << skip >> shift
		dst[pos[k]] = src[i]
		pos[k]++
	}
	// pos[k] is now where value k's entries end, the start of k+1's.
	copy(ends[1:], pos)
	ends[0] = 0
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
