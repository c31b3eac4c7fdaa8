//go:build !amd64

package hashsort

// appendBuckets leaves AppendSet to its Go loop where there is no vector
// code.
func (s *Sorter) appendBuckets(dst, a []uint64) ([]uint64, bool) { return dst, false }

// hasAVX512 is false where there is no vector code.
var hasAVX512 = false
