package shingle

import (
	"slices"
	"testing"
)

var fuzzSeeds = []string{
	"",
	"Hello, World! Ünïcödé ÉCOLE İstanbul \u212a",
	"日本語のテキスト 한국어 abc日本def",
	"a\xffb\xe6\x97 c\u00a0d\u2003\u0085e",
	"the cat sat on the mat of the house",
	"cafe\u0301 ǅ ΣΟΦΙΑ ١٢٣ Ⅻ",
}

// FuzzTokenizer compares the Tokenizer and the char normaliser with the
// slow reference implementations of the specification.
func FuzzTokenizer(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		want := refTokens(string(text))
		if got := tokens(string(text)); !slices.Equal(got, want) {
			t.Fatalf("tokens(%q) = %q, reference %q", text, got, want)
		}
		hashes := tokenHashes(string(text))
		if len(hashes) != len(want) {
			t.Fatalf("AppendHashes on %q: %d tokens, reference %d", text, len(hashes), len(want))
		}
		for i, h := range hashes {
			if h != tokenHash([]byte(want[i])) {
				t.Fatalf("AppendHashes on %q: token %d (%q) hashed %x", text, i, want[i], h)
			}
		}
		if got, want := chars(string(text)), refChars(string(text)); !slices.Equal(got, want) {
			t.Fatalf("chars(%q) = %q, reference %q", text, string(got), string(want))
		}
	})
}

var english = English()

// FuzzShingler checks that both hash schemes give one hash per shingle of
// the reference, and the hashes the reference computes.
func FuzzShingler(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(i), uint64(i))
	}
	f.Fuzz(func(t *testing.T, text []byte, k uint8, seed uint64) {
		if len(text) > 1<<12 {
			return // the reference is quadratic in k·len
		}
		for _, unit := range []Unit{Char, Word, Stopword} {
			opt := Options{Unit: unit, K: 1 + int(k%12), Seed: seed, Stopwords: english}
			opt.Scheme = Tok64
			tok := New(opt).Append(nil, text)
			if want := refShingles(opt, string(text)); !slices.Equal(tok, want) {
				t.Fatalf("%s k=%d tok64 %q:\n got %x\nwant %x", unit, opt.K, text, tok, want)
			}
			opt.Scheme = XXH64
			xxh := New(opt).Append(nil, text)
			if len(xxh) != len(tok) {
				t.Fatalf("%s k=%d %q: %d shingles under xxh64, %d under tok64", unit, opt.K, text, len(xxh), len(tok))
			}
			if want := refShingles(opt, string(text)); !slices.Equal(xxh, want) {
				t.Fatalf("%s k=%d xxh64 %q:\n got %x\nwant %x", unit, opt.K, text, xxh, want)
			}
		}
	})
}
