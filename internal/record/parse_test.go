package record_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

const (
	h1 = "0000000000000001"
	h2 = "00000000000000ff"
	h3 = "ffffffffffffffff"
)

func TestParseShingles(t *testing.T) {
	tests := []struct {
		field  string
		hashes []uint64
		counts []uint32
	}{
		{"", nil, nil},
		{h1, []uint64{1}, []uint32{1}},
		{h1 + " " + h2 + " " + h3, []uint64{1, 0xff, math.MaxUint64}, []uint32{1, 1, 1}},
		{h1 + ":3 " + h2 + " " + h3 + ":4294967295", []uint64{1, 0xff, math.MaxUint64}, []uint32{3, 1, math.MaxUint32}},
		{"00000000000000FF", []uint64{0xff}, []uint32{1}},
		{h1 + ":007", []uint64{1}, []uint32{7}},
	}
	for _, tt := range tests {
		hashes, counts, err := record.ParseShingles(nil, []uint32{}, []byte(tt.field))
		if err != nil {
			t.Errorf("ParseShingles(%q): %v", tt.field, err)
			continue
		}
		if !slices.Equal(hashes, tt.hashes) || !slices.Equal(counts, tt.counts) {
			t.Errorf("ParseShingles(%q) = %x, %v, want %x, %v", tt.field, hashes, counts, tt.hashes, tt.counts)
		}
		// Without a counts slice, counts are checked but not kept.
		hashes, counts, err = record.ParseShingles([]uint64{42}, nil, []byte(tt.field))
		if err != nil || counts != nil || !slices.Equal(hashes, append([]uint64{42}, tt.hashes...)) {
			t.Errorf("ParseShingles(%q) without counts = %x, %v, %v", tt.field, hashes, counts, err)
		}
	}
}

func TestParseShinglesErrors(t *testing.T) {
	tests := []struct {
		field, want string
	}{
		{"123", `hash 1: want 16 hex digits, found "123"`},
		{h1 + " 12", `hash 2: want 16 hex digits, found "12"`},
		{"000000000000000g", `hash 1: want 16 hex digits, found "000000000000000g"`},
		{h1 + "0", `hash 1: want one space between hashes, found "0"`},
		{h1 + "  " + h2, `hash 2: want 16 hex digits, found " 00000000000000ff"`},
		{h1 + " ", `hash 1: want one space between hashes, found " "`},
		{" " + h1, `hash 1: want 16 hex digits, found " 0000000000000001"`},
		{h1 + "\t" + h2, `hash 1: want one space between hashes, found "\t00000000000000ff"`},
		{h2 + " " + h1, "hash 2 (0000000000000001) is not above the one before it: shingle hashes are distinct and ascending"},
		{h1 + " " + h1, "hash 2 (0000000000000001) is not above the one before it: shingle hashes are distinct and ascending"},
		{h1 + ":0", `hash 1: bad count "0"`},
		{h1 + ":", `hash 1: bad count ""`},
		{h1 + ":x", `hash 1: bad count "x"`},
		{h1 + ":-1", `hash 1: bad count "-1"`},
		{h1 + ":4294967296", `hash 1: bad count "4294967296"`},
		{h1 + " " + h2 + ":1:2", `hash 2: bad count "1:2"`},
		{strings.Repeat("z", 50), `hash 1: want 16 hex digits, found "` + strings.Repeat("z", 40) + `…"`},
	}
	for _, tt := range tests {
		_, _, err := record.ParseShingles(nil, []uint32{}, []byte(tt.field))
		if err == nil {
			t.Errorf("ParseShingles(%q) accepted it", tt.field)
			continue
		}
		if _, ok := err.(*record.LineError); !ok {
			t.Errorf("ParseShingles(%q) error is %T, want *record.LineError", tt.field, err)
		}
		if err.Error() != tt.want {
			t.Errorf("ParseShingles(%q) error\n got %s\nwant %s", tt.field, err, tt.want)
		}
	}
}

func TestHexList(t *testing.T) {
	values := []uint64{5, 1, math.MaxUint64, 1}
	field := record.AppendHexList(nil, values)
	if want := "0000000000000005 0000000000000001 ffffffffffffffff 0000000000000001"; string(field) != want {
		t.Errorf("AppendHexList = %q, want %q", field, want)
	}
	got, err := record.ParseHexList(nil, field)
	if err != nil || !slices.Equal(got, values) {
		t.Errorf("ParseHexList(%q) = %x, %v", field, got, err)
	}
	if got, err := record.ParseHexList(nil, nil); err != nil || len(got) != 0 {
		t.Errorf("ParseHexList of an empty field = %x, %v", got, err)
	}
	for field, want := range map[string]string{
		h1 + " ":       `value 1: want one space between values, found " "`,
		h1 + "  " + h1: `value 2: want 16 hex digits, found " 0000000000000001"`,
		h1 + "x":       `value 1: want one space between values, found "x"`,
		"abc":          `value 1: want 16 hex digits, found "abc"`,
	} {
		if _, err := record.ParseHexList(nil, []byte(field)); err == nil || err.Error() != want {
			t.Errorf("ParseHexList(%q) error = %v, want %s", field, err, want)
		}
	}
}

