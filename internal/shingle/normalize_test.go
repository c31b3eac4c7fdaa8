package shingle

import (
	"fmt"
	"testing"

	"github.com/neardup/neardup/internal/token"
)

func TestNormalizationsMeet(t *testing.T) {
	// The variants of a text that width and punct fold give the same
	// shingles; without them they do not.
	variants := []string{
		"子曰：「学而时习之，不亦说乎？」 Debian 12",
		"子曰:\"学而时习之, 不亦说乎?\"Ｄｅｂｉａｎ １２",
		"子曰  学而时习之  不亦说乎 DEBIAN 12",
	}
	for _, o := range []Options{
		{Unit: Char, K: 5, Norm: token.Normalization{Width: true, Punct: true}},
		{Unit: Char, K: 5, Scheme: XXH64, Norm: token.Normalization{Width: true, Punct: true}},
		{Unit: Word, K: 3, Norm: token.Normalization{Width: true}},
		{Unit: Word, K: 3, Scheme: XXH64, Norm: token.Normalization{Width: true}},
	} {
		s := New(o)
		want := fmtHashes(s.Append(nil, []byte(variants[0])))
		for _, v := range variants[1:] {
			if got := fmtHashes(s.Append(nil, []byte(v))); got != want {
				t.Errorf("%+v: %q and %q differ:\n%s\n%s", o, variants[0], v, want, got)
			}
		}
	}
	s := New(Options{Unit: Char, K: 5})
	if fmtHashes(s.Append(nil, []byte(variants[0]))) == fmtHashes(s.Append(nil, []byte(variants[1]))) {
		t.Error("without normalization the variants have the same shingles")
	}
}

func fmtHashes(h []uint64) string { return fmt.Sprintf("%016x", h) }

func TestDefaultNormalization(t *testing.T) {
	if DefaultNormalization(Char).String() != "width,punct" || DefaultNormalization(Word).String() != "width" {
		t.Error("defaults")
	}
}
