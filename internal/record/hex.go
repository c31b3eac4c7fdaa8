package record

import (
	"encoding/binary"
	"slices"
)

// AppendHex64 appends v as 16 lower-case hexadecimal digits. It spreads the
// nibbles of each half into the bytes of a word and turns them into ASCII
// eight at a time.
func AppendHex64(dst []byte, v uint64) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 16)[:n+16]
	PutHex64(dst[n:], v)
	return dst
}

// PutHex64 writes v as 16 lower-case hexadecimal digits to dst[:16], for a
// caller that has made room for many at once.
func PutHex64(dst []byte, v uint64) {
	binary.BigEndian.PutUint64(dst[8:16], hexWord(uint32(v)))
	binary.BigEndian.PutUint64(dst[:8], hexWord(uint32(v>>32)))
}

// hexWord returns the 8 hex digits of x as the bytes of a word, the first
// digit in the most significant byte.
func hexWord(x uint32) uint64 {
	v := uint64(x)
	v = (v | v<<16) & 0x0000ffff0000ffff
	v = (v | v<<8) & 0x00ff00ff00ff00ff
	v = (v | v<<4) & 0x0f0f0f0f0f0f0f0f
	// Nibbles of 10 and more get 'a'-'0'-10 more than '0'.
	letters := (v + 0x0606060606060606) >> 4 & 0x0101010101010101
	return v + 0x3030303030303030 + letters*('a'-'0'-10)
}

// Bytewise comparisons on words whose bytes are all below 0x80: each gives
// 0x80 in the bytes where the comparison holds.
func bytesAtLeast(x, c uint64) uint64 { return (x + (0x80-c)*0x0101010101010101) & 0x8080808080808080 }
func bytesBelow(x, c uint64) uint64   { return ^(x + (0x80-c)*0x0101010101010101) & 0x8080808080808080 }

// parseHexWord parses 8 hex digits held in a word, the first digit in the
// most significant byte: either case, or only lower case when lowerOnly.
func parseHexWord(x uint64, lowerOnly bool) (uint32, bool) {
	if x&0x8080808080808080 != 0 {
		return 0, false
	}
	lower := x | 0x2020202020202020
	if lowerOnly {
		lower = x
	}
	digit := bytesAtLeast(x, '0') & bytesBelow(x, '9'+1)
	letter := bytesAtLeast(lower, 'a') & bytesBelow(lower, 'f'+1)
	if digit|letter != 0x8080808080808080 {
		return 0, false
	}
	v := lower&0x0f0f0f0f0f0f0f0f + (letter>>7)*9
	v = (v | v>>4) & 0x00ff00ff00ff00ff
	v = (v | v>>8) & 0x0000ffff0000ffff
	v = (v | v>>16) & 0xffffffff
	return uint32(v), true
}

// putHexListGo is putHexList without vector code.
func putHexListGo(dst []byte, hs []uint64) {
	_ = dst[:17*len(hs)]
	for i, h := range hs {
		PutHex64(dst[17*i:], h)
		dst[17*i+16] = ' '
	}
}

// ParseHex64 parses exactly 16 hexadecimal digits (either case).
func ParseHex64(b []byte) (uint64, bool) {
	if len(b) != 16 {
		return 0, false
	}
	hi, ok1 := parseHexWord(binary.BigEndian.Uint64(b), false)
	lo, ok2 := parseHexWord(binary.BigEndian.Uint64(b[8:]), false)
	return uint64(hi)<<32 | uint64(lo), ok1 && ok2
}

// ParseLowerHex64 parses exactly 16 lower-case hexadecimal digits, the form
// neardup writes: keys compared as text must map to numbers one to one.
func ParseLowerHex64(b []byte) (uint64, bool) {
	if len(b) != 16 {
		return 0, false
	}
	hi, ok1 := parseHexWord(binary.BigEndian.Uint64(b), true)
	lo, ok2 := parseHexWord(binary.BigEndian.Uint64(b[8:]), true)
	return uint64(hi)<<32 | uint64(lo), ok1 && ok2
}

// ParseUint parses a non-empty decimal number without sign that fits 63 bits.
func ParseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}
