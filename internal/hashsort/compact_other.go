//go:build !amd64

package hashsort

// hasAVX2 is false where there is no vector code.
var hasAVX2 = false

// compactRun does nothing where there is no vector code: the Go loop does.
func compactRun(dst []uint64, k int, table []uint64) (int, int) { return k, 0 }
