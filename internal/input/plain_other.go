//go:build !amd64

package input

// hasAVX2 is false where there is no vector code.
var hasAVX2 = false

// plainRun leaves plainEnd to its Go loop where there is no vector code.
func plainRun(b []byte) int { return 0 }
