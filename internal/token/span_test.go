package token

import (
	"bytes"
	"testing"
)

// checkSpans checks that the spans of text are the tokens of Scan and
// Token, in order, each a range of text that tokenizes to itself alone.
func checkSpans(t *testing.T, text []byte) {
	t.Helper()
	var tk, one Tokenizer
	spans := tk.AppendSpans(nil, text)
	var toks [][]byte
	var scan Tokenizer
	scan.Reset(text)
	for n := scan.Scan(); n > 0; n = scan.Scan() {
		for i := range n {
			toks = append(toks, bytes.Clone(scan.Token(i)))
		}
	}
	if len(spans) != len(toks) {
		t.Fatalf("%q: %d spans, %d tokens", text, len(spans), len(toks))
	}
	prev := 0
	for i, sp := range spans {
		if sp.Start < prev || sp.End <= sp.Start || sp.End > len(text) {
			t.Fatalf("%q: span %d is %d-%d after %d", text, i, sp.Start, sp.End, prev)
		}
		prev = sp.End
		one.Reset(text[sp.Start:sp.End])
		if one.Scan() != 1 || !bytes.Equal(one.Token(0), toks[i]) {
			t.Fatalf("%q: span %d, %q, is not the token %q", text, i, text[sp.Start:sp.End], toks[i])
		}
	}
}

func TestAppendSpans(t *testing.T) {
	for _, s := range []string{
		"", "  ", "Hello, World!", "naïve café Ünïcode", "漢字かなカナ한글 mixed漢", "a\xffb \xc3", "x—y", "ＡＢＣ １２３",
		"tab\tand\r\nCRLF", "İstanbul ΣΊΣΥΦΟΣ",
	} {
		checkSpans(t, []byte(s))
	}
	spans := new(Tokenizer).AppendSpans(nil, []byte("Go is fun."))
	if want := []Span{{0, 2}, {3, 5}, {6, 9}}; len(spans) != 3 || spans[0] != want[0] || spans[1] != want[1] || spans[2] != want[2] {
		t.Errorf("spans %v, want %v", spans, want)
	}
}

func FuzzAppendSpans(f *testing.F) {
	for _, s := range []string{"Hello, World!", "漢字 kana カナ", "a\xffb", "Straße ǅ"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) { checkSpans(t, text) })
}
