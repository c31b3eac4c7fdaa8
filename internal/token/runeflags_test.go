package token

import (
	"testing"
	"unicode"
)

// The table answers as the unicode package does, for every rune (the
// planes above the BMP are computed, not tabled: a sample of them).
func TestRuneFlags(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0x10000 && r%7 != 0 {
			continue
		}
		f := runeFlags(r)
		l := unicode.ToLower(r)
		if lowerOf(r, f) != l ||
			(f&rfWord != 0) != isWordRune(l) ||
			(f&rfSingle != 0) != isSingleRuneToken(l) ||
			(f&rfCharWord != 0) != isCharWordRune(l) ||
			(f&rfSpace != 0) != isSpace(l) {
			t.Fatalf("U+%04X: flags %05b", r, f)
		}
	}
}
