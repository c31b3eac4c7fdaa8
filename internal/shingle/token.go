package shingle

import (
	"encoding/binary"
	"math/bits"
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
//
// Its fast path looks at 64 bytes at a time: a block's bytes are classified
// eight per 64-bit word (SWAR) into bit masks of ASCII letters and digits
// and of bytes ≥ 0x80, and a token is found with trailing-zero counts
// instead of a branch per byte. A token that meets a multi-byte rune goes
// to the byte-at-a-time path (slowNext), which decides by the rune's Unicode
// properties.
type Tokenizer struct {
	text []byte
	pos  int
	buf  []byte
	// The masks of block blk: bit i is byte 64·blk+i; bytes past the text
	// are in neither.
	blk         int
	alnum, high uint64
}

// Reset starts tokenizing text.
func (t *Tokenizer) Reset(text []byte) {
	t.text = text
	t.pos = 0
	t.blk = -1
}

// block makes b the block whose masks t holds.
func (t *Tokenizer) block(b int) {
	if b != t.blk {
		t.load(b)
	}
}

const (
	ones8  = 0x0101010101010101
	high8  = 0x8080808080808080
	low7x8 = 0x7f7f7f7f7f7f7f7f
)

// load classifies the 64 bytes of block b into its masks, eight bytes per
// 64-bit word.
func (t *Tokenizer) load(b int) {
	t.blk = b
	t.alnum, t.high = 0, 0
	off := b << 6
	if off >= len(t.text) {
		return
	}
	block := t.text[off:]
	var pad [64]byte
	if len(block) < 64 {
		copy(pad[:], block) // NUL is in neither mask
		block = pad[:]
	}
	block = block[:64]
	var alnum, high uint64
	for j := 0; j < 8; j++ {
		x := binary.LittleEndian.Uint64(block[8*j:])
		h := x & high8
		y := x & low7x8 // each byte < 0x80: adding < 0x80 to it never carries
		digit := (y + ones8*(0x80-'0')) &^ (y + ones8*(0x7f-'9'))
		z := y | ones8*0x20 // folds A-Z onto a-z
		letter := (z + ones8*(0x80-'a')) &^ (z + ones8*(0x7f-'z'))
		alnum |= movemask((digit|letter)&^h&high8) << (8 * j)
		high |= movemask(h) << (8 * j)
	}
	t.alnum, t.high = alnum, high
}

// movemask gathers bit 7 of each byte of m (only those bits may be set)
// into an 8-bit mask.
func movemask(m uint64) uint64 {
	return ((m >> 7) * 0x0102040810204080) >> 56
}

// What advance returns in start when it found no ASCII token.
const (
	endOfText = -1 // no token is left
	slowToken = -2 // slowNext finds the next token, from t.pos
)

// advance finds the next token on the fast path: if it is ASCII letters
// and digits it returns its bounds, in either case, and moves past it.
func (t *Tokenizer) advance() (start, end int) {
	i := t.pos
	// The first byte that can start a token.
	for {
		if i >= len(t.text) {
			t.pos = i
			return endOfText, 0
		}
		t.block(i >> 6)
		if m := (t.alnum | t.high) >> (i & 63); m != 0 {
			i += bits.TrailingZeros64(m)
			if t.high>>(i&63)&1 == 0 {
				break
			}
			if !invalidLead(t.text[i]) {
				t.pos = i
				return slowToken, 0
			}
			i++ // no rune starts with it: a separator, as in slowNext
			continue
		}
		i = (i>>6 + 1) << 6
	}
	// The end of its ASCII letters and digits: the first byte that is not
	// one. Bits shifted in from the top count as one, so a run that reaches
	// the block's end goes on in the next block.
	start = i
	for {
		t.block(i >> 6)
		if m := ^t.alnum >> (i & 63); m != 0 {
			i += bits.TrailingZeros64(m)
			break
		}
		i = (i>>6 + 1) << 6
	}
	if i < len(t.text) && t.text[i] >= utf8.RuneSelf && !invalidLead(t.text[i]) {
		// A multi-byte rune follows: it may go on with the token.
		t.pos = start
		return slowToken, 0
	}
	t.pos = i
	return start, i
}

// Next returns the next token, lower-cased, valid until the next call; ok is
// false at the end of the text.
func (t *Tokenizer) Next() (tok []byte, ok bool) {
	start, end := t.advance()
	switch start {
	case endOfText:
		return nil, false
	case slowToken:
		return t.slowNext()
	}
	tok = t.text[start:end]
	for _, c := range tok {
		if c <= 'Z' && c >= 'A' {
			t.buf = appendLowerASCII(t.buf[:0], tok)
			return t.buf, true
		}
	}
	return tok, true
}

// NextHash returns XXH64 (seed 0) of the next token, lower-cased, as
// tokenHash(Next()) does, without copying an ASCII token to lower-case it.
func (t *Tokenizer) NextHash() (h uint64, ok bool) {
	start, end := t.advance()
	switch start {
	case endOfText:
		return 0, false
	case slowToken:
		tok, ok := t.slowNext()
		return tokenHash(tok), ok
	}
	if end-start < 32 {
		return asciiTokenHash(t.text[start:end]), true
	}
	t.buf = appendLowerASCII(t.buf[:0], t.text[start:end])
	return tokenHash(t.buf), true
}

// appendLowerASCII appends tok, ASCII letters and digits, in lower case.
func appendLowerASCII(dst, tok []byte) []byte {
	for _, c := range tok {
		dst = append(dst, c|0x20) // sets a letter's case bit; digits have it
	}
	return dst
}

// invalidLead reports whether no UTF-8 encoding starts with c ≥ 0x80: a
// continuation byte, an overlong lead (0xC0, 0xC1), or one past U+10FFFF.
// DecodeRune gives RuneError for it, and the tokenizer a separator.
func invalidLead(c byte) bool { return c < 0xc2 || c > 0xf4 }

// slowNext is Next a byte at a time, deciding multi-byte runes by their
// Unicode properties.
func (t *Tokenizer) slowNext() (tok []byte, ok bool) {
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
