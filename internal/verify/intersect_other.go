//go:build !amd64

package verify

// hasAVX2 and hasAVX512 are false where there is no vector code.
var hasAVX2, hasAVX512 = false, false

// intersectRun leaves all to the Go loop where there is no vector code.
func intersectRun(a, b []uint64, slack int) (n, i, j int) { return 0, 0, 0 }

// hasAVX512BW is false where there is no vector code.
var hasAVX512BW = false

func histMin(a, b []uint8) int     { return histMinGo(a, b) }
func histMinHalf(a, b []uint8) int { return histMinHalfGo(a, b) }
