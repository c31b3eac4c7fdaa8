package record_test

import (
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

func TestCut(t *testing.T) {
	tests := []struct {
		line, field, rest string
		ok                bool
	}{
		{"a\tb", "a", "b", true},
		{"a\tb\tc", "a", "b\tc", true},
		{"\tb", "", "b", true},
		{"a\t", "a", "", true},
		{"abc", "abc", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		field, rest, ok := record.Cut([]byte(tt.line))
		if string(field) != tt.field || string(rest) != tt.rest || ok != tt.ok {
			t.Errorf("Cut(%q) = %q, %q, %v, want %q, %q, %v", tt.line, field, rest, ok, tt.field, tt.rest, tt.ok)
		}
	}
}

func TestSplitN(t *testing.T) {
	tests := []struct {
		line   string
		n      int
		fields []string // nil when the count is wrong
		count  int
	}{
		{"a\tb\tc", 3, []string{"a", "b", "c"}, 3},
		{"a\tb\t", 3, []string{"a", "b", ""}, 3},
		{"\t\t", 3, []string{"", "", ""}, 3},
		{"a", 1, []string{"a"}, 1},
		{"", 1, []string{""}, 1},
		{"a\tb", 2, []string{"a", "b"}, 2},
		// Hadoop Streaming adds a TAB to a record with no value: one
		// trailing empty field more is accepted and dropped.
		{"a\tb\t", 2, []string{"a", "b"}, 2},
		{"a\t", 1, []string{"a"}, 1},
		{"a\t\t", 2, []string{"a", ""}, 2},
		// Too few.
		{"a\tb", 3, nil, 2},
		{"a", 3, nil, 1},
		{"", 2, nil, 1},
		// Too many: the count says how many there are.
		{"a\tb\tc", 2, nil, 3},
		{"a\tb\tc\td", 2, nil, 4},
		{"a\tb\t\t", 2, nil, 4},
		{"a\tb\tc\t", 2, nil, 4},
		{"a\tb", 1, nil, 2},
	}
	for _, tt := range tests {
		fields, count := record.SplitN(nil, []byte(tt.line), tt.n)
		if count != tt.count {
			t.Errorf("SplitN(%q, %d) count = %d, want %d", tt.line, tt.n, count, tt.count)
			continue
		}
		if tt.fields == nil {
			if count == tt.n {
				t.Errorf("SplitN(%q, %d) accepted a wrong count", tt.line, tt.n)
			}
			continue
		}
		var got []string
		for _, f := range fields {
			got = append(got, string(f))
		}
		if !slices.Equal(got, tt.fields) {
			t.Errorf("SplitN(%q, %d) = %q, want %q", tt.line, tt.n, got, tt.fields)
		}
	}
}

func TestSplitNReusesDst(t *testing.T) {
	dst := make([][]byte, 0, 8)
	dst = append(dst, []byte("stale"))
	fields, n := record.SplitN(dst, []byte("x\ty"), 2)
	if n != 2 || len(fields) != 2 || string(fields[0]) != "x" || &fields[0] != &dst[:1][0] {
		t.Errorf("SplitN did not reuse dst from its start: %q, %d", fields, n)
	}
}

func TestTrimEOL(t *testing.T) {
	for in, want := range map[string]string{
		"a\n":     "a",
		"a\r\n":   "a",
		"a":       "a",
		"a\r":     "a\r", // a CR alone is not a line end
		"\n":      "",
		"\r\n":    "",
		"":        "",
		"a\n\n":   "a\n",
		"a\r\r\n": "a\r",
	} {
		if got := string(record.TrimEOL([]byte(in))); got != want {
			t.Errorf("TrimEOL(%q) = %q, want %q", in, got, want)
		}
	}
}
