package record

import (
	"slices"
	"strconv"
)

// A b-bit signature record (band --bbit), "id TAB size TAB digits": the
// document's id, its number of distinct shingles and one hex digit for
// each value of its signature reduced to 4 bits (minhash.AppendBits),
// in the order of the signature. In memory two values go in a byte, the
// first in its low half.

// Bits is a parsed b-bit signature record.
type Bits struct {
	ID     []byte
	Size   uint64
	Values []byte
}

// ParseBits parses a b-bit signature record into s, reusing its slice.
// The id aliases line.
func ParseBits(s *Bits, line []byte) error {
	id, n, digits, err := cutSized(line, "hex digits")
	if err != nil {
		return err
	}
	if len(digits) == 0 || len(digits)%2 != 0 {
		return Bad("want an even number of hex digits, found %d", len(digits))
	}
	s.ID, s.Size = id, n
	s.Values = slices.Grow(s.Values[:0], len(digits)/2)[:len(digits)/2]
	// A digit's value from a table, without a branch: a byte that is not
	// a lower-case hex digit has the high bits set, gathered in bad.
	var bad byte
	for i := range s.Values {
		lo, hi := nibble[digits[2*i]], nibble[digits[2*i+1]]
		bad |= lo | hi
		s.Values[i] = lo | hi<<4
	}
	if bad > 0xf {
		return Bad("%q is not hex digits", clip(digits))
	}
	return nil
}

// nibble is the value of each lower-case hex digit, 0xff for the other
// bytes.
var nibble = func() (t [256]byte) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = byte(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		default:
			t[c] = 0xff
		}
	}
	return t
}()

// AppendBits appends a b-bit signature record of values packed two a byte.
func AppendBits(dst, id []byte, size uint64, values []byte) []byte {
	const digits = "0123456789abcdef"
	dst = append(dst, id...)
	dst = append(dst, '\t')
	dst = strconv.AppendUint(dst, size, 10)
	dst = append(dst, '\t')
	for _, v := range values {
		dst = append(dst, digits[v&0xf], digits[v>>4])
	}
	return append(dst, '\n')
}
