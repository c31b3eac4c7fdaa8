package keep

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/internal/input"
)

// docsParquet was written by hyparquet-writer (another implementation):
// internal/input/testdata/parquet/make.sh.
const docsParquet = "../input/testdata/parquet/docs.parquet"

// allRows reads every row of a Parquet file with parquet-go's row API (not
// neardup's reader), keyed by the id column, in order.
func allRows(t *testing.T, data []byte) (*parquet.File, []string, map[string]parquet.Row) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	idCol, _ := f.Schema().Lookup("id")
	var ids []string
	rows := map[string]parquet.Row{}
	for _, rg := range f.RowGroups() {
		rr := rg.Rows()
		buf := make([]parquet.Row, 16)
		for {
			n, err := rr.ReadRows(buf)
			for _, row := range buf[:n] {
				var id string
				for _, v := range row {
					if v.Column() == idCol.ColumnIndex {
						id = v.String()
					}
				}
				ids = append(ids, id)
				rows[id] = row.Clone()
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		rr.Close()
	}
	return f, ids, rows
}

// TestKeepParquet drops the planted copies of docs.parquet and checks the
// Parquet written: the same schema, metadata and codec, a row group per row
// group read, and every other column of the rows kept unchanged, in order.
func TestKeepParquet(t *testing.T) {
	in, err := os.ReadFile(docsParquet)
	if err != nil {
		t.Fatal(err)
	}
	inFile, inIDs, inRows := allRows(t, in)
	var pairs strings.Builder
	copies := 0
	for _, id := range inIDs {
		if orig, ok := strings.CutSuffix(id, ".copy"); ok {
			pairs.WriteString(orig + "\t" + id + "\t0.9\n")
			copies++
		}
	}
	dir := t.TempDir()
	pf := filepath.Join(dir, "pairs.tsv")
	os.WriteFile(pf, []byte(pairs.String()), 0o644)
	var out, stderr bytes.Buffer
	opt := Options{Reading: input.Reading{Format: input.FormatParquet}, Pairs: pf, Prefer: PreferFirst}
	if err := Run(context.Background(), opt, []string{docsParquet}, &out, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	outFile, outIDs, outRows := allRows(t, out.Bytes())
	if copies != 20 || len(outIDs) != len(inIDs)-copies {
		t.Fatalf("%d rows written of %d, %d copies", len(outIDs), len(inIDs), copies)
	}
	if got, want := outFile.Schema().String(), inFile.Schema().String(); got != want {
		t.Errorf("schema\n%s\nwant\n%s", got, want)
	}
	if got, want := len(outFile.RowGroups()), len(inFile.RowGroups()); got != want {
		t.Errorf("%d row groups, want %d", got, want)
	}
	for i, c := range outFile.Metadata().RowGroups[0].Columns {
		if want := inFile.Metadata().RowGroups[0].Columns[i].MetaData.Codec; c.MetaData.Codec != want {
			t.Errorf("column %d: codec %v, want %v", i, c.MetaData.Codec, want)
		}
	}
	for _, kv := range inFile.Metadata().KeyValueMetadata {
		if v, ok := outFile.Lookup(kv.Key); !ok || v != kv.Value {
			t.Errorf("metadata %s: %q, want %q", kv.Key, v, kv.Value)
		}
	}
	j := 0
	for _, id := range inIDs {
		if strings.HasSuffix(id, ".copy") {
			continue
		}
		if outIDs[j] != id {
			t.Fatalf("row %d: %s, want %s", j, outIDs[j], id)
		}
		if !outRows[id].Equal(inRows[id]) {
			t.Errorf("row %s differs:\n%v\nwant\n%v", id, outRows[id], inRows[id])
		}
		j++
	}
}
