package shingle

import (
	"unicode"
	"unicode/utf8"
)

// Byte classes of the tokenizer's fast path.
const (
	classSeparator = iota // an ASCII byte that is not a letter or digit
	classWord             // a-z, 0-9
	classUpper            // A-Z
	classMulti            // the first byte (or a stray byte) of a multi-byte rune
)

var byteClass = func() (t [256]uint8) {
	for c := 0x80; c < 0x100; c++ {
		t[c] = classMulti
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classWord
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = classWord
		t[c-'a'+'A'] = classUpper
	}
	return t
}()

// isSingleRuneToken reports whether r belongs to a script whose every rune
// is a token on its own: Han, Hiragana, Katakana, Hangul.
func isSingleRuneToken(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// decodeLower decodes the rune at the start of b (len(b) > 0, b[0] ≥ 0x80)
// and lower-cases it. Invalid UTF-8 gives U+FFFD with size 1.
func decodeLower(b []byte) (rune, int) {
	r, size := utf8.DecodeRune(b)
	return unicode.ToLower(r), size
}

// Tokenizer yields the lower-cased word tokens of a text one at a time.
type Tokenizer struct {
	text []byte
	pos  int
	buf  []byte
}

// Reset starts tokenizing text.
func (t *Tokenizer) Reset(text []byte) {
	t.text = text
	t.pos = 0
}

// Next returns the next token, lower-cased, valid until the next call; ok is
// false at the end of the text.
func (t *Tokenizer) Next() (tok []byte, ok bool) {
	text := t.text
	i := t.pos
	// Skip to the start of a token.
	for {
		for i < len(text) && byteClass[text[i]] == classSeparator {
			i++
		}
		if i >= len(text) {
			t.pos = i
			return nil, false
		}
		if byteClass[text[i]] != classMulti {
			break
		}
		r0, size := utf8.DecodeRune(text[i:])
		if r0 == utf8.RuneError {
			i += size // not a letter or digit
			continue
		}
		r := unicode.ToLower(r0)
		if isSingleRuneToken(r) {
			t.pos = i + size
			t.buf = utf8.AppendRune(t.buf[:0], r)
			return t.buf, true
		}
		if isWordRune(r) {
			break
		}
		i += size
	}
	start := i
	lower := true // the bytes of text are already lower case
scan:
	for i < len(text) {
		switch byteClass[text[i]] {
		case classWord:
			i++
			for i < len(text) && byteClass[text[i]] == classWord {
				i++
			}
			continue
		case classUpper:
			lower = false
			i++
			continue
		case classSeparator:
			break scan
		}
		r0, size := utf8.DecodeRune(text[i:])
		if r0 == utf8.RuneError {
			break
		}
		r := unicode.ToLower(r0)
		if isSingleRuneToken(r) || !isWordRune(r) {
			break
		}
		if r != r0 {
			lower = false
		}
		i += size
	}
	t.pos = i
	if lower {
		return text[start:i], true
	}
	b := t.buf[:0]
	for j := start; j < i; {
		c := text[j]
		if c < utf8.RuneSelf {
			if c <= 'Z' && c >= 'A' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			j++
			continue
		}
		r, size := decodeLower(text[j:])
		b = utf8.AppendRune(b, r)
		j += size
	}
	t.buf = b
	return b, true
}

// charNormalizer yields the code points of a text lower-cased, with every
// run of white space as one space.
type charNormalizer struct {
	text    []byte
	pos     int
	inSpace bool
}

func (n *charNormalizer) reset(text []byte) {
	n.text = text
	n.pos = 0
	n.inSpace = false
}

// next returns the next normalised code point; ok is false at the end.
func (n *charNormalizer) next() (r rune, ok bool) {
	for n.pos < len(n.text) {
		c := n.text[n.pos]
		var size int
		if c < utf8.RuneSelf {
			r, size = rune(c), 1
			if c <= 'Z' && c >= 'A' {
				r += 'a' - 'A'
			}
		} else {
			r, size = decodeLower(n.text[n.pos:])
		}
		n.pos += size
		if isSpace(r) {
			if n.inSpace {
				continue
			}
			n.inSpace = true
			return ' ', true
		}
		n.inSpace = false
		return r, true
	}
	return 0, false
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		switch r {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			return true
		}
		return false
	}
	return unicode.IsSpace(r)
}
