package index

import "math/bits"

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

// keySorter orders keyed values by their top keyBits bits only (the order
// among equal keys is left as it falls): a counting sort on up to 24 top
// bits, about one bucket per value, then insertion sort of each bucket on
// the rest of the key. Its count table is kept for reuse.
type keySorter struct {
	counts []uint32
}

func (s *keySorter) sort(ks, tmp []keyed, keyBits int) []keyed {
	n := len(ks)
	if n < 2 {
		return ks
	}
	b := min(keyBits, bits.Len(uint(n)), 24)
	shift := uint(64 - b)
	if cap(s.counts) < 1<<b+1 {
		s.counts = make([]uint32, 1<<b+1)
	}
	counts := s.counts[:1<<b+1]
	clear(counts)
	for _, k := range ks {
		counts[k.v>>shift+1]++
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	for _, k := range ks {
		d := k.v >> shift
		tmp[counts[d]] = k
		counts[d]++
	}
	// counts[d] is now the end of bucket d.
	if keyBits > b {
		keyShift := uint(64 - keyBits)
		start := uint32(0)
		for _, end := range counts[:1<<b] {
			bucket := tmp[start:end]
			for i := 1; i < len(bucket); i++ {
				x := bucket[i]
				j := i
				for j > 0 && bucket[j-1].v>>keyShift > x.v>>keyShift {
					bucket[j] = bucket[j-1]
					j--
				}
				bucket[j] = x
			}
			start = end
		}
	}
	return tmp
}