func TestSketchRoundTrip(t *testing.T) {
	tests := []struct {
		id     string
		size   uint64
		values []uint64
	}{
		{"doc1", 120, []uint64{3, 1, 2, math.MaxUint64}},
		{`a\tb`, 0, []uint64{math.MaxUint64, math.MaxUint64}},
		{"x", 7, nil},
		{"#notaheader", 1, []uint64{0}},
	}
	var s record.Sketch
	for _, tt := range tests {
		line := record.AppendSketch([]byte("junk"), []byte(tt.id), tt.size, tt.values)[4:]
		if line[len(line)-1] != '\n' || strings.Count(string(line), "\t") != 2 {
			t.Errorf("AppendSketch(%q) = %q: want 3 fields and LF", tt.id, line)
		}
		if err := record.ParseSketch(&s, line[:len(line)-1]); err != nil {
			t.Errorf("ParseSketch(%q): %v", line, err)
			continue
		}
		if string(s.ID) != tt.id || s.Size != tt.size || !slices.Equal(s.Values, tt.values) {
			t.Errorf("ParseSketch(%q) = %q %d %x", line, s.ID, s.Size, s.Values)
		}
	}
	want := "doc\t12\t000000000000000a 00000000000000ff\n"
	if got := record.AppendSketch(nil, []byte("doc"), 12, []uint64{10, 255}); string(got) != want {
		t.Errorf("AppendSketch = %q, want %q", got, want)
	}
}

func TestParseSketchErrors(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{"doc", "want id TAB size TAB values, found no TAB"},
		{"doc\t12", "want id TAB size TAB values, found 2 fields"},
		{"doc\t12\t" + h1 + "\tx", "want id TAB size TAB values, found more than 3 fields"},
		{"doc\tx\t" + h1, `size "x" is not a number`},
		{"doc\t-1\t" + h1, `size "-1" is not a number`},
		{"doc\t\t" + h1, `size "" is not a number`},
		{"doc\t1\t" + h1 + " 12", `value 2: want 16 hex digits, found "12"`},
	}
	var s record.Sketch
	for _, tt := range tests {
		err := record.ParseSketch(&s, []byte(tt.line))
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseSketch(%q) error = %v, want %s", tt.line, err, tt.want)
		}
	}
}

func TestParseSketchReusesValues(t *testing.T) {
	s := record.Sketch{Values: make([]uint64, 0, 8)}
	p := &s.Values[:1][0]
	if err := record.ParseSketch(&s, []byte("d\t2\t"+h1+" "+h2)); err != nil {
		t.Fatal(err)
	}
	if &s.Values[0] != p {
		t.Errorf("ParseSketch did not reuse Values")
	}
}

// Without counts ParseShingles parses all but the last hash 16 bytes at a
// time (hexRun, where the CPU has SSSE3); with counts, a hash at a time.
// Long fields with one fault at every kind of place must give the same
// hashes and the same error.
func TestParseShinglesFastPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	faults := []func(b []byte, hs []uint64) []byte{
		func(b []byte, _ []uint64) []byte { return b }, // none
		func(b []byte, _ []uint64) []byte { // any byte
			b[r.IntN(len(b))] = byte(r.Uint32())
			return b
		},
		func(b []byte, _ []uint64) []byte { // a digit that is no hex digit
			i := r.IntN(len(b))
			if b[i] != ' ' {
				b[i] = "gG/:@`\x00\x80\xff"[r.IntN(9)]
			}
			return b
		},
		func(b []byte, _ []uint64) []byte { // upper case
			return bytes.ToUpper(b)
		},
		func(b []byte, _ []uint64) []byte { return append(b, ' ') },      // trailing space
		func(b []byte, _ []uint64) []byte { return append(b, " 00"...) }, // short last hash
		func(b []byte, _ []uint64) []byte { // two spaces
			i := 17*r.IntN(len(b)/17+1) - 1
			if i < 0 {
				return b
			}
			return slices.Insert(b, i, ' ')
		},
		func(b []byte, hs []uint64) []byte { // out of order
			if len(hs) < 2 {
				return b
			}
			k := 1 + r.IntN(len(hs)-1)
			hs[k], hs[k-1] = hs[k-1], hs[k]
			return record.AppendHexList(b[:0], hs)
		},
		func(b []byte, hs []uint64) []byte { // a repeat
			if len(hs) < 2 {
				return b
			}
			k := 1 + r.IntN(len(hs)-1)
			hs[k] = hs[k-1]
			return record.AppendHexList(b[:0], hs)
		},
	}
	for trial := 0; trial < 5000; trial++ {
		hs := make([]uint64, 1+r.IntN(40))
		for i := range hs {
			hs[i] = r.Uint64() >> (r.IntN(4) * 16) // some with leading zeros
		}
		slices.Sort(hs)
		hs = slices.Compact(hs)
		field := faults[trial%len(faults)](record.AppendHexList(nil, hs), hs)
		want, _, werr := record.ParseShingles([]uint64{7}, []uint32{}, field)
		got, _, gerr := record.ParseShingles([]uint64{7}, nil, field)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || werr == nil && !slices.Equal(got, want) {
			t.Fatalf("record.ParseShingles(%q): fast %x, %v; byte at a time %x, %v", field, got, gerr, want, werr)
		}
	}
}
