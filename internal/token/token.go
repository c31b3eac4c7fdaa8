package token

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Byte classes of the byte-at-a-time path (slowNext).
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
	r, size := decodeRune(b)
	return lowerOf(r, runeFlags(r)), size
}

// decodeRune is utf8.DecodeRune of b (len(b) > 0, b[0] ≥ 0x80), with the
// two- and three-byte runes of accented Latin, Cyrillic, Greek, CJK and
// kana decoded here, without the call: those are most of the runes of
// text that is not ASCII. Anything else (four bytes, invalid) is
// DecodeRune's.
func decodeRune(b []byte) (rune, int) {
	c0 := b[0]
	switch {
	case c0 >= 0xc2 && c0 < 0xe0 && len(b) >= 2:
		if c1 := b[1]; c1&0xc0 == 0x80 {
			return rune(c0&0x1f)<<6 | rune(c1&0x3f), 2
		}
	case c0 >= 0xe0 && c0 < 0xf0 && len(b) >= 3:
		c1, c2 := b[1], b[2]
		if c1&0xc0 == 0x80 && c2&0xc0 == 0x80 {
			// Not overlong (below U+0800), not a surrogate.
			if r := rune(c0&0x0f)<<12 | rune(c1&0x3f)<<6 | rune(c2&0x3f); r >= 0x800 && (r < 0xd800 || r > 0xdfff) {
				return r, 3
			}
		}
	}
	return utf8.DecodeRune(b)
}

// Tokenizer finds the lower-cased word tokens of a text: after Reset, each
// Scan finds the next few hundred, and Token and AppendHashes give them.
//
// Its fast path looks at 64 bytes at a time: a block's bytes are classified
// eight per 64-bit word (SWAR) into bit masks of ASCII letters and digits
// and of bytes ≥ 0x80, and a token is found with trailing-zero counts
// instead of a branch per byte. A token that meets a multi-byte rune goes
// to the byte-at-a-time path (slowNext), which decides by the rune's Unicode
// properties.
type Tokenizer struct {
	text  []byte
	spans []span
	slow  []byte // the tokens slowNext lower-cased, one after another
	buf   []byte // scratch: a token lower-cased
	pos   int    // where Scan and slowNext go on
	start int    // where the token slowNext found last starts (AppendSpans)
	// The masks of block blk: bit i is byte 64·blk+i; bytes past the text
	// are in neither.
	blk         int
	alnum, high uint64
	// bmp is bmpTable(), kept: through its sync.Once a call for each
	// token outside ASCII took 1 % of shingle's time.
	bmp *[0x10000]uint8
}

// span is a token: text[start:end], ASCII letters and digits in either
// case; when end < 0, text[start:^end], already lower case as it stands (a
// rune that is a token on its own and has no case, or a token slowNext
// found in lower case); when start < 0, slow[^start:end], lower-cased.
type span struct{ start, end int }

// rune3 returns the flags of the rune at text[i] when it is three bytes of
// valid UTF-8 (in bmp, bmpTable), and ok; else ok is false. Han and kana,
// most of the text of Chinese and Japanese, are such runes, each a token
// on its own and lower case, and so is their punctuation, separators: a
// run of them is cut here, without slowNext and its copy.
func rune3(text []byte, i int, bmp *[0x10000]uint8) (f uint8, ok bool) {
	if i+3 > len(text) {
		return 0, false
	}
	c0, c1, c2 := text[i], text[i+1], text[i+2]
	if c0&0xf0 != 0xe0 || c1&0xc0 != 0x80 || c2&0xc0 != 0x80 {
		return 0, false
	}
	r := rune(c0&0x0f)<<12 | rune(c1&0x3f)<<6 | rune(c2&0x3f)
	if r < 0x800 || r >= 0xd800 && r <= 0xdfff {
		return 0, false
	}
	return bmp[r], true
}

// single3 says whether the rune at text[i] is three bytes that are a token
// on their own and have no case (rune3).
func single3(text []byte, i int, bmp *[0x10000]uint8) bool {
	f, ok := rune3(text, i, bmp)
	return ok && f&(rfSingle|rfCased) == rfSingle
}

// MaxSpans is the most tokens one Scan finds: their spans stay in the
// cache, and memory is bounded for texts of any length.
const MaxSpans = 1024

// Reset starts on text. Token and AppendHashes refer to it until the next
// Reset.
func (t *Tokenizer) Reset(text []byte) {
	if t.bmp == nil {
		t.bmp = bmpTable()
		t.spans = make([]span, 0, MaxSpans)
	}
	t.text = text
	t.pos = 0
	t.blk = -1
	t.spans = t.spans[:0]
}

