package testutil

import (
	"strings"
	"unicode"
)

// FuzzTexts are seeds of the fuzz targets of text: ASCII, scripts with
// and without case, single-rune tokens, invalid UTF-8, white space of
// several kinds, combining marks.
var FuzzTexts = []string{
	"",
	"Hello, World! Ünïcödé ÉCOLE İstanbul \u212a",
	"日本語のテキスト 한국어 abc日本def",
	"a\xffb\xe6\x97 c\u00a0d\u2003\u0085e",
	"the cat sat on the mat of the house",
	"cafe\u0301 ǅ ΣΟΦΙΑ ١٢٣ Ⅻ",
}

// RefTokens is the specification of word tokens, written the slow and
// obvious way: lower-case the text as strings.ToLower does (invalid UTF-8
// becomes U+FFFD), then cut it into maximal runs of letters and digits, each
// Han, Hiragana, Katakana and Hangul rune a token of its own, and any other
// rune a separator.
func RefTokens(text string) []string {
	var tokens []string
	var run []rune
	flush := func() {
		if len(run) > 0 {
			tokens = append(tokens, string(run))
			run = nil
		}
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
			unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r):
			flush()
			tokens = append(tokens, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			run = append(run, r)
		default:
			flush()
		}
	}
	flush()
	return tokens
}

// RefChars is the specification of the code points of char shingles:
// lower-cased like strings.ToLower, each run of white space one space.
func RefChars(text string) []rune {
	var out []rune
	inSpace := false
	for _, r := range strings.ToLower(text) {
		if unicode.IsSpace(r) {
			if !inSpace {
				out = append(out, ' ')
			}
			inSpace = true
			continue
		}
		inSpace = false
		out = append(out, r)
	}
	return out
}
