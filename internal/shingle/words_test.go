package shingle

import (
	"slices"
	"testing"
)

func TestAppendWords(t *testing.T) {
	s := New(Options{Unit: Word, K: 3, Norm: DefaultNormalization(Word)})
	for _, c := range []struct {
		text   string
		tokens int
	}{{"", 0}, {"-- !", 0}, {"one", 1}, {"one two", 2}, {"one, two three", 3}, {"漢字 and ｆｕｌｌ width", 5}} {
		got, n := s.AppendWords(nil, []byte(c.text))
		want := New(Options{Unit: Word, K: 3, Norm: DefaultNormalization(Word)}).Append(nil, []byte(c.text))
		if n != c.tokens || !slices.Equal(got, want) {
			t.Errorf("%q: %d tokens, hashes %x; want %d, %x", c.text, n, got, c.tokens, want)
		}
	}
}
