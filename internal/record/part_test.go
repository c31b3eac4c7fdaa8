package record_test

import (
	"bytes"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

type partID struct {
	doc        []byte
	start, end int
}

func TestPartID(t *testing.T) {
	for _, c := range []struct {
		id         string
		doc        string
		start, end int
		bad        bool
	}{
		{id: "doc#0-5", doc: "doc", end: 5},
		{id: "http://x/a#frag#10-120", doc: "http://x/a#frag", start: 10, end: 120},
		{id: "a\\tb#3-4", doc: "a\\tb", start: 3, end: 4},
		{id: "##1-2", doc: "#", start: 1, end: 2},
		{id: "doc", bad: true},
		{id: "doc#5", bad: true},
		{id: "doc#5-5", bad: true},
		{id: "doc#6-5", bad: true},
		{id: "doc#05-6", bad: true},
		{id: "doc#+5-6", bad: true},
		{id: "doc#0-2147483648", bad: true},
		{id: "#0-1", bad: true},
		{id: "a\\qb#0-1", bad: true},
	} {
		doc, start, end, err := record.ParsePartID([]byte(c.id))
		if c.bad {
			if err == nil {
				t.Errorf("ParsePartID(%q) = %q %d %d, want an error", c.id, doc, start, end)
			}
			continue
		}
		if err != nil || string(doc) != c.doc || start != c.start || end != c.end {
			t.Errorf("ParsePartID(%q) = %q %d %d %v, want %q %d %d", c.id, doc, start, end, err, c.doc, c.start, c.end)
		}
		if got := record.AppendPartID(nil, doc, start, end); string(got) != c.id {
			t.Errorf("AppendPartID(%q, %d, %d) = %q, want %q", doc, start, end, got, c.id)
		}
	}
}

func FuzzPartID(f *testing.F) {
	for _, s := range []string{"doc#0-5", "a#b#10-20", "doc#05-6", "#0-1", "x#1-0", "a\\tb#3-4"} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (partID, error) {
		doc, start, end, err := record.ParsePartID(line)
		return partID{doc, start, end}, err
	}
	write := func(dst []byte, p partID) []byte {
		return append(record.AppendPartID(dst, p.doc, p.start, p.end), '\n')
	}
	f.Fuzz(func(t *testing.T, line []byte) { roundTrip(t, line, parse, write, same) })
}

func FuzzRemoved(f *testing.F) {
	for _, s := range []string{"doc\t0\t5\t5", "d\t3\t4\t2", "d\t3\t4", "a#b\t10\t20\t10"} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (record.Removed, error) {
		var r record.Removed
		err := record.ParseRemoved(&r, line)
		return r, err
	}
	f.Fuzz(func(t *testing.T, line []byte) { roundTrip(t, line, parse, record.AppendRemoved, same) })
}

func FuzzCutEscaped(f *testing.F) {
	f.Add([]byte(`a\tb\\c\qd\`), uint8(1), uint8(2), uint8(1), uint8(2))
	f.Add([]byte(`\qt`), uint8(1), uint8(1), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, field []byte, s1, l1, gap, l2 uint8) {
		text := record.Unescape(nil, field)
		a, b := int(s1), int(s1)+int(l1)
		c, d := b+int(gap), b+int(gap)+int(l2)
		cuts := [][2]int{{a, b}, {c, d}}
		if l2 == 0 {
			cuts = cuts[:1]
		}
		if l1 == 0 || cuts[len(cuts)-1][1] > len(text) {
			return
		}
		var want []byte
		prev := 0
		for _, c := range cuts {
			want = append(want, text[prev:c[0]]...)
			prev = c[1]
		}
		want = append(want, text[prev:]...)
		got := record.CutEscaped([]byte("x"), field, cuts)
		if got[0] != 'x' || string(record.Unescape(nil, got[1:])) != string(want) {
			t.Fatalf("%q cut %v = %q, stands for %q, want %q", field, cuts, got[1:], record.Unescape(nil, got[1:]), want)
		}
		if bytes.IndexByte(got, '\t') >= 0 || bytes.IndexByte(got, '\n') >= 0 {
			if !bytes.Contains(field, []byte{'\t'}) && !bytes.Contains(field, []byte{'\n'}) {
				t.Fatalf("%q cut %v = %q holds a raw TAB or LF", field, cuts, got)
			}
		}
	})
}

func TestCutEscaped(t *testing.T) {
	for _, c := range []struct {
		field string
		cuts  [][2]int
		want  string
	}{
		{`one\ttwo\nthree`, [][2]int{{0, 4}}, `two\nthree`},
		{`a\qb`, [][2]int{{3, 4}}, `a\q`},
		{`\qt`, [][2]int{{1, 2}}, `\\t`}, // \ then t would be a TAB
		{`x\\y`, [][2]int{{1, 2}}, `xy`},
	} {
		if got := record.CutEscaped(nil, []byte(c.field), c.cuts); string(got) != c.want {
			t.Errorf("CutEscaped(%q, %v) = %q, want %q", c.field, c.cuts, got, c.want)
		}
	}
}

func FuzzSpan(f *testing.F) {
	for _, s := range []string{"doc#0-5\t2\tdoc#0-5", "b#10-20\t3\ta#b#0-9", "d#0-5\t1\td#0-5", "d#0-5\t02\td#0-5", "d#0-5\t2", "d#0-5\t2\tx#3-2"} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (record.Span, error) {
		var s record.Span
		err := record.ParseSpan(&s, line)
		return s, err
	}
	f.Fuzz(func(t *testing.T, line []byte) { roundTrip(t, line, parse, record.AppendSpan, same) })
}
