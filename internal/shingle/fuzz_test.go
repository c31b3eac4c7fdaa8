package shingle

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
	"github.com/neardup/neardup/internal/token"
)

var english = English()

// FuzzShingler checks that both hash schemes give one hash per shingle of
// the reference, and the hashes the reference computes.
func FuzzShingler(f *testing.F) {
	for i, s := range testutil.FuzzTexts {
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
			var streamed []uint64
			New(opt).Stream(nil, text, func(p []uint64) { streamed = append(streamed, p...) })
			if !slices.Equal(streamed, tok) {
				t.Fatalf("%s k=%d %q: Stream gave\n %x\nAppend %x", unit, opt.K, text, streamed, tok)
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

// FuzzStopwords reads any bytes as a stop-word file: it is refused, or every
// word it yields is one lower-cased token that the tokenizer gives back as
// it is, and the words written again one a line (sorted, without the
// comments) make the same list under the same name.
func FuzzStopwords(f *testing.F) {
	f.Add([]byte(englishStopwords))
	f.Add([]byte("# a comment\nThe a AN # trailing comment\n\n  der die das\n"))
	f.Add([]byte("İstanbul ÉCOLE straße\u00a0x"))
	f.Add([]byte("don't co-op\n"))
	f.Add([]byte("# only comments\n"))
	f.Add([]byte("a\xffb\r\nc"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadStopwords(bytes.NewReader(data))
		if err != nil {
			return
		}
		words := make([]string, 0, s.Len())
		var tok token.Tokenizer
		for w := range s.set {
			words = append(words, w)
			tok.Reset([]byte(w))
			if n := tok.Scan(); n != 1 || string(tok.Token(0)) != w {
				t.Fatalf("stop word %q is not one token that stays as it is (%d tokens)", w, n)
			}
			if !s.Contains([]byte(w)) {
				t.Fatalf("Contains(%q) = false", w)
			}
		}
		slices.Sort(words)
		again, err := ReadStopwords(strings.NewReader(strings.Join(words, "\n")))
		if err != nil {
			t.Fatalf("the words %q read again: %v", words, err)
		}
		if again.Name() != s.Name() || again.Len() != s.Len() {
			t.Fatalf("read again: %s (%d words), want %s (%d)", again.Name(), again.Len(), s.Name(), s.Len())
		}
	})
}
