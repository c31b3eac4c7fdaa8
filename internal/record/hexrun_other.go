//go:build !amd64

package record

// hasSSSE3 is false where there is no vector code.
var hasSSSE3 = false

// hexRun parses no hashes where there is no vector code: the Go loop does.
func hexRun(dst []uint64, field []byte) int { return 0 }
