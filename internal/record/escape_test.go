package record_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		raw, escaped string
	}{
		{"", ""},
		{"plain", "plain"},
		{"a\tb", `a\tb`},
		{"line1\nline2\r\n", `line1\nline2\r\n`},
		{`back\slash`, `back\\slash`},
		{"\\\t\n\r", `\\\t\n\r`},
		{`\n`, `\\n`}, // a backslash and an n, not an LF
		{"日本\t語", `日本\t語`},
		{"\xff\x00", "\xff\x00"}, // other bytes pass through
	}
	for _, tt := range tests {
		if got := string(record.Escape(nil, []byte(tt.raw))); got != tt.escaped {
			t.Errorf("Escape(%q) = %q, want %q", tt.raw, got, tt.escaped)
		}
		if got := string(record.Unescape(nil, []byte(tt.escaped))); got != tt.raw {
			t.Errorf("Unescape(%q) = %q, want %q", tt.escaped, got, tt.raw)
		}
		if got, want := record.NeedsEscape([]byte(tt.raw)), tt.raw != tt.escaped; got != want {
			t.Errorf("NeedsEscape(%q) = %v, want %v", tt.raw, got, want)
		}
	}
}

func TestEscapeAppends(t *testing.T) {
	got := record.Escape([]byte("id\t"), []byte("x\ty"))
	if string(got) != "id\tx\\ty" {
		t.Errorf("Escape appended %q, want %q", got, "id\tx\\ty")
	}
	got = record.Unescape([]byte("pre:"), []byte(`a\tb`))
	if string(got) != "pre:a\tb" {
		t.Errorf("Unescape appended %q, want %q", got, "pre:a\tb")
	}
}

// TestEscapeID: an id that begins #neardup has its '#' escaped, so that a
// record it starts is not a header line; any other '#' stays.
func TestEscapeID(t *testing.T) {
	for _, tt := range []struct{ raw, escaped string }{
		{"doc", "doc"},
		{"#neardup stage=pairs", `\#neardup stage=pairs`},
		{"#neardup", `\#neardup`},
		{"#neardupx\tb", `\#neardupx\tb`},
		{"#x y", "#x y"},
		{"#", "#"},
		{"a#neardup", "a#neardup"},
		{`\#neardup`, `\\#neardup`},
		{"", ""},
	} {
		if got := string(record.EscapeID(nil, []byte(tt.raw))); got != tt.escaped {
			t.Errorf("EscapeID(%q) = %q, want %q", tt.raw, got, tt.escaped)
		}
		if got := string(record.UnescapeID(nil, []byte(tt.escaped))); got != tt.raw {
			t.Errorf("UnescapeID(%q) = %q, want %q", tt.escaped, got, tt.raw)
		}
		if tt.raw != "" && record.IsHeader(record.EscapeID(nil, []byte(tt.raw))) {
			t.Errorf("EscapeID(%q) reads as a header", tt.raw)
		}
	}
}

// Unescape is lenient: a backslash before any other byte, or at the end of
// the field, stands for itself.
func TestUnescapeLenient(t *testing.T) {
	tests := []struct {
		field, raw string
	}{
		{`a\qb`, `a\qb`},
		{`\x41`, `\x41`},
		{`a\`, `a\`},
		{`\`, `\`},
		{`\\\`, `\\`},
		{`a\\\qb`, `a\\qb`},
		{`\"`, `\"`},
		{"\\\xff", "\\\xff"},
	}
	for _, tt := range tests {
		if got := string(record.Unescape(nil, []byte(tt.field))); got != tt.raw {
			t.Errorf("Unescape(%q) = %q, want %q", tt.field, got, tt.raw)
		}
	}
}

func TestCanonicalID(t *testing.T) {
	tests := []struct {
		field, want string
	}{
		{"doc1", "doc1"},
		{"", ""},
		{`a\tb`, `a\tb`},
		{`a\\b`, `a\\b`},
		{`a\qb`, `a\\qb`}, // an unknown escape is a backslash and the byte
		{`a\`, `a\\`},     // so is a trailing backslash
		{`\n\\\q`, `\n\\\\q`},
		{`\#neardup\q`, `\#neardup\\q`}, // the leading \# is EscapeID's
	}
	for _, tt := range tests {
		if got := string(record.CanonicalID(nil, []byte(tt.field))); got != tt.want {
			t.Errorf("CanonicalID(%q) = %q, want %q", tt.field, got, tt.want)
		}
	}
	// Longer than the function's scratch array.
	long := bytes.Repeat([]byte(`ab\q`), 200)
	want := bytes.Repeat([]byte(`ab\\q`), 200)
	if got := record.CanonicalID([]byte("pre"), long); !bytes.Equal(got, append([]byte("pre"), want...)) {
		t.Errorf("CanonicalID of a long id = %q…", got[:min(len(got), 40)])
	}
}

// TestCheckID: an id is not empty and holds only the four escapes; an
// unknown escape (x\qy) is refused, not taken for the id x\\qy, and every
// record parser refuses it.
func TestCheckID(t *testing.T) {
	for _, tt := range []struct{ id, err string }{
		{"a", ""},
		{`a\tb\n\r\\`, ""},
		{`\\`, ""},
		{`#x y`, ""},
		{`\#neardup x`, ""},
		{"", "empty id"},
		{"#neardup x", `id #neardup x: an id that begins #neardup is written \#neardup`},
		{"#neardup", `is written \#neardup`},
		{`\#x`, `\# is an escape only at the start of an id that begins #neardup`},
		{`a\#neardup`, `\# is an escape only at the start`},
		{`x\qy`, `id x\qy: \q is not an escape`},
		{`x\\\qy`, `\q is not an escape`},
		{`x\`, `id x\: a lone backslash ends it`},
		{`x\\\`, `a lone backslash ends it`},
		{"x\\\xc3\xa9", `\é is not an escape`},
	} {
		err := record.CheckID([]byte(tt.id))
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("CheckID(%q) = %v, want %q", tt.id, err, tt.err)
		}
		if tt.err == "" {
			continue
		}
		if _, ok := err.(*record.LineError); !ok {
			t.Errorf("CheckID(%q) = %T, want a *record.LineError", tt.id, err)
		}
		line := []byte(tt.id + "\tb")
		if _, _, err := record.ParsePair(line); err == nil {
			t.Errorf("ParsePair(%q) accepted the id", line)
		}
		var sk record.Sketch
		if err := record.ParseSketch(&sk, []byte(tt.id+"\t1\t0000000000000001")); err == nil {
			t.Errorf("ParseSketch accepted the id %q", tt.id)
		}
		if _, _, err := record.SplitShingles([]byte(tt.id + "\t0000000000000001")); err == nil {
			t.Errorf("SplitShingles accepted the id %q", tt.id)
		}
	}
}