// Scan finds the next tokens of the text, at most MaxSpans, and returns
// their number: 0 at the end of the text.
func (t *Tokenizer) Scan() int {
	text := t.text
	t.spans = t.spans[:0]
	t.slow = t.slow[:0]
	i := t.pos
	for len(t.spans) < MaxSpans {
		if i < len(text) {
			if t.block(i >> 6); t.high == 0 {
				i = t.asciiTokens(i)
				if len(t.spans) == MaxSpans {
					break
				}
			}
		}
		// The first byte that can start a token.
		for {
			if i >= len(text) {
				t.pos = i
				return len(t.spans)
			}
			t.block(i >> 6)
			if m := (t.alnum | t.high) >> (i & 63); m != 0 {
				i += bits.TrailingZeros64(m)
				break
			}
			i = (i>>6 + 1) << 6
		}
		start := i
		if t.high>>(i&63)&1 == 0 {
			// The end of its ASCII letters and digits. Bits shifted in
			// from the top count as one, so a run that reaches the
			// block's end goes on in the next block.
			for {
				t.block(i >> 6)
				if m := ^t.alnum >> (i & 63); m != 0 {
					i += bits.TrailingZeros64(m)
					break
				}
				i = (i>>6 + 1) << 6
			}
			if i >= len(text) || text[i] < utf8.RuneSelf || invalidLead(text[i]) {
				t.spans = append(t.spans, span{start, i})
				continue
			}
			// A multi-byte rune follows: it may go on with the token.
		} else if invalidLead(text[i]) {
			i++ // no rune starts with it: a separator, as in slowNext
			continue
		} else if single3(text, i, t.bmp) {
			i = t.run3(i)
			continue
		}
		t.pos = start
		tok, ok := t.slowNext()
		switch {
		case !ok:
		case len(tok) == t.pos-t.start && &tok[0] == &text[t.start]:
			// Lower case as it stands in the text.
			t.spans = append(t.spans, span{t.start, ^t.pos})
		default:
			off := len(t.slow)
			t.slow = append(t.slow, tok...)
			t.spans = append(t.spans, span{^off, len(t.slow)})
		}
		i = t.pos
	}
	t.pos = i
	return len(t.spans)
}

// run3 takes the run of three-byte runes that begins at i with Han or
// kana, a token on its own and lower case: each such rune's bytes are its
// token, with no copy, and the separators of three bytes among them (CJK
// punctuation) are passed over. It stops at any other rune or byte, or
// at MaxSpans tokens, and returns where Scan goes on. Four bytes are
// loaded at once where there are four: the checks of one rune are a mask
// of its word, with no call (rune3 a rune took a third of shingle's time on
// Japanese text).
func (t *Tokenizer) run3(i int) int {
	text, bmp := t.text, t.bmp
	n := len(t.spans)
	spans := t.spans[:MaxSpans]
	for n < MaxSpans {
		var f uint8
		if i+4 <= len(text) {
			x := binary.LittleEndian.Uint32(text[i:])
			if x&0xc0c0f0 != 0x8080e0 {
				break
			}
			r := rune(x&0x0f)<<12 | rune(x>>8&0x3f)<<6 | rune(x>>16&0x3f)
			// Not overlong (below U+0800), not a surrogate.
			if r < 0x800 || r >= 0xd800 && r <= 0xdfff {
				break
			}
			f = bmp[r]
		} else {
			var ok bool
			if f, ok = rune3(text, i, bmp); !ok {
				break
			}
		}
		if f&(rfSingle|rfCased) == rfSingle {
			spans[n] = span{i, ^(i + 3)}
			n++
		} else if f&(rfSingle|rfWord) != 0 {
			break
		}
		i += 3
	}
	t.spans = spans[:n]
	return i
}

// asciiTokens finds the tokens of the block of i, all of its bytes ASCII,
// from i (where no token is under way) at once: the first and the last
// byte of each are the bits of its mask of letters and digits whose
// neighbour below, or above, is not set. A token that reaches the block's
// end may go on in the next, and is left to Scan's loop, as are those
// past MaxSpans; it returns where that loop goes on.
func (t *Tokenizer) asciiTokens(i int) int {
	base := i &^ 63
	s := t.alnum >> (i & 63) << (i & 63)
	firsts, lasts := s&^(s<<1), s&^(s>>1)
	next := base + 64
	if s>>63 != 0 {
		top := 63 - bits.LeadingZeros64(firsts)
		firsts &^= 1 << top
		lasts &^= 1 << 63
		next = base + top
	}
	if firsts != 0 && len(t.spans)+bits.OnesCount64(firsts) <= MaxSpans {
		var ok bool
		if t.spans, ok = appendASCIISpans(t.spans, firsts, lasts, base); ok {
			return next
		}
	}
	for firsts != 0 {
		if len(t.spans) == MaxSpans {
			return base + bits.TrailingZeros64(firsts)
		}
		t.spans = append(t.spans, span{base + bits.TrailingZeros64(firsts), base + bits.TrailingZeros64(lasts) + 1})
		firsts &= firsts - 1
		lasts &= lasts - 1
	}
	return next
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

// load classifies the 64 bytes of block b into its masks: with AVX2 where
// the CPU has it (two registers of 32 bytes, a tenth of the instructions),
// else eight bytes per 64-bit word.
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
	if alnum, high, ok := classify64(block); ok {
		t.alnum, t.high = alnum, high
		return
	}
	t.alnum, t.high = classify64SWAR(block)
}

