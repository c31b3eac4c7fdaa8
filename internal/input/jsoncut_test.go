package input

import (
	"bytes"
	"testing"
)

// checkCut cuts the text field of line at the decoded ranges cuts and,
// when the cut is done in place, checks that the line with it parses to the
// decoded text without the ranges, and that bytes outside the value are
// unchanged.
func checkCut(t *testing.T, line []byte, cuts [][2]int) (string, bool) {
	t.Helper()
	j := JSONFields{IDKey: "id", TextKey: "text"}
	_, text, err := j.Parse(line)
	if err != nil || !text.IsString {
		return "", false
	}
	decoded := bytes.Clone(text.Bytes)
	var want []byte
	prev := 0
	for _, c := range cuts {
		if c[0] < prev || c[1] <= c[0] || c[1] > len(decoded) {
			return "", false
		}
		want = append(want, decoded[prev:c[0]]...)
		prev = c[1]
	}
	want = append(want, decoded[prev:]...)
	out := append([]byte{}, line[:text.Start]...)
	out, ok := CutJSONString(out, line[text.Start:text.End], cuts)
	if !ok {
		return "", false
	}
	out = append(out, line[text.End:]...)
	_, got, err := j.Parse(out)
	if err != nil || !bytes.Equal(got.Bytes, want) {
		t.Fatalf("%q cut at %v: %q gives %q (%v), want %q", line, cuts, out, got.Bytes, err, want)
	}
	return string(out), true
}

func TestCutJSONString(t *testing.T) {
	for _, c := range []struct {
		line string
		cuts [][2]int
		want string
		ok   bool
	}{
		{`{"id":"a","text":"hello world"}`, [][2]int{{0, 6}}, `{"id":"a","text":"world"}`, true},
		{`{"text":"a\nb\u00e9c", "x":1}`, [][2]int{{1, 2}, {5, 6}}, `{"text":"ab\u00e9", "x":1}`, true},
		{`{"text":"\ud83d\ude00 smile"}`, [][2]int{{0, 5}}, `{"text":"smile"}`, true},
		{`{"text":"caf\u00e9"}`, [][2]int{{3, 4}}, "", false}, // half of é
		{`{"text":"x","text":"last one"}`, [][2]int{{0, 5}}, `{"text":"x","text":"one"}`, true},
	} {
		got, ok := checkCut(t, []byte(c.line), c.cuts)
		if ok != c.ok || got != c.want {
			t.Errorf("%s cut %v = %s %v, want %s %v", c.line, c.cuts, got, ok, c.want, c.ok)
		}
	}
}

func FuzzCutJSONString(f *testing.F) {
	f.Add([]byte(`{"text":"a\nb\u00e9c\ud83d\ude00\ud800x"}`), uint8(1), uint8(2), uint8(4), uint8(3))
	f.Add([]byte(`{"text":"\\\"\/"}`), uint8(0), uint8(1), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, line []byte, s1, l1, gap, l2 uint8) {
		a := int(s1)
		b := a + int(l1)
		c := b + int(gap)
		checkCut(t, line, [][2]int{{a, b}, {c, c + int(l2)}})
	})
}
