package input

import (
	"unicode/utf16"
	"unicode/utf8"
)

// CutJSONString appends to dst the JSON string quoted (as written in a line
// that JSONFields parsed, quotes included) with the byte ranges cuts of its
// decoded value removed, every other byte of it as written: an escape such
// as \u00e9 stays an escape. cuts are [start, end) offsets into the decoded
// value, ascending and disjoint. ok is false, with dst unchanged, when a
// cut's end falls inside the bytes one escape stands for (\u00e9 is two
// bytes of UTF-8): the caller then writes the value encoded anew.
func CutJSONString(dst, quoted []byte, cuts [][2]int) (_ []byte, ok bool) {
	n0 := len(dst)
	p := jsonParser{b: quoted, i: 1}
	end := len(quoted) - 1
	dst = append(dst, '"')
	d, k := 0, 0 // the decoded offset of the unit at p.i; the next cut
	for p.i < end {
		start := p.i
		n := p.unit()
		for k < len(cuts) && cuts[k][1] <= d {
			k++
		}
		switch {
		case k == len(cuts) || d+n <= cuts[k][0]: // before the next cut
			dst = append(dst, quoted[start:p.i]...)
		case cuts[k][0] <= d && d+n <= cuts[k][1]: // inside it
		default:
			return dst[:n0], false
		}
		d += n
	}
	return append(dst, '"'), true
}

// unit steps over one unit of a valid JSON string at p.i, a byte or an
// escape, and returns the number of bytes it stands for, as str decodes it.
func (p *jsonParser) unit() int {
	if p.b[p.i] != '\\' || p.i+1 >= len(p.b) {
		p.i++
		return 1
	}
	e := p.b[p.i+1]
	p.i += 2
	if e != 'u' {
		return 1
	}
	r, ok := p.hex4()
	if !ok {
		return 1
	}
	if !utf16.IsSurrogate(r) {
		return utf8.RuneLen(r)
	}
	save := p.i
	if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
		p.i += 2
		if r2, ok := p.hex4(); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return utf8.RuneLen(dec)
			}
		}
	}
	p.i = save
	return utf8.RuneLen(utf8.RuneError)
}
