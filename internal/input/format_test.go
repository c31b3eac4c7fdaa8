package input

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	if got := FormatNames(); !strings.HasPrefix(got, "tsv, jsonl, files") {
		t.Errorf("FormatNames() = %q", got)
	}
	if _, err := ParseFormat("nope"); err == nil {
		t.Error("ParseFormat(nope): no error")
	}
	if f, err := ParseFormat(""); err != nil || f != FormatAuto {
		t.Errorf("ParseFormat(\"\") = %q, %v", f, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Register of a name given twice does not panic")
		}
	}()
	Register(&Format{Name: FormatTSV})
}

func TestSniffFormat(t *testing.T) {
	saved := formats
	defer func() { formats = saved }()
	Register(&Format{Name: "test-magic", Magic: []string{"MAGIC/1\r\n"}})
	for _, tc := range []struct {
		head   string
		format string
		more   bool
	}{
		{"MAGIC/1\r\nrest", "test-magic", false},
		{"MAG", "", true},
		{"MAGIC/2\r\n", "", false},
		{"doc\ttext", "", false},
	} {
		f, more := SniffFormat([]byte(tc.head))
		if f != tc.format || more != tc.more {
			t.Errorf("SniffFormat(%q) = %q, %v; want %q, %v", tc.head, f, more, tc.format, tc.more)
		}
	}
	// Open sniffs through gzip, and Stored gives the stored bytes back
	// from the first one, though the decoder read ahead.
	content := []byte("MAGIC/1\r\n" + string(text))
	for _, stored := range [][]byte{content, gzipped(t, content)} {
		f, err := Wrap("x", bytes.NewReader(stored))
		if err != nil {
			t.Fatal(err)
		}
		if f.Sniffed != "test-magic" {
			t.Errorf("Sniffed = %q (compression %q)", f.Sniffed, f.Compression)
		}
		r, err := f.Stored()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, stored) {
			t.Errorf("Stored (compression %q): %d bytes, %v; want the %d stored", f.Compression, len(got), err, len(stored))
		}
		if FileFormat(FormatAuto, f) != "test-magic" || FileFormat(FormatJSONL, f) != FormatJSONL {
			t.Error("FileFormat: the content wins under auto, a format given wins over it")
		}
	}
	f, err := Wrap("x.jsonl", bytes.NewReader([]byte(`{"id":1}`)))
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, f); string(got) != `{"id":1}` || FileFormat(FormatAuto, f) != FormatJSONL {
		t.Errorf("a file no magic matches: read %q, format %q", got, FileFormat(FormatAuto, f))
	}
}

func TestUnitOf(t *testing.T) {
	for format, want := range map[string]string{FormatAuto: "line", FormatTSV: "line", FormatJSONL: "line",
		FormatLines: "line", FormatWARC: "line", FormatFiles: "file", FormatParquet: "row"} {
		if got := UnitOf(format); got != want {
			t.Errorf("UnitOf(%q) = %q, want %q", format, got, want)
		}
	}
}
