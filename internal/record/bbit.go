package record

import "strconv"

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
	s.ID, s.Size, s.Values = id, n, s.Values[:0]
	for i := 0; i < len(digits); i += 2 {
		lo, ok1 := unhex(digits[i])
		hi, ok2 := unhex(digits[i+1])
		if !ok1 || !ok2 {
			return Bad("%q is not hex digits", clip(digits))
		}
		s.Values = append(s.Values, lo|hi<<4)
	}
	return nil
}

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

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
