package token

import (
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
)

// FuzzTokenizer compares the Tokenizer and the char normaliser with the
// slow reference implementations of the specification.
func FuzzTokenizer(f *testing.F) {
	for _, s := range testutil.FuzzTexts {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		want := testutil.RefTokens(string(text))
		if got := tokens(string(text)); !slices.Equal(got, want) {
			t.Fatalf("tokens(%q) = %q, reference %q", text, got, want)
		}
		hashes := tokenHashes(string(text))
		if len(hashes) != len(want) {
			t.Fatalf("AppendHashes on %q: %d tokens, reference %d", text, len(hashes), len(want))
		}
		for i, h := range hashes {
			if h != Hash([]byte(want[i])) {
				t.Fatalf("AppendHashes on %q: token %d (%q) hashed %x", text, i, want[i], h)
			}
		}
		for _, punct := range []bool{false, true} {
			want := nextUnits(text, punct)
			for _, max := range []int{1, 2, 3, MaxSpans} {
				if got := batchUnits(text, punct, max); !slices.Equal(got, want) {
					t.Fatalf("units of %q (punct %v, %d a batch):\n got %x\nwant %x (next)", text, punct, max, got, want)
				}
			}
		}
		if got, want := chars(string(text)), testutil.RefChars(string(text)); !slices.Equal(got, want) {
			t.Fatalf("chars(%q) = %q, reference %q", text, string(got), string(want))
		}
	})
}

// nextUnits hashes the code points Next returns, one by one.
func nextUnits(text []byte, punct bool) []uint64 {
	n := Chars{Punct: punct}
	n.Reset(text)
	var units []uint64
	for {
		r, ok := n.Next()
		if !ok {
			return units
		}
		units = append(units, RuneHash(r))
	}
}

// batchUnits hashes them with Units, max at a time.
func batchUnits(text []byte, punct bool, max int) []uint64 {
	n := Chars{Punct: punct}
	n.Reset(text)
	var units []uint64
	for {
		batch := n.Units(nil, max)
		if len(batch) == 0 {
			return units
		}
		if len(batch) > max+1 {
			panic("Units went past max+1")
		}
		units = append(units, batch...)
	}
}
