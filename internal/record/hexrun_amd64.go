package record

import "golang.org/x/sys/cpu"

var hasSSSE3 = cpu.X86.HasSSSE3

// hexRunSSSE3 parses hashes of 16 hex digits (either case) from the start
// of field into dst, 16 bytes at a time, as long as each is followed by one
// space and something after it; it returns how many it parsed. dst must
// have room for len(field)/17 hashes.
//
//go:noescape
func hexRunSSSE3(dst []uint64, field []byte) int

// hexRun is hexRunSSSE3 where the CPU has SSSE3, else 0 (none parsed).
func hexRun(dst []uint64, field []byte) int {
	if !hasSSSE3 {
		return 0
	}
	return hexRunSSSE3(dst, field)
}

//go:noescape
func putHexListSSSE3(dst *byte, hs []uint64)

// putHexList writes each of hs as 16 hex digits and a space to dst, which
// has room for them all.
func putHexList(dst []byte, hs []uint64) {
	if !hasSSSE3 || len(hs) == 0 {
		putHexListGo(dst, hs)
		return
	}
	_ = dst[17*len(hs)-1]
	putHexListSSSE3(&dst[0], hs)
}
