package input

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// docs.parquet is written by another implementation (hyparquet-writer):
// testdata/parquet/make.sh.
const docsParquet = "testdata/parquet/docs.parquet"

func readAllParquet(t testing.TB, name string, r Reading) (ids []string, texts int64) {
	t.Helper()
	p, err := OpenParquet(name, r)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	dp := NewReadingParser(r, new(atomic.Int64))
	ordinal := int64(1)
	for g := 0; g < p.NumRowGroups(); g++ {
		err := p.ReadGroup(g, func(d *ParquetDocument) error {
			id, text, err := dp.ParquetDoc(d, ordinal)
			ordinal++
			if err != nil {
				return err
			}
			ids = append(ids, string(id))
			texts += int64(len(text))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids, texts
}

func TestParquetRead(t *testing.T) {
	if !IsParquet(docsParquet) {
		t.Fatal("IsParquet(docs.parquet) = false")
	}
	if IsParquet("testdata/parquet/make.mjs") {
		t.Fatal("IsParquet(make.mjs) = true")
	}
	ids, texts := readAllParquet(t, docsParquet, DefaultReading())
	if len(ids) != 180 || ids[0] != "man1/FileCheck-14.1" || !strings.HasSuffix(ids[179], ".copy") || texts == 0 {
		t.Fatalf("read %d rows, first %q, last %q, %d text bytes", len(ids), ids[0], ids[len(ids)-1], texts)
	}
	// An INT64 id column gives its decimal digits.
	r := DefaultReading()
	r.IDField = "num"
	ids, _ = readAllParquet(t, docsParquet, r)
	if ids[0] != "1000" || ids[1] != "1007" {
		t.Fatalf("num ids %q", ids[:2])
	}
	// Arrival numbers.
	r = DefaultReading()
	r.Number, r.NumberFrom = true, 5
	ids, _ = readAllParquet(t, docsParquet, r)
	if ids[0] != "000000000005" || ids[179] != "000000000184" {
		t.Fatalf("numbered ids %q %q", ids[0], ids[179])
	}
}

func TestParquetColumnErrors(t *testing.T) {
	for _, c := range []struct{ id, text, want string }{
		{"id", "nope", `--text-field nope: no such column in the Parquet file (its columns: id, text, num`},
		{"id", "num", `--text-field num: the column holds INT64: want strings`},
		{"score", "text", `--id-field score: the column holds DOUBLE: want strings or integers`},
	} {
		r := DefaultReading()
		r.IDField, r.TextField, r.IDRequired = c.id, c.text, true
		_, err := OpenParquet(docsParquet, r)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), docsParquet+": ") {
			t.Errorf("%s/%s: got %v, want %q", c.id, c.text, err, c.want)
		}
	}
	// Without the id column (not asked for), ids are row numbers.
	r := DefaultReading()
	r.IDField = "absent"
	ids, _ := readAllParquet(t, docsParquet, r)
	if ids[0] != "1" || ids[179] != "180" {
		t.Fatalf("ids %q %q", ids[0], ids[179])
	}
	if _, err := OpenParquet("-", DefaultReading()); err == nil {
		t.Fatal("standard input: no error")
	}
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	data, _ := os.ReadFile(docsParquet)
	os.WriteFile(bad, data[:len(data)/2], 0o644)
	if _, err := OpenParquet(bad, DefaultReading()); err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Fatalf("truncated: %v", err)
	}
}

// BenchmarkParquetRead reads the text column of docs.parquet (make bench):
// MB/s of text.
func BenchmarkParquetRead(b *testing.B) {
	_, n := readAllParquet(b, docsParquet, DefaultReading())
	b.SetBytes(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		readAllParquet(b, docsParquet, DefaultReading())
	}
}
