package input

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type fuzzRow struct {
	ID   string  `parquet:"id"`
	Text *string `parquet:"text,optional"`
	N    int64   `parquet:"n"`
}

// smallParquet writes a few rows with parquet-go, compressed with codec, in
// row groups of two rows.
func smallParquet(t testing.TB, codec parquet.WriterOption) []byte {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[fuzzRow](&buf, codec, parquet.MaxRowsPerRowGroup(2))
	text := "the text of a document"
	rows := []fuzzRow{{"a", &text, 1}, {"b", nil, 2}, {"c", &text, 3}}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzParquet reads a file as shingle does: whatever the bytes, an error
// naming the file or documents, never a panic or an allocation beyond the
// bounds (pages here at most 1 MiB).
func FuzzParquet(f *testing.F) {
	f.Add(smallParquet(f, parquet.Compression(&parquet.Snappy)))
	f.Add(smallParquet(f, parquet.Compression(&parquet.Zstd)))
	f.Add(smallParquet(f, parquet.Compression(&parquet.Uncompressed)))
	if data, err := os.ReadFile(docsParquet); err == nil {
		f.Add(data[:4<<10])
		f.Add(data[len(data)-4<<10:])
	}
	old := MaxParquetPage
	MaxParquetPage = 1 << 20
	f.Cleanup(func() { MaxParquetPage = old })
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		name := filepath.Join(dir, "fuzz.parquet")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := OpenParquet(name, DefaultReading())
		if err != nil {
			if !strings.HasPrefix(err.Error(), name+": ") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		defer p.Release()
		dp := NewReadingParser(DefaultReading(), nil)
		for g := 0; g < p.NumRowGroups(); g++ {
			err := p.ReadGroup(g, func(d *ParquetDocument) error {
				_, _, err := dp.ParquetDoc(d, 1)
				return err
			})
			if err != nil {
				if _, bad := err.(interface{ Class() int }); !bad && !strings.Contains(err.Error(), name) && !strings.Contains(err.Error(), "row ") {
					t.Fatalf("error without the file name: %v", err)
				}
				return
			}
			if err := p.CheckGroup(g); err != nil {
				return
			}
		}
	})
}
