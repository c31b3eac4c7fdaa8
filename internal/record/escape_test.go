package record_test

import (
	"bytes"
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
	}
	for _, tt := range tests {
		if got := string(record.CanonicalID(nil, []byte(tt.field))); got != tt.want {
			t.Errorf("CanonicalID(%q) = %q, want %q", tt.field, got, tt.want)
		}
	}
	// Two spellings of one id have one canonical form.
	a := record.CanonicalID(nil, []byte(`x\qy`))
	b := record.CanonicalID(nil, []byte(`x\\qy`))
	if !bytes.Equal(a, b) {
		t.Errorf("CanonicalID gives %q and %q for the same id", a, b)
	}
	// Longer than the function's scratch array.
	long := bytes.Repeat([]byte(`ab\q`), 200)
	want := bytes.Repeat([]byte(`ab\\q`), 200)
	if got := record.CanonicalID([]byte("pre"), long); !bytes.Equal(got, append([]byte("pre"), want...)) {
		t.Errorf("CanonicalID of a long id = %q…", got[:min(len(got), 40)])
	}
}
