package input

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// JSONFields extracts two top-level fields from a line holding one JSON
// object, checking the syntax of the whole line. It keeps scratch space
// between calls and is not safe for concurrent use.
type JSONFields struct {
	IDKey, TextKey string

	keyBuf  []byte
	idBuf   []byte
	textBuf []byte
}

// JSONValue is what JSONFields found for a field.
type JSONValue struct {
	Found bool
	// IsString says whether the value was a string (its decoded bytes are
	// in Bytes); otherwise Bytes holds the literal as written (a number,
	// true, false or null; objects and arrays too).
	IsString bool
	Bytes    []byte
	// Start and End delimit the value as written in the line (a string's
	// quotes included): keep --drop-parts rewrites a text in place.
	Start, End int
}

// maxJSONDepth bounds the nesting of skipped values.
const maxJSONDepth = 1000

type jsonError struct {
	off int
	msg string
}

func (e *jsonError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.off+1, e.msg)
}

// Parse returns the id and text fields of the object in line. The returned
// bytes are valid until the next call. A key given twice takes its last
// value, as encoding/json does.
func (j *JSONFields) Parse(line []byte) (id, text JSONValue, err error) {
	p := jsonParser{b: line}
	p.skipSpace()
	if !p.eat('{') {
		return id, text, p.fail("want an object, one per line")
	}
	p.skipSpace()
	if p.eat('}') {
		return id, text, p.end()
	}
	for {
		p.skipSpace()
		if p.peek() != '"' {
			return id, text, p.fail("want a string key")
		}
		key, err := p.str(j.keyBuf[:0])
		if err != nil {
			return id, text, err
		}
		j.keyBuf = key
		p.skipSpace()
		if !p.eat(':') {
			return id, text, p.fail("want ':' after key")
		}
		p.skipSpace()
		isID, isText := string(key) == j.IDKey, string(key) == j.TextKey
		switch {
		case isID || isText:
			var v JSONValue
			buf := &j.idBuf
			if !isID {
				buf = &j.textBuf
			}
			start := p.i
			if p.peek() == '"' {
				s, err := p.str((*buf)[:0])
				if err != nil {
					return id, text, err
				}
				*buf = s
				v = JSONValue{Found: true, IsString: true, Bytes: s}
			} else {
				if err := p.value(0); err != nil {
					return id, text, err
				}
				v = JSONValue{Found: true, Bytes: line[start:p.i]}
			}
			v.Start, v.End = start, p.i
			if isID {
				id = v
			}
			if isText {
				text = v
			}
		default:
			if err := p.value(0); err != nil {
				return id, text, err
			}
		}
		p.skipSpace()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			return id, text, p.end()
		}
		return id, text, p.fail("want ',' or '}' after value")
	}
}

type jsonParser struct {
	b []byte
	i int
}

func (p *jsonParser) fail(msg string) error {
	if p.i >= len(p.b) {
		return &jsonError{p.i, msg + ", got end of line"}
	}
	// Name the character, not its first byte: a byte order mark or a
	// letter outside ASCII shows as itself.
	r, size := utf8.DecodeRune(p.b[p.i:])
	if r == utf8.RuneError && size == 1 {
		return &jsonError{p.i, fmt.Sprintf("%s, got byte %#02x", msg, p.b[p.i])}
	}
	return &jsonError{p.i, fmt.Sprintf("%s, got %q", msg, r)}
}

func (p *jsonParser) end() error {
	p.skipSpace()
	if p.i != len(p.b) {
		return p.fail("want end of line after the object")
	}
	return nil
}

func (p *jsonParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *jsonParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonParser) skipSpace() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// Eight bytes at once (the bit tricks of "Bit Twiddling Hacks": a byte
// that is zero, or less than n).
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainEnd returns the index of the first byte of b from i that ends a run
// of plain bytes in a JSON string: '"', '\\' or a control character; or
// len(b). Eight bytes at a time: of each test's flags, the lowest is
// exact (a borrow only flags bytes above a true one), so the lowest of all
// is. With AVX2, 32 bytes at a time first (plainRun).
func plainEnd(b []byte, i int) int {
	i += plainRun(b[i:])
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := x^('"'*ones), x^('\\'*ones)
		m := (q-ones)&^q | (s-ones)&^s | (x-0x20*ones)&^x
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return len(b)
}

// str decodes the string at p.i (which is '"') and appends it to dst.
func (p *jsonParser) str(dst []byte) ([]byte, error) {
	p.i++
	for {
		start := p.i
		p.i = plainEnd(p.b, p.i)
		dst = append(dst, p.b[start:p.i]...)
		if p.i >= len(p.b) {
			return dst, p.fail("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return dst, nil
		case c < 0x20:
			return dst, p.fail("control character in string")
		}
		// A backslash escape.
		if p.i+1 >= len(p.b) {
			p.i++
			return dst, p.fail("unterminated escape")
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return dst, p.fail("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				save := p.i
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					p.i += 2
					var ok2 bool
					r2, ok2 = p.hex4()
					if !ok2 {
						return dst, p.fail("bad \\u escape")
					}
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
				} else {
					r = utf8.RuneError
					p.i = save
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			p.i--
			return dst, p.fail("bad escape")
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	p.i += 4
	return r, true
}

// value skips over one value, checking its syntax.
func (p *jsonParser) value(depth int) error {
	if depth > maxJSONDepth {
		return &jsonError{p.i, fmt.Sprintf("nested too deeply (more than %d levels)", maxJSONDepth)}
	}
	switch c := p.peek(); {
	case c == '"':
		_, err := p.str(nil)
		return err
	case c == '{':
		p.i++
		p.skipSpace()
		if p.eat('}') {
			return nil
		}
		for {
			p.skipSpace()
			if p.peek() != '"' {
				return p.fail("want a string key")
			}
			if _, err := p.str(nil); err != nil {
				return err
			}
			p.skipSpace()
			if !p.eat(':') {
				return p.fail("want ':' after key")
			}
			p.skipSpace()
			if err := p.value(depth + 1); err != nil {
				return err
			}
			p.skipSpace()
			if p.eat(',') {
				continue
			}
			if p.eat('}') {
				return nil
			}
			return p.fail("want ',' or '}'")
		}
	case c == '[':
		p.i++
		p.skipSpace()
		if p.eat(']') {
			return nil
		}
		for {
			p.skipSpace()
			if err := p.value(depth + 1); err != nil {
				return err
			}
			p.skipSpace()
			if p.eat(',') {
				continue
			}
			if p.eat(']') {
				return nil
			}
			return p.fail("want ',' or ']'")
		}
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return p.fail("want a value")
}

func (p *jsonParser) literal(s string) error {
	if p.i+len(s) <= len(p.b) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return nil
	}
	return p.fail("bad literal")
}

func (p *jsonParser) digits() int {
	n := 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

func (p *jsonParser) number() error {
	p.eat('-')
	if p.eat('0') {
		// no more integer digits
	} else if p.digits() == 0 {
		return p.fail("bad number")
	}
	if p.eat('.') && p.digits() == 0 {
		return p.fail("bad number")
	}
	if p.peek() == 'e' || p.peek() == 'E' {
		p.i++
		if !p.eat('+') {
			p.eat('-')
		}
		if p.digits() == 0 {
			return p.fail("bad number")
		}
	}
	return nil
}
