package shingle

import (
	"unicode"
	"unicode/utf8"
)

// isASCIIWord marks the ASCII letters and digits.
var isASCIIWord = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
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
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if isASCIIWord[c] {
				break
			}
			i++
			continue
		}
		r, size := decodeLower(text[i:])
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
	if i >= len(text) {
		t.pos = i
		return nil, false
	}
	start := i
	lower := true // the bytes of text are already lower case
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if !isASCIIWord[c] {
				break
			}
			if c <= 'Z' && c >= 'A' {
				lower = false
			}
			i++
			continue
		}
		r0, size := utf8.DecodeRune(text[i:])
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
