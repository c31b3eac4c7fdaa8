package index

import (
	"cmp"
	"math/bits"
	"slices"
)

// The sorts are most-significant-digit radix sorts in two passes whose
// buckets stay in the caches: a counting sort on the top bits into buckets
// of about a thousand values, then in each bucket a counting sort on the
// next bits into about one bucket per value, which one pass of insertion
// sort finishes (or, where values crowd into a bucket, a comparison sort).

// keyed is a value with the number of the query or record it came from.
type keyed struct {
	v uint64
	i uint32
}

// sorter holds the count tables of the sorts for reuse.
type sorter struct {
	counts, sub []uint32
}

// sortValues sorts vals ascending, using tmp (same length) as scratch.
func sortValues(vals, tmp []uint64) {
	var s sorter
	s.words(vals, tmp, 64)
}

// sortKeyed sorts by v, stable in the order given, using tmp as scratch.
func sortKeyed(vals, tmp []keyed) {
	var s sorter
	s.keyed(vals, tmp)
}

// topBits returns the bits of the first pass for n values: buckets of
// about a thousand.
func topBits(n, prefix int) int {
	return min(prefix, max(bits.Len(uint(n))-10, 0), 12)
}

// words sorts vals by their top prefix bits only (the order among values
// that agree on them is left as it falls), using tmp (as long) as scratch,
// and returns vals.
func (s *sorter) words(vals, tmp []uint64, prefix int) []uint64 {
	b := topBits(len(vals), prefix)
	if b == 0 {
		copy(tmp, vals)
		s.wordBucket(tmp, vals, 0, prefix)
		return vals
	}
	shift := uint(64 - b)
	counts := s.table(&s.counts, 1<<b+1)
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
		s.wordBucket(tmp[start:end], vals[start:end], b, prefix)
		start = end
	}
	return vals
}

// wordBucket sorts src, whose values agree on their top done bits, into
// dst by their bits done to prefix.
func (s *sorter) wordBucket(src, dst []uint64, done, prefix int) {
	n := len(src)
	b := min(prefix-done, bits.Len(uint(n)))
	if n < 2 || b == 0 {
		copy(dst, src)
		return
	}
	shift, mask := uint(64-done-b), uint64(1)<<b-1
	counts := s.table(&s.sub, 1<<b+1)
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

// keyed sorts vals by v, stable in the order given, using tmp (as long) as
// scratch.
func (s *sorter) keyed(vals, tmp []keyed) {
	b := topBits(len(vals), 64)
	if b == 0 {
		copy(tmp, vals)
		s.keyedBucket(tmp, vals, 0)
		return
	}
	shift := uint(64 - b)
	counts := s.table(&s.counts, 1<<b+1)
	for _, e := range vals {
		counts[e.v>>shift+1]++
	}
	prefixSums(counts)
	for _, e := range vals {
		d := e.v >> shift
		tmp[counts[d]] = e
		counts[d]++
	}
	start := uint32(0)
	for _, end := range counts[:1<<b] {
		s.keyedBucket(tmp[start:end], vals[start:end], b)
		start = end
	}
}

// keyedBucket is wordBucket for keyed values and the whole of v, stable.
func (s *sorter) keyedBucket(src, dst []keyed, done int) {
	n := len(src)
	b := min(64-done, bits.Len(uint(n)))
	if n < 2 || b == 0 {
		copy(dst, src)
		return
	}
	shift, mask := uint(64-done-b), uint64(1)<<b-1
	counts := s.table(&s.sub, 1<<b+1)
	for _, e := range src {
		counts[e.v>>shift&mask+1]++
	}
	prefixSums(counts)
	for _, e := range src {
		d := e.v >> shift & mask
		dst[counts[d]] = e
		counts[d]++
	}
	if done+b == 64 {
		return
	}
	start := uint32(0)
	for _, end := range counts[:1<<b] {
		if end-start > 32 {
			slices.SortStableFunc(dst[start:end], func(x, y keyed) int { return cmp.Compare(x.v, y.v) })
		}
		start = end
	}
	for i := 1; i < n; i++ {
		x := dst[i]
		j := i
		for j > 0 && dst[j-1].v > x.v {
			dst[j] = dst[j-1]
			j--
		}
		dst[j] = x
	}
}

// table returns (*t)[:n] cleared, growing *t as needed.
func (s *sorter) table(t *[]uint32, n int) []uint32 {
	if cap(*t) < n {
		*t = make([]uint32, n)
	}
	c := (*t)[:n]
	clear(c)
	return c
}

// prefixSums turns counts into their running sums.
func prefixSums(counts []uint32) {
	sum := uint32(0)
	for i, c := range counts {
		sum += c
		counts[i] = sum
	}
}
