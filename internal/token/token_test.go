package token

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/testutil"
)

func tokens(text string) []string {
	var t Tokenizer
	var out []string
	t.Reset([]byte(text))
	for n := t.Scan(); n > 0; n = t.Scan() {
		for i := range n {
			out = append(out, string(t.Token(i)))
		}
	}
	return out
}

func tokenHashes(text string) []uint64 {
	var t Tokenizer
	var out []uint64
	t.Reset([]byte(text))
	for t.Scan() > 0 {
		out = t.AppendHashes(out)
	}
	return out
}

func chars(text string) []rune {
	var n Chars
	n.Reset([]byte(text))
	var out []rune
	for {
		r, ok := n.Next()
		if !ok {
			return out
		}
		out = append(out, r)
	}
}

func TestTokenizer(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{" ,.;!? \t\n", nil},
		{"Hello, World!", []string{"hello", "world"}},
		{"  leading and trailing  ", []string{"leading", "and", "trailing"}},
		{"don't stop", []string{"don", "t", "stop"}},
		{"snake_case kebab-case", []string{"snake", "case", "kebab", "case"}},
		{"x1 2y 3.14 1,000", []string{"x1", "2y", "3", "14", "1", "000"}},
		{"ÉCOLE Été ÇA", []string{"école", "été", "ça"}},
		{"ΣΟΦΙΑ", []string{"σοφια"}}, // unicode.ToLower has no final sigma
		{"Straße STRASSE", []string{"straße", "strasse"}},
		{"İstanbul", []string{"istanbul"}}, // U+0130 lower-cases to ASCII i
		{"\u212a\u212b", []string{"kå"}},   // Kelvin and Ångström signs
		{"ǅemal", []string{"ǆemal"}},       // title case
		{"١٢٣ ۴۵", []string{"١٢٣", "۴۵"}},  // Arabic-Indic digits are digits
		{"Ⅻ ½ ²", nil},                         // numerals that are not decimal digits are not
		{"cafe\u0301s", []string{"cafe", "s"}}, // a combining mark is not a letter
		{"naïve", []string{"naïve"}},           // precomposed
		{"日本語のテキスト", []string{"日", "本", "語", "の", "テ", "キ", "ス", "ト"}},
		{"한국어 문장", []string{"한", "국", "어", "문", "장"}},
		{"abc日本def", []string{"abc", "日", "本", "def"}},
		{"ABC日DEF", []string{"abc", "日", "def"}},
		{"Go言語2", []string{"go", "言", "語", "2"}},
		{"ｶﾀｶﾅ", []string{"ｶ", "ﾀ", "ｶ", "ﾅ"}}, // half-width Katakana
		{"ＡＢＣ", []string{"ａｂｃ"}},               // full-width Latin is a word
		{"a\xffb", []string{"a", "b"}},         // invalid UTF-8 separates
		{"A\xe6\x97B", []string{"a", "b"}},     // a truncated sequence too
		{"\xffÄ\xff", []string{"ä"}},
		{"a\u00a0b\u2003c\u200bd", []string{"a", "b", "c", "d"}},
		{"emoji😀here", []string{"emoji", "here"}},
		{"tab\tnew\nline\rcr", []string{"tab", "new", "line", "cr"}},
	}
	for _, tt := range tests {
		got := tokens(tt.text)
		if !slices.Equal(got, tt.want) {
			t.Errorf("tokens(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if ref := testutil.RefTokens(tt.text); !slices.Equal(got, ref) {
			t.Errorf("tokens(%q) = %q, but the reference gives %q", tt.text, got, ref)
		}
	}
}

// The fast path works on 64-byte blocks: tokens that cross blocks, runs
// that end exactly at a block's end or the text's, and every kind of byte
// at every offset must give the reference's tokens; their hashes are
// tried with the vector code (eight short tokens at a time) and without.
func TestTokenizerBlocks(t *testing.T) { testutil.Vector(t, &hasHashVector, testTokenizerBlocks) }

func testTokenizerBlocks(t *testing.T) {
	pieces := []string{
		"a", "word", "UPPER", "MixedCase", "x9", "0123456789",
		" ", "  ", ",", "\n", "\t", "-", "_",
		"é", "É", "Straße", "日", "本語", "한", "\u00a0", "\u212a",
		"\xff", "\x80", "\xc0", "\xe6\x97", "\xf5", "😀",
		strings.Repeat("long", 20), strings.Repeat("Ab", 40), strings.Repeat("日", 30),
	}
	r := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 3000; trial++ {
		var b strings.Builder
		for b.Len() < 1+r.IntN(400) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		if got, want := tokens(text), testutil.RefTokens(text); !slices.Equal(got, want) {
			t.Fatalf("tokens(%q) = %q, reference %q", text, got, want)
		}
		if got, want := tokenHashes(text), testutil.RefTokens(text); len(got) != len(want) {
			t.Fatalf("AppendHashes on %q: %d tokens, reference %d", text, len(got), len(want))
		} else {
			for i := range got {
				if got[i] != Hash([]byte(want[i])) {
					t.Fatalf("AppendHashes on %q: token %d (%q) hashed %x, want %x", text, i, want[i], got[i], Hash([]byte(want[i])))
				}
			}
		}
	}
	// Lengths around the block size, ending in a token and in a separator.
	for n := 120; n <= 200; n++ {
		for _, text := range []string{strings.Repeat("a", n), strings.Repeat("aB c", n)[:n], strings.Repeat("é", n)} {
			if got, want := tokens(text), testutil.RefTokens(text); !slices.Equal(got, want) {
				t.Fatalf("tokens(%q) = %q, reference %q", text, got, want)
			}
		}
	}
}

