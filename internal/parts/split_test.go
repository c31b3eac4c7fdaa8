package parts

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/token"
)

func TestParagraphs(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"\n\n  \n", nil},
		{"one line", []string{"one line"}},
		{"a\nb\n\nc\n", []string{"a\nb\n", "c\n"}},
		{"\n\na\n\n\n\nb", []string{"a\n", "b"}},
		{"a\r\nb\r\n\r\nc\r\n", []string{"a\r\nb\r\n", "c\r\n"}},
		{"a\n \t \nb\n", []string{"a\n", "b\n"}},
		{"  indented\n  more\n\nx", []string{"  indented\n  more\n", "x"}},
		{"κείμενο\n\u00a0\u3000\n漢字\n", []string{"κείμενο\n", "漢字\n"}},
		{"a\n\xff\nb", []string{"a\n\xff\nb"}},
		{"a\rb\n\nc", []string{"a\rb\n", "c"}},
	} {
		var got []string
		prev := 0
		for _, r := range Paragraphs(nil, []byte(c.text)) {
			if r.Start < prev || r.End <= r.Start || r.End > len(c.text) {
				t.Fatalf("%q: range %v after %d", c.text, r, prev)
			}
			prev = r.End
			got = append(got, c.text[r.Start:r.End])
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Paragraphs(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestWindows(t *testing.T) {
	text := []byte("one two, three four five six seven")
	spans := new(token.Tokenizer).AppendSpans(nil, text)
	for _, c := range []struct {
		n, stride int
		want      []string
	}{
		{3, 3, []string{"one two, three", "four five six", "seven"}},
		{3, 1, []string{"one two, three", "two, three four", "three four five", "four five six", "five six seven"}},
		{4, 2, []string{"one two, three four", "three four five six", "five six seven"}},
		{7, 7, []string{"one two, three four five six seven"}},
		{10, 3, []string{"one two, three four five six seven"}},
	} {
		rs, ns := Windows(nil, []int{}, spans, c.n, c.stride)
		var got []string
		for i, r := range rs {
			got = append(got, string(text[r.Start:r.End]))
			if want := len(new(token.Tokenizer).AppendSpans(nil, text[r.Start:r.End])); ns[i] != want {
				t.Errorf("n %d stride %d: window %d has %d tokens, counted %d", c.n, c.stride, i, want, ns[i])
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("n %d stride %d: %q, want %q", c.n, c.stride, got, c.want)
		}
	}
	if rs, _ := Windows(nil, nil, nil, 3, 1); len(rs) != 0 {
		t.Errorf("no tokens: windows %v", rs)
	}
	// Unicode: each Han and kana character is a token; ranges are at rune
	// boundaries.
	text = []byte("漢字テスト abc")
	spans = new(token.Tokenizer).AppendSpans(nil, text)
	rs, _ := Windows(nil, nil, spans, 2, 2)
	var got []string
	for _, r := range rs {
		got = append(got, string(text[r.Start:r.End]))
	}
	if want := []string{"漢字", "テス", "ト abc"}; !slices.Equal(got, want) {
		t.Errorf("Unicode windows %q, want %q", got, want)
	}
}

// checkEach checks that a Windower cuts text into the windows rs of ns
// tokens.
func checkEach(t *testing.T, w *Windower, text []byte, n, stride int, rs []Range, ns []int) {
	t.Helper()
	i := 0
	err := w.Each(text, n, stride, func(r Range, tokens int) error {
		if i >= len(rs) || r != rs[i] || tokens != ns[i] {
			t.Fatalf("%.40q n %d stride %d: Each's window %d is %v of %d tokens, Windows's %v", text, n, stride, i, r, tokens, rs[i:min(i+1, len(rs))])
		}
		i++
		return nil
	})
	if err != nil || i != len(rs) {
		t.Fatalf("%.40q n %d stride %d: Each gave %d windows (%v), Windows %d", text, n, stride, i, err, len(rs))
	}
}

// A Windower cuts the windows of Windows, however many are under way,
// reused from text to text, and stops at its function's error.
func TestWindowerEach(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "w%d, ", i%37)
	}
	long := []byte(b.String())
	var w Windower
	for _, text := range [][]byte{long, []byte("one two three"), nil, long} {
		spans := new(token.Tokenizer).AppendSpans(nil, text)
		for _, c := range []struct{ n, stride int }{{1, 1}, {10, 1}, {10, 3}, {3000, 1}, {3000, 7}, {4999, 4999}, {5000, 5000}, {5001, 2}} {
			rs, ns := Windows(nil, []int{}, spans, c.n, c.stride)
			checkEach(t, &w, text, c.n, c.stride, rs, ns)
		}
	}
	stop := errors.New("stop")
	calls := 0
	if err := w.Each(long, 10, 1, func(Range, int) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("Each after an error: %v, %d calls", err, calls)
	}
}

// checkRanges checks the splitter's invariants: ranges in bounds, in order,
// not empty, never white space only; paragraphs do not overlap and every
// byte left out is on a blank line; windows cover every token.
func checkRanges(t *testing.T, text []byte, n, stride int) {
	t.Helper()
	prev := 0
	covered := make([]bool, len(text))
	for _, r := range Paragraphs(nil, text) {
		if r.Start < prev || r.End <= r.Start || r.End > len(text) {
			t.Fatalf("%q: paragraph %v after %d", text, r, prev)
		}
		if IsBlank(text[r.Start:r.End]) {
			t.Fatalf("%q: paragraph %v is white space", text, r)
		}
		for i := r.Start; i < r.End; i++ {
			covered[i] = true
		}
		prev = r.End
	}
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && text[j] != '\n' {
			j++
		}
		if j < len(text) {
			j++
		}
		if !covered[i] && !IsBlank(text[i:j]) {
			t.Fatalf("%q: line %q is in no paragraph", text, text[i:j])
		}
		i = j
	}
	spans := new(token.Tokenizer).AppendSpans(nil, text)
	rs, ns := Windows(nil, []int{}, spans, n, stride)
	checkEach(t, new(Windower), text, n, stride, rs, ns)
	start, prevStart := 0, -1
	for i, r := range rs {
		if r.Start <= prevStart || r.End <= r.Start || r.End > len(text) || ns[i] < 1 || ns[i] > n {
			t.Fatalf("%q n %d stride %d: window %v (%d tokens) after start %d", text, n, stride, r, ns[i], prevStart)
		}
		if r.Start != spans[start].Start || r.End != spans[start+ns[i]-1].End {
			t.Fatalf("%q: window %v is not tokens %d to %d", text, r, start, start+ns[i])
		}
		prevStart = r.Start
		start += stride
	}
	if len(spans) > 0 && rs[len(rs)-1].End != spans[len(spans)-1].End {
		t.Fatalf("%q: the last window ends at %d, the last token at %d", text, rs[len(rs)-1].End, spans[len(spans)-1].End)
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"a\nb\n\nc", "\r\n\r\nx\r\n", "漢字\n\u00a0\nかな", "one two three four five"} {
		f.Add([]byte(s), uint8(3), uint8(2))
	}
	f.Fuzz(func(t *testing.T, text []byte, n, stride uint8) {
		n = max(1, n%16)
		stride = max(1, stride%(n+1))
		checkRanges(t, text, int(n), int(stride))
	})
}

func ExampleParagraphs() {
	text := []byte("Copyright 2009 The Go Authors.\n\npackage main\n")
	for _, r := range Paragraphs(nil, text) {
		fmt.Printf("%d-%d %q\n", r.Start, r.End, text[r.Start:r.End])
	}
	// Output:
	// 0-31 "Copyright 2009 The Go Authors.\n"
	// 32-45 "package main\n"
}