// classify64SWAR is classify64 in Go, eight bytes per 64-bit word.
func classify64SWAR(block []byte) (alnum, high uint64) {
	block = block[:64]
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
	return alnum, high
}

// movemask gathers bit 7 of each byte of m (only those bits may be set)
// into an 8-bit mask.
func movemask(m uint64) uint64 {
	return ((m >> 7) * 0x0102040810204080) >> 56
}

// Token returns token i of the last Scan, lower-cased, valid until the
// next call.
func (t *Tokenizer) Token(i int) []byte {
	sp := t.spans[i]
	if sp.start < 0 {
		return t.slow[^sp.start:sp.end]
	}
	if sp.end < 0 {
		return t.text[sp.start:^sp.end]
	}
	tok := t.text[sp.start:sp.end]
	for _, c := range tok {
		if c <= 'Z' && c >= 'A' {
			t.buf = appendLowerASCII(t.buf[:0], tok)
			return t.buf
		}
	}
	return tok
}

// AppendHashes appends XXH64 (seed 0) of each token of the last Scan,
// as Hash(Token(i)), without copying a short ASCII token to
// lower-case it.
func (t *Tokenizer) AppendHashes(dst []uint64) []uint64 {
	start := len(dst)
	dst = slices.Grow(dst, len(t.spans))[:start+len(t.spans)]
	out := dst[start:]
	// shortHashes hashes the short spans of each eight it goes through, and
	// says which in a byte of done; the others are hashed here.
	var done [MaxSpans / 8]uint8
	vec := shortHashes(t.text, t.spans, out, done[:])
	for g, d := range done[:vec/8] {
		for rest := ^d; rest != 0; rest &= rest - 1 {
			k := 8*g + bits.TrailingZeros8(rest)
			out[k] = t.hash(t.spans[k])
		}
	}
	for k := vec; k < len(t.spans); k++ {
		out[k] = t.hash(t.spans[k])
	}
	return dst
}

// hash returns the hash of the token of span sp.
func (t *Tokenizer) hash(sp span) uint64 {
	text := t.text
	// A span of the other kinds has n < 0 (end < 0) or start < 0.
	switch n := sp.end - sp.start; {
	case uint(n) < 16 && sp.start >= 0 && sp.start+16 <= len(text):
		b := text[sp.start : sp.start+16]
		return shortTokenHash(binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), n)
	case sp.end < 0:
		return Hash(text[sp.start:^sp.end])
	case sp.start < 0:
		return Hash(t.slow[^sp.start:sp.end])
	default: // long, or too near the end of the text to load 16 bytes
		t.buf = appendLowerASCII(t.buf[:0], text[sp.start:sp.end])
		return Hash(t.buf)
	}
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
// flags is runeFlags(r), from t.bmp in the BMP.
func (t *Tokenizer) flags(r rune) uint8 {
	if uint32(r) >= 0x10000 {
		return flagsOf(r)
	}
	return t.bmp[r]
}

// DecodeRune gives RuneError for it, and the tokenizer a separator.
func invalidLead(c byte) bool { return c < 0xc2 || c > 0xf4 }

// slowNext finds the next token from t.pos a byte at a time, deciding
// multi-byte runes by their Unicode properties, and moves t.pos past it;
// ok is false at the end of the text.
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
		r0, size := decodeRune(text[i:])
		if r0 == utf8.RuneError {
			i += size // not a letter or digit
			continue
		}
		f := t.flags(r0)
		if f&rfSingle != 0 {
			t.start, t.pos = i, i+size
			if f&rfCased == 0 {
				// Its bytes are its encoding: valid, and lower case.
				return text[i : i+size], true
			}
			t.buf = utf8.AppendRune(t.buf[:0], lowerOf(r0, f))
			return t.buf, true
		}
		if f&rfWord != 0 {
			break
		}
		i += size
	}
	start := i
	t.start = start
	lower := true // the bytes of text are already lower case
	bmp := t.bmp
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
		var f uint8
		size := 2
		if c1 := text[min(i+1, len(text)-1)]; text[i] >= 0xc2 && text[i] < 0xe0 && c1&0xc0 == 0x80 && i+1 < len(text) {
			// Two bytes (accented Latin, Greek, Cyrillic): decoded and
			// looked up here, not by two calls for each letter.
			f = bmp[rune(text[i]&0x1f)<<6|rune(c1&0x3f)]
		} else {
			var r0 rune
			r0, size = decodeRune(text[i:])
			if r0 == utf8.RuneError {
				break
			}
			f = t.flags(r0)
		}
		if f&(rfSingle|rfWord) != rfWord {
			break
		}
		if f&rfCased != 0 {
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