// Reset starts over, and a token returned from the scratch buffer stays
// right until the next call.
// Reset starts over; Scan finds at most MaxSpans tokens at a time, and
// none at the end; a token returned from the scratch buffer stays right
// until the next call.
func TestTokenizerScan(t *testing.T) {
	var tok Tokenizer
	tok.Reset([]byte("ONE two é"))
	if n := tok.Scan(); n != 3 || string(tok.Token(0)) != "one" {
		t.Fatalf("first Scan: %d tokens, the first %q", n, tok.Token(0))
	}
	tok.Reset([]byte("Three"))
	if n := tok.Scan(); n != 1 || string(tok.Token(0)) != "three" {
		t.Errorf("after Reset: %d tokens, the first %q", n, tok.Token(0))
	}
	if h := tok.AppendHashes(nil); len(h) != 1 || h[0] != Hash([]byte("three")) {
		t.Errorf("AppendHashes after Reset: %x", h)
	}
	if n := tok.Scan(); n != 0 {
		t.Errorf("Scan at the end: %d tokens", n)
	}
	text := strings.Repeat("a Ü ", 2*MaxSpans+7)
	tok.Reset([]byte(text))
	var got []int
	for n := tok.Scan(); n > 0; n = tok.Scan() {
		got = append(got, n)
	}
	if want := []int{MaxSpans, MaxSpans, MaxSpans, MaxSpans, 14}; !slices.Equal(got, want) {
		t.Errorf("Scans of %d tokens found %v", 2*(2*MaxSpans+7), got)
	}
}

func TestCharNormalizer(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"", ""},
		{"AbC", "abc"},
		{"a  b\t\n c", "a b c"},
		{"  lead", " lead"}, // not trimmed
		{"trail \r\n", "trail "},
		{"x\u00a0\u2003\u3000y", "x y"}, // non-ASCII white space
		{"x\u0085y", "x y"},             // NEL is white space
		{"x\u200by", "x\u200by"},        // a zero-width space is not
		{"日本 語", "日本 語"},
		{"ÉTÉ", "été"},
		{"\u212a", "k"},
		{"a\xffb", "a\ufffdb"},       // invalid UTF-8 is a code point U+FFFD
		{"\xff\xfe", "\ufffd\ufffd"}, // one for each byte
		{"\xe6\x97", "\ufffd\ufffd"},
		{"Ünïcödé", "ünïcödé"},
	}
	for _, tt := range tests {
		got := string(chars(tt.text))
		if got != tt.want {
			t.Errorf("chars(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if ref := string(testutil.RefChars(tt.text)); got != ref {
			t.Errorf("chars(%q) = %q, but the reference gives %q", tt.text, got, ref)
		}
	}
}

// decodeRune must be utf8.DecodeRune for every lead byte of 0x80 and
// above, and every one or two bytes after it (valid, overlong, surrogate,
// truncated), and for four-byte runes.
func TestDecodeRuneIsDecodeRune(t *testing.T) {
	b := make([]byte, 4)
	for c0 := 0x80; c0 < 0x100; c0++ {
		for c1 := 0; c1 < 0x100; c1++ {
			for c2 := 0; c2 < 0x100; c2++ {
				b[0], b[1], b[2], b[3] = byte(c0), byte(c1), byte(c2), 0x80
				for n := 1; n <= 4; n++ {
					r, size := decodeRune(b[:n])
					wr, wsize := utf8.DecodeRune(b[:n])
					if r != wr || size != wsize {
						t.Fatalf("decodeRune(% x) = %U, %d; utf8.DecodeRune gives %U, %d", b[:n], r, size, wr, wsize)
					}
				}
			}
		}
	}
}

// The vector classification, where the CPU has one, must give the masks of
// the SWAR one: every byte value at every position of a block, and random
// blocks.
func TestClassify64(t *testing.T) {
	block := make([]byte, 64)
	if _, _, ok := classify64(block); !ok {
		t.Skip("no vector classification on this CPU")
	}
	check := func() {
		t.Helper()
		alnum, high, _ := classify64(block)
		wantAlnum, wantHigh := classify64SWAR(block)
		if alnum != wantAlnum || high != wantHigh {
			t.Fatalf("classify64(% x) = %#x, %#x; SWAR gives %#x, %#x", block, alnum, high, wantAlnum, wantHigh)
		}
	}
	for pos := range 64 {
		for c := range 256 {
			clear(block)
			block[pos] = byte(c)
			block[63-pos] = byte(255 - c)
			check()
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		for i := range block {
			block[i] = byte(r.Uint32())
		}
		check()
	}
}

// TestScanASCIIBlocks: the tokens of blocks all ASCII, found a block at a
// time, are the reference's: texts of many Scans' worth of tokens, with
// tokens that cross blocks (long ones too), that end at a block's last byte
// or at the text's, and a rune outside ASCII now and then.
func TestScanASCIIBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	words := []string{"a", "Go", "x1", "func", "interface", "MixedCase"}
	for trial := range 100 {
		var b strings.Builder
		size := r.IntN(24 * MaxSpans)
		for b.Len() < size {
			switch r.IntN(40) {
			case 0:
				b.WriteString("Ü")
			case 1:
				b.WriteString("日")
			case 2:
				b.WriteString(strings.Repeat("long", 40))
			default:
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteString(" .\n\t--"[r.IntN(5):][:1+r.IntN(2)])
		}
		text := b.String()
		if trial%2 == 0 {
			text = strings.TrimRight(text, " .\n\t-") // a token at the text's end
		}
		if got, want := tokens(text), testutil.RefTokens(text); !slices.Equal(got, want) {
			t.Fatalf("trial %d: %d tokens, reference %d", trial, len(got), len(want))
		}
	}
}
