package index

import (
	"cmp"
	"math/bits"
	"slices"
)

// The sorts first scatter the values by their top bits into buckets of
// about 4096 (one pass over memory), then sort each bucket, now in the
// first-level cache, by least-significant-digit radix sort on 8-bit digits,
// skipping the digits on which a bucket's values agree.

// bucketBits returns the number of top bits that cut n values into buckets
// of about 4096, or 0 when one bucket will do.
func bucketBits(n int) int {
	if n < 1<<13 {
		return 0
	}
	return min(bits.Len(uint(n>>12)), 16)
}

// sortValues sorts vals ascending, using tmp (same length) as scratch.
func sortValues(vals, tmp []uint64) {
	b := bucketBits(len(vals))
	if b == 0 {
		lsdValues(vals, tmp)
		return
	}
	shift := uint(64 - b)
	starts := make([]int, 1<<b+1)
	for _, v := range vals {
		starts[v>>shift+1]++
	}
	for i := 1; i < len(starts); i++ {
		starts[i] += starts[i-1]
	}
	next := append([]int(nil), starts[:1<<b]...)
	for _, v := range vals {
		d := v >> shift
		tmp[next[d]] = v
		next[d]++
	}
	for i := 0; i < 1<<b; i++ {
		lsdValues(tmp[starts[i]:starts[i+1]], vals[starts[i]:starts[i+1]])
	}
	copy(vals, tmp)
}

// lsdValues sorts vals by LSD radix sort, using tmp as scratch.
func lsdValues(vals, tmp []uint64) {
	if len(vals) < 2 {
		return
	}
	var count [256]int
	src, dst := vals, tmp
	for shift := uint(0); shift < 64; shift += 8 {
		clear(count[:])
		for _, v := range src {
			count[v>>shift&0xff]++
		}
		if count[src[0]>>shift&0xff] == len(src) {
			continue
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, v := range src {
			d := v >> shift & 0xff
			dst[count[d]] = v
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &vals[0] {
		copy(vals, src)
	}
}

// keyed is a value with the number of the query or record it came from.
type keyed struct {
	v uint64
	i uint32
}

// sortKeyed sorts by v, stable in the order given, as sortValues does.
func sortKeyed(vals, tmp []keyed) {
	b := bucketBits(len(vals))
	if b == 0 {
		lsdKeyed(vals, tmp)
		return
	}
	shift := uint(64 - b)
	starts := make([]int, 1<<b+1)
	for _, v := range vals {
		starts[v.v>>shift+1]++
	}
	for i := 1; i < len(starts); i++ {
		starts[i] += starts[i-1]
	}
	next := append([]int(nil), starts[:1<<b]...)
	for _, v := range vals {
		d := v.v >> shift
		tmp[next[d]] = v
		next[d]++
	}
	for i := 0; i < 1<<b; i++ {
		lsdKeyed(tmp[starts[i]:starts[i+1]], vals[starts[i]:starts[i+1]])
	}
	copy(vals, tmp)
}

// lsdKeyed sorts vals by v, stably, using tmp as scratch.
func lsdKeyed(vals, tmp []keyed) {
	if len(vals) < 2 {
		return
	}
	var count [256]int
	src, dst := vals, tmp
	for shift := uint(0); shift < 64; shift += 8 {
		clear(count[:])
		for _, v := range src {
			count[v.v>>shift&0xff]++
		}
		if count[src[0].v>>shift&0xff] == len(src) {
			continue
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, v := range src {
			d := v.v >> shift & 0xff
			dst[count[d]] = v
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &vals[0] {
		copy(vals, src)
	}
}

// prefixSorter orders values by their top bits only (the order among
// values that agree on them is left as it falls) in two passes whose
// buckets stay in the caches: a counting sort on the top bits into buckets
// of about a thousand values, then in each bucket a counting sort on the
// next bits into about one bucket per value, which one pass of insertion
// sort finishes (or, where values crowd, a comparison sort). Its count
// tables are kept for reuse.
type prefixSorter struct {
	counts, sub []uint32
}

// sort sorts vals by their top prefix bits, using tmp (as long) as
// scratch, and returns vals.
func (s *prefixSorter) sort(vals, tmp []uint64, prefix int) []uint64 {
	n := len(vals)
	b := min(prefix, max(bits.Len(uint(n))-10, 0), 12)
	if b == 0 {
		copy(tmp, vals)
		s.bucket(tmp, vals, 0, prefix)
		return vals
	}
	shift := uint(64 - b)
	s.counts = grow(s.counts, 1<<b+1)
	counts := s.counts[:1<<b+1]
	clear(counts)
	for _, v := range vals {
		counts[v>>shift+1]++
	}
	prefixSums(counts)
	for _, v := range vals {
		d := v >> shift
		tmp[counts[d]] = v
		counts[d]++
	}
	// counts[d] is now the end of bucket d.
	start := uint32(0)
	for _, end := range counts[:1<<b] {
		s.bucket(tmp[start:end], vals[start:end], b, prefix)
		start = end
	}
	return vals
}

// bucket sorts src, whose values agree on their top done bits, into dst by
// their bits done to prefix.
func (s *prefixSorter) bucket(src, dst []uint64, done, prefix int) {
	n := len(src)
	b := min(prefix-done, bits.Len(uint(n)))
	if n < 2 || b == 0 {
		copy(dst, src)
		return
	}
	shift, mask := uint(64-done-b), uint64(1)<<b-1
	s.sub = grow(s.sub, 1<<b+1)
	counts := s.sub[:1<<b+1]
	clear(counts)
	for _, v := range src {
		counts[v>>shift&mask+1]++
	}
	prefixSums(counts)
	for _, v := range src {
		d := v >> shift & mask
		dst[counts[d]] = v
		counts[d]++
	}
	if done+b == prefix {
		return
	}
	// Values out of order now share a sub-bucket: about one each, unless
	// they crowd.
	keyShift := uint(64 - prefix)
	start := uint32(0)
	for _, end := range counts[:1<<b] {
		if end-start > 32 {
			slices.SortFunc(dst[start:end], func(x, y uint64) int { return cmp.Compare(x>>keyShift, y>>keyShift) })
		}
		start = end
	}
	for i := 1; i < n; i++ {
		x := dst[i]
		j := i
		for j > 0 && dst[j-1]>>keyShift > x>>keyShift {
			dst[j] = dst[j-1]
			j--
		}
		dst[j] = x
	}
}

// prefixSums turns counts into their running sums.
func prefixSums(counts []uint32) {
	sum := uint32(0)
	for i, c := range counts {
		sum += c
		counts[i] = sum
	}
}

// grow returns b with room for n.
func grow(b []uint32, n int) []uint32 {
	if cap(b) < n {
		return make([]uint32, n)
	}
	return b
}
