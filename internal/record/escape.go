package record

import (
	"bytes"
	"unicode/utf8"
)

// NeedsEscape reports whether b holds a byte that Escape would change.
func NeedsEscape(b []byte) bool {
	for _, c := range b {
		switch c {
		case '\t', '\n', '\r', '\\':
			return true
		}
	}
	return false
}

// Escape appends b to dst with TAB, LF, CR and backslash written as \t, \n,
// \r and \\.
func Escape(dst, b []byte) []byte {
	start := 0
	for i, c := range b {
		var e byte
		switch c {
		case '\t':
			e = 't'
		case '\n':
			e = 'n'
		case '\r':
			e = 'r'
		case '\\':
			e = '\\'
		default:
			continue
		}
		dst = append(dst, b[start:i]...)
		dst = append(dst, '\\', e)
		start = i + 1
	}
	return append(dst, b[start:]...)
}

// Unescape appends to dst the bytes that field b stands for: \t, \n, \r and
// \\ become TAB, LF, CR and a backslash. A backslash followed by anything else,
// or ending the field, stands for itself.
func Unescape(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, '\\')
		if i < 0 {
			return append(dst, b...)
		}
		dst = append(dst, b[:i]...)
		if i+1 == len(b) {
			return append(dst, '\\')
		}
		switch b[i+1] {
		case 't':
			dst = append(dst, '\t')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case '\\':
			dst = append(dst, '\\')
		default:
			dst = append(dst, '\\', b[i+1])
		}
		b = b[i+2:]
	}
}

// CheckID says what is wrong with an id field as a record carries it: an
// empty id, a backslash followed by anything but t, n, r or a backslash (a\qb
// is not the id a\\qb), or a lone backslash at its end. The error is a
// *LineError. Every parse function of a record with ids calls it, and so do
// the document readers (package input), so that an id is refused at the
// first stage that reads it.
func CheckID(id []byte) error {
	if len(id) == 0 {
		return Bad("empty id")
	}
	for i := bytes.IndexByte(id, '\\'); i >= 0; {
		if i+1 == len(id) {
			return Bad("id %s: a lone backslash ends it (a backslash is written \\\\)", clip(id))
		}
		switch id[i+1] {
		case 't', 'n', 'r', '\\':
		default:
			_, size := utf8.DecodeRune(id[i+1:])
			return Bad("id %s: \\%s is not an escape (a backslash is written \\\\, a TAB, LF and CR \\t, \\n, \\r)", clip(id), id[i+1:i+1+size])
		}
		j := bytes.IndexByte(id[i+2:], '\\')
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return nil
}

// CanonicalID appends to dst the canonical escaped form of an id field as it
// was written in a record: the field is unescaped and escaped again. An id
// that CheckID accepts is its own canonical form (every record parser
// refuses the others, so that a\qb and a\\qb are never one document).
func CanonicalID(dst, field []byte) []byte {
	if bytes.IndexByte(field, '\\') < 0 {
		return append(dst, field...)
	}
	var tmp [256]byte
	raw := Unescape(tmp[:0], field)
	return Escape(dst, raw)
}
