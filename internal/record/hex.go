package record

const hexDigits = "0123456789abcdef"

// AppendHex64 appends v as 16 lower-case hexadecimal digits.
func AppendHex64(dst []byte, v uint64) []byte {
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = hexDigits[v&0xf]
		v >>= 4
	}
	return append(dst, b[:]...)
}

// hexValue maps a byte to its value as a hexadecimal digit, or 0xff.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < 10; i++ {
		t['0'+i] = byte(i)
	}
	for i := 0; i < 6; i++ {
		t['a'+i] = byte(10 + i)
		t['A'+i] = byte(10 + i)
	}
	return t
}()

// ParseHex64 parses exactly 16 hexadecimal digits (either case).
func ParseHex64(b []byte) (uint64, bool) {
	if len(b) != 16 {
		return 0, false
	}
	var v uint64
	var bad byte
	for _, c := range b[:16] {
		d := hexValue[c]
		bad |= d
		v = v<<4 | uint64(d&0xf)
	}
	return v, bad&0xf0 == 0
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
