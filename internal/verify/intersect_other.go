//go:build !amd64

package verify

// hasAVX2 and hasAVX512 are false where there is no vector code.
var hasAVX2, hasAVX512 = false, false

// intersectRun leaves all to the Go loop where there is no vector code.
func intersectRun(a, b []uint64, slack int) (n, i, j int) { return 0, 0, 0 }
