//go:build !amd64

package record

// hasSSSE3 is false where there is no vector code.
var hasSSSE3 = false

// hexRun parses no hashes where there is no vector code: the Go loop does.
func hexRun(dst []uint64, field []byte) int { return 0 }

// putHexList writes each of hs as 16 hex digits and a space to dst.
func putHexList(dst []byte, hs []uint64) { putHexListGo(dst, hs) }
