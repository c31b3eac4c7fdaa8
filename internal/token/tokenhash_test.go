package token

import (
	"testing"

	"github.com/cespare/xxhash/v2"
)

// checkTokenHashes checks that the token hashes of text are the tokens of
// word shingles (Scan and AppendHashes over the text width-folded), and
// that each range of text folds and tokenizes to its token alone.
func checkTokenHashes(t *testing.T, text []byte) {
	t.Helper()
	var h TokenHasher
	got := h.Append(nil, text, true)
	folded := appendFoldWidth(nil, text)
	var scan Tokenizer
	scan.Reset(folded)
	var want []uint64
	var toks [][]byte
	for n := scan.Scan(); n > 0; n = scan.Scan() {
		want = scan.AppendHashes(want)
		for i := range n {
			toks = append(toks, append([]byte(nil), scan.Token(i)...))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d token hashes, want %d", text, len(got), len(want))
	}
	prev := 0
	for i, th := range got {
		if th.H1 != want[i] {
			t.Fatalf("%q: token %d: H1 %x, want %x", text, i, th.H1, want[i])
		}
		if h2 := xxhash.NewWithSeed(TokenHash2Seed); true {
			h2.Write(toks[i])
			if th.H2 != h2.Sum64() {
				t.Fatalf("%q: token %d: H2 is not XXH64 of %q", text, i, toks[i])
			}
		}
		if th.Start < prev || th.End <= th.Start || th.End > len(text) {
			t.Fatalf("%q: token %d is %d-%d after %d", text, i, th.Start, th.End, prev)
		}
		prev = th.End
		one := h.Append(nil, text[th.Start:th.End], true)
		if len(one) != 1 || one[0].H1 != th.H1 {
			t.Fatalf("%q: token %d, bytes %d-%d (%q), is not one token alone: %v", text, i, th.Start, th.End, text[th.Start:th.End], one)
		}
	}
}

func TestTokenHashes(t *testing.T) {
	for _, s := range []string{
		"", "a", "Hello, World!", "ＡＢＣ def", "ｶﾞｷﾞ and ｶ ﾞ", "Ａﾞ x", "日本語のテキスト", "naïve CAFÉ ΣΊΣΥΦΟΣ",
		"bad \xff\xfe utf8 \xef\xbc", "ｱｲｳｴｵ１２３", "x\xef\xbe\x9e", "ﾟﾟ ﾞ",
	} {
		checkTokenHashes(t, []byte(s))
	}
}

func FuzzTokenHashes(f *testing.F) {
	for _, s := range []string{"ＡＢＣ def", "ｶﾞｷﾞ", "Ａﾞ", "a\xef\xbe\x9f"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > 4096 {
			return
		}
		checkTokenHashes(t, text)
	})
}
