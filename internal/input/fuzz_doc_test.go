package input

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/neardup/neardup/internal/record"
)

// FuzzDocParser reads any line as a document in each format: a document
// it accepts has an id that records can carry (not empty, only the four
// escapes); a TSV id is the first field as written and the text the rest
// unescaped; and a TSV line written from any id and text (Escape) gives
// them back.
func FuzzDocParser(f *testing.F) {
	for _, s := range []string{
		"doc1\tthe first document",
		`a\\qb` + "\t" + `x\ty\q`,
		`a\qb` + "\tx",
		"\tan empty id",
		"noTAB",
		`{"id":"d1","text":"hello"}`,
		`{"id":"","text":"t"}`,
		`{"id":-12.5e3,"text":"t"}`,
		`{"text":"t"}`,
		"a\tb\tc",
		"a\\\tb",
	} {
		f.Add([]byte(s), []byte("raw id\t\\"), uint8(0))
	}
	formats := []string{FormatTSV, FormatJSONL, FormatLines}
	f.Fuzz(func(t *testing.T, line, raw []byte, how uint8) {
		format := formats[int(how)%len(formats)]
		r := DefaultReading()
		r.Number = how&0x10 != 0
		r.NumberFrom = 1
		p := NewReadingParser(r, nil)
		id, text, err := p.Parse(format, line, 7)
		if err == nil {
			if err := record.CheckID(id); err != nil {
				t.Fatalf("%s %q: id %q: %v", format, line, id, err)
			}
			if format == FormatTSV && !r.Number {
				field, rest, _ := record.Cut(line)
				if !bytes.Equal(id, field) || !bytes.Equal(text, record.Unescape(nil, rest)) {
					t.Fatalf("TSV %q: id %q text %q", line, id, text)
				}
			}
		}
		if len(raw) == 0 || r.Number {
			return
		}
		// raw as an id, line as a text, written as TSV.
		tsv := record.Escape(nil, raw)
		tsv = append(tsv, '\t')
		tsv = record.Escape(tsv, line)
		id, text, err = p.Parse(FormatTSV, tsv, 1)
		if err != nil || !bytes.Equal(id, record.Escape(nil, raw)) || !bytes.Equal(text, line) {
			t.Fatalf("TSV %q: %q %q %v, want %q %q", tsv, id, text, err, record.Escape(nil, raw), line)
		}
	})
}

// FuzzWrap reads any bytes through the gzip and zstd wrapper of Open, in
// memory (a file on disk would make the fuzzing wait on its I/O): it never
// panics; bytes that start with neither magic come out unchanged; and data
// compressed with gzip or zstd (the second argument says which) comes out as
// it went in.
func FuzzWrap(f *testing.F) {
	for _, s := range []string{"", "doc1\tthe first document\n", "\x1f\x8b", "\x28\xb5\x2f\xfd", "{\"id\":1}\n"} {
		for how := range uint8(3) {
			f.Add([]byte(s), how)
		}
	}
	const limit = 8 << 20 // what a frame may expand to here
	read := func(data []byte) ([]byte, string, error) {
		file, err := Wrap("fuzz", bytes.NewReader(data))
		if err != nil {
			return nil, "", err
		}
		defer file.Close()
		out, err := io.ReadAll(io.LimitReader(file, limit))
		return out, file.Compression, err
	}
	f.Fuzz(func(t *testing.T, data []byte, how uint8) {
		out, kind, err := read(data)
		if err == nil && kind == "" && !bytes.Equal(out, data) {
			t.Fatalf("uncompressed %q read as %q", data, out)
		}
		var packed bytes.Buffer
		switch how % 3 {
		case 0:
			return
		case 1:
			zw := gzip.NewWriter(&packed)
			zw.Write(data)
			zw.Close()
		case 2:
			zw, err := zstd.NewWriter(&packed)
			if err != nil {
				t.Fatal(err)
			}
			zw.Write(data)
			zw.Close()
		}
		out, kind, err = read(packed.Bytes())
		if err != nil || kind == "" || !bytes.Equal(out, data) {
			t.Fatalf("%q compressed (%d) read as %s %q, %v", data, how%3, kind, out, err)
		}
	})
}
