package record

// NoVectorCode turns the vector code paths off and returns the function
// that restores them, for tests of the other paths.
func NoVectorCode() (restore func()) {
	was, was2 := hasSSSE3, hasAVX2
	hasSSSE3, hasAVX2 = false, false
	return func() { hasSSSE3, hasAVX2 = was, was2 }
}

// NoAVX512Unescape turns Unescape's AVX-512 loop off, for tests of its
// AVX2 loop, and returns the function that restores it.
func NoAVX512Unescape() (restore func()) {
	was := hasAVX512Unescape
	hasAVX512Unescape = false
	return func() { hasAVX512Unescape = was }
}

// PutHexList writes each of hs as 16 lower-case hex digits and a space to
// dst[:17*len(hs)], 16 bytes at a time where the CPU can.
func PutHexList(dst []byte, hs []uint64) { putHexList(dst, hs) }
