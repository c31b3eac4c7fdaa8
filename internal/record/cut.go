package record

import "bytes"

// CutEscaped appends to dst the escaped field (a TSV document's text as
// written) with the byte ranges cuts of its unescaped text removed, every
// other byte as written. cuts are [start, end) offsets into the unescaped
// text, ascending and disjoint, within it. A backslash that stands for
// itself (\q) is kept as written unless a cut would make it the start of an
// escape (\ then t): the field is then escaped anew, Escape of the text
// left, whose bytes differ only in such backslashes.
func CutEscaped(dst, field []byte, cuts [][2]int) []byte {
	n0 := len(dst)
	d, k := 0, 0 // the unescaped offset of the unit at i; the next cut
	for i := 0; i < len(field); {
		n := 1 // raw bytes of the unit, which stands for one byte
		if field[i] == '\\' && i+1 < len(field) {
			switch field[i+1] {
			case 't', 'n', 'r', '\\':
				n = 2
			}
		}
		for k < len(cuts) && cuts[k][1] <= d {
			k++
		}
		if k == len(cuts) || d < cuts[k][0] {
			dst = append(dst, field[i:i+n]...)
		}
		i += n
		d++
	}
	if bytes.IndexByte(field, '\\') < 0 {
		return dst
	}
	// The check: the field written must stand for the text left.
	text := Unescape(nil, field)
	var left []byte
	prev := 0
	for _, c := range cuts {
		left = append(left, text[prev:c[0]]...)
		prev = c[1]
	}
	left = append(left, text[prev:]...)
	if bytes.Equal(Unescape(nil, dst[n0:]), left) {
		return dst
	}
	return Escape(dst[:n0], left)
}
