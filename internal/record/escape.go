package record

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
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
//
// Text in TSV holds an escape every 18 bytes on average (each line break is
// one; man pages' troff has more), and a search and a copy for each run
// between them took 23 ns an escape on real text, mostly the calls. Here
// the bytes are copied whole, 32 at a time (AVX2) or 8, and the copy steps
// back to the first backslash among them.
func Unescape(dst, b []byte) []byte {
	start := len(dst)
	// Room for all of b and for the last 8-byte store: the output is never
	// longer than the input read.
	dst = slices.Grow(dst, len(b)+8)
	out := dst[:cap(dst)]
	written, i := unescapeRun(out[start:], b)
	k := start + written
	for i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		binary.LittleEndian.PutUint64(out[k:], w)
		m := backslashes(w)
		if m == 0 {
			i += 8
			k += 8
			continue
		}
		j := bits.TrailingZeros64(m) >> 3
		i += j
		k += j
		if i+1 == len(b) {
			break
		}
		c := b[i+1]
		out[k], out[k+1] = unescapeSteps[c][0], c
		k += int(unescapeSteps[c][1])
		i += 2
	}
	for i < len(b) {
		c := b[i]
		if c == '\\' && i+1 < len(b) && unescapeSteps[b[i+1]][1] == 1 {
			i++
			c = unescapeSteps[b[i]][0]
		}
		out[k] = c
		k++
		i++
	}
	return dst[:k]
}

// EscapeID appends id, a document id as the user's data gives it, in the
// escaped form records carry: Escape, and an id that begins with
// HeaderPrefix has its '#' written \#, so that a record whose first field
// it is never reads as a header line. Any other '#' is written as it is.
func EscapeID(dst, id []byte) []byte {
	if len(id) > 0 && id[0] == '#' && isHeaderPrefixed(id) {
		dst = append(dst, '\\', '#')
		id = id[1:]
	}
	return Escape(dst, id)
}

// UnescapeID appends to dst the id that field, an id as a record carries
// it, stands for: a leading \# is '#' (EscapeID), the rest as Unescape
// reads it.
func UnescapeID(dst, field []byte) []byte {
	if len(field) > 1 && field[0] == '\\' && field[1] == '#' {
		dst = append(dst, '#')
		field = field[2:]
	}
	return Unescape(dst, field)
}

// isHeaderPrefixed says whether b begins with HeaderPrefix.
func isHeaderPrefixed(b []byte) bool {
	return len(b) >= len(HeaderPrefix) && string(b[:len(HeaderPrefix)]) == HeaderPrefix
}

// unescapeSteps[c] is what a backslash followed by c becomes: the first byte
// written, then how many are written (c is the second): 1 for \t, \n, \r
// and \\, 2 for a backslash that stands for itself.
var unescapeSteps = func() (t [256][2]byte) {
	for c := range t {
		t[c] = [2]byte{'\\', 2}
	}
	for c, raw := range map[byte]byte{'t': '\t', 'n': '\n', 'r': '\r', '\\': '\\'} {
		t[c] = [2]byte{raw, 1}
	}
	return t
}()

// backslashes returns w (8 bytes) with the top bit of its lowest backslash
// byte set, and perhaps of later bytes (a borrow can set them), or 0 when w
// holds none.
func backslashes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	v := w ^ '\\'*ones
	return (v - ones) &^ v & highs
}

// CheckID says what is wrong with an id field as a record carries it: an
// empty id, a backslash followed by anything but t, n, r or a backslash (a\qb
// is not the id a\\qb), or a lone backslash at its end; \# is an escape only
// where EscapeID writes it, first, before "neardup", and there an
// unescaped '#' is refused (#neardup x is not the id \#neardup x, and a
// record beginning with it would read as a header). The error is a
// *LineError. Every parse function of a record with ids calls it, and so do
// the document readers (package input), so that an id is refused at the
// first stage that reads it.
func CheckID(id []byte) error {
	if len(id) == 0 {
		return Bad("empty id")
	}
	if id[0] == '#' && isHeaderPrefixed(id) {
		return Bad("id %s: an id that begins %s is written \\%[2]s, so that its records are not read as headers", clip(id), HeaderPrefix)
	}
	for i := bytes.IndexByte(id, '\\'); i >= 0; {
		if i+1 == len(id) {
			return Bad("id %s: a lone backslash ends it (a backslash is written \\\\)", clip(id))
		}
		switch id[i+1] {
		case 't', 'n', 'r', '\\':
		case '#':
			if i > 0 || !isHeaderPrefixed(id[1:]) {
				return Bad("id %s: \\# is an escape only at the start of an id that begins %s", clip(id), HeaderPrefix)
			}
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
// was written in a record: the field is unescaped and escaped again, a
// leading \# kept. An id that CheckID accepts is its own canonical form
// (every record parser refuses the others, so that a\qb and a\\qb are
// never one document).
func CanonicalID(dst, field []byte) []byte {
	if bytes.IndexByte(field, '\\') < 0 {
		return append(dst, field...)
	}
	if field[0] == '\\' && len(field) > 1 && field[1] == '#' {
		dst = append(dst, field[:2]...)
		field = field[2:]
	}
	var tmp [256]byte
	raw := Unescape(tmp[:0], field)
	return Escape(dst, raw)
}
