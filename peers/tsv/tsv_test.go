package tsv

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestUnescape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`plain`, "plain"},
		{`a\tb\nc\rd\\e`, "a\tb\nc\rd\\e"},
		{`\\t`, `\t`},
		{`a\qb`, `a\qb`},
		{`ends\`, `ends\`},
		{`\\\n`, "\\\n"},
		{``, ``},
	} {
		if got := string(Unescape(nil, []byte(c.in))); got != c.want {
			t.Errorf("Unescape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestReaderTinyCorpus(t *testing.T) {
	corpus := "a\tone\\ttwo\\nthree\n" +
		"b\\tc\tback\\\\slash\n" +
		"d\t\n" +
		"e\tno final newline"
	r := NewReader(strings.NewReader(corpus), "tiny.tsv")
	want := []struct{ id, text string }{
		{"a", "one\ttwo\nthree"},
		{`b\tc`, `back\slash`}, // the id stays escaped
		{"d", ""},
		{"e", "no final newline"},
	}
	for _, w := range want {
		id, text, err := r.Next()
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if id != w.id || string(text) != w.text {
			t.Errorf("Next = %q, %q, want %q, %q", id, text, w.id, w.text)
		}
	}
	if _, _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last document: %v, want io.EOF", err)
	}
}

func TestReaderBadLine(t *testing.T) {
	for _, c := range []struct{ corpus, want string }{
		{"a\tx\nno tab here\n", "tiny.tsv:2: a document is id TAB text: no TAB"},
		{"\tx\n", "tiny.tsv:1: empty id"},
	} {
		r := NewReader(strings.NewReader(c.corpus), "tiny.tsv")
		var err error
		for err == nil {
			_, _, err = r.Next()
		}
		if err.Error() != c.want {
			t.Errorf("%q: error %q, want %q", c.corpus, err, c.want)
		}
	}
}

func TestWritePairs(t *testing.T) {
	ps := []Pair{NewPair("c", "a"), NewPair("b", "c"), NewPair("a", "c"), NewPair("a", "b"), NewPair("a\\tz", "a")}
	var out bytes.Buffer
	if err := WritePairs(&out, "#peer header", ps); err != nil {
		t.Fatal(err)
	}
	want := "#peer header\n" +
		"a\ta\\tz\n" +
		"a\tb\n" +
		"a\tc\n" +
		"b\tc\n"
	if out.String() != want {
		t.Errorf("WritePairs wrote\n%s\nwant\n%s", out.String(), want)
	}
}
