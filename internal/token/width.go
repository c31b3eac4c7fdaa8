package token

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// appendFoldWidth appends text with its width forms folded (see
// Normalization.Width). Every rune it changes is U+FF01 to U+FFEE, whose
// UTF-8 starts with 0xEF; a text without that byte is appended unchanged.
func appendFoldWidth(dst, text []byte) []byte {
	i := bytes.IndexByte(text, 0xef)
	if i < 0 {
		return append(dst, text...)
	}
	dst = append(dst, text[:i]...)
	for i < len(text) {
		c := text[i]
		if c != 0xef {
			j := bytes.IndexByte(text[i:], 0xef)
			if j < 0 {
				return append(dst, text[i:]...)
			}
			dst = append(dst, text[i:i+j]...)
			i += j
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		i += size
		f := foldWidthRune(r)
		if f == r {
			dst = append(dst, text[i-size:i]...)
			continue
		}
		// A voiced or semi-voiced sound mark after a half-width kana joins
		// it, as NFKC composes カ and U+3099 into ガ.
		if i+3 <= len(text) && text[i] == 0xef && text[i+1] == 0xbe && (text[i+2] == 0x9e || text[i+2] == 0x9f) {
			if v := composeKana(f, text[i+2] == 0x9f); v != 0 {
				f = v
				i += 3
			}
		}
		dst = utf8.AppendRune(dst, f)
	}
	return dst
}

// halfKana maps U+FF65 to U+FF9F, the half-width katakana, to full width.
var halfKana = [...]rune{
	0x30fb, 0x30f2, 0x30a1, 0x30a3, 0x30a5, 0x30a7, 0x30a9, 0x30e3, 0x30e5, 0x30e7, 0x30c3, // ･ｦｧｨｩｪｫｬｭｮｯ
	0x30fc, 0x30a2, 0x30a4, 0x30a6, 0x30a8, 0x30aa, // ｰｱｲｳｴｵ
	0x30ab, 0x30ad, 0x30af, 0x30b1, 0x30b3, 0x30b5, 0x30b7, 0x30b9, 0x30bb, 0x30bd, // ｶ…ｿ
	0x30bf, 0x30c1, 0x30c4, 0x30c6, 0x30c8, 0x30ca, 0x30cb, 0x30cc, 0x30cd, 0x30ce, // ﾀ…ﾉ
	0x30cf, 0x30d2, 0x30d5, 0x30d8, 0x30db, 0x30de, 0x30df, 0x30e0, 0x30e1, 0x30e2, // ﾊ…ﾓ
	0x30e4, 0x30e6, 0x30e8, 0x30e9, 0x30ea, 0x30eb, 0x30ec, 0x30ed, 0x30ef, 0x30f3, // ﾔ…ﾝ
	0x3099, 0x309a, // ﾞﾟ
}

// fullSigns maps U+FFE0 to U+FFEE.
var fullSigns = [...]rune{
	0x00a2, 0x00a3, 0x00ac, 0xffe3, 0x00a6, 0x00a5, 0x20a9, 0xffe7, // ￠￡￢ ￤￥￦ (￣ is a space and a combining macron in NFKC: kept)
	0x2502, 0x2190, 0x2191, 0x2192, 0x2193, 0x25a0, 0x25cb, // ￨￩￪￫￬￭￮
}

// foldWidthRune folds one rune of the Halfwidth and Fullwidth Forms block
// (but the half-width Hangul, kept as they are); other runes are returned
// unchanged.
func foldWidthRune(r rune) rune {
	switch {
	case r >= 0xff01 && r <= 0xff5e:
		return r - 0xff01 + '!'
	case r == 0xff5f:
		return 0x2985
	case r == 0xff60:
		return 0x2986
	case r == 0xff61:
		return 0x3002
	case r == 0xff62:
		return 0x300c
	case r == 0xff63:
		return 0x300d
	case r == 0xff64:
		return 0x3001
	case r >= 0xff65 && r <= 0xff9f:
		return halfKana[r-0xff65]
	case r >= 0xffe0 && r <= 0xffee:
		return fullSigns[r-0xffe0]
	}
	return r
}

// composeKana returns the voiced (or semi-voiced) form of a full-width
// katakana, 0 when it has none.
func composeKana(r rune, semi bool) rune {
	switch {
	case semi:
		if r >= 0x30cf && r <= 0x30db && (r-0x30cf)%3 == 0 {
			return r + 2 // ハ → パ
		}
	case r >= 0x30ab && r <= 0x30c2 && (r-0x30ab)%2 == 0, // カ…チ
		r == 0x30c4 || r == 0x30c6 || r == 0x30c8: // ツ テ ト
		return r + 1
	case r >= 0x30cf && r <= 0x30db && (r-0x30cf)%3 == 0:
		return r + 1 // ハ → バ
	case r == 0x30a6:
		return 0x30f4 // ウ → ヴ
	case r == 0x30ef || r == 0x30f2:
		return r + 8 // ワ → ヷ, ヲ → ヺ
	}
	return 0
}

// isCharWordRune reports whether punct keeps r: a letter, digit or mark.
func isCharWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return byteClass[r] != classSeparator
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r)
}
