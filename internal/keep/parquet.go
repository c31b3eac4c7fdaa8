package keep

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/status"
)

// parquetOut writes the rows kept of Parquet input back as Parquet: the
// schema, key-value metadata and every column of the first input file, a
// row group for each row group read (its rows kept, in order), compressed
// with the codec of the input's text column (zstd when the library can't
// write that codec, said on stderr).
type parquetOut struct {
	w      *parquet.Writer
	schema *parquet.Schema
	first  string
	rows   []parquet.Row
}

func newParquetOut(dst io.Writer, f *input.ParquetFile, stderr io.Writer) *parquetOut {
	md := f.File.Metadata()
	schema := f.File.Schema()
	opts := []parquet.WriterOption{schema}
	codec := format.Uncompressed
	if len(md.RowGroups) > 0 {
		codec = md.RowGroups[0].Columns[f.TextColumn].MetaData.Codec
	}
	switch c := parquet.LookupCompressionCodec(codec); c.String() {
	case "UNSUPPORTED":
		fmt.Fprintf(stderr, "keep: %s is compressed with %s, which can't be written: writing zstd\n", f.Name, codec)
		opts = append(opts, parquet.Compression(&parquet.Zstd))
	default:
		opts = append(opts, parquet.Compression(c))
	}
	for _, kv := range md.KeyValueMetadata {
		opts = append(opts, parquet.KeyValueMetadata(kv.Key, kv.Value))
	}
	return &parquetOut{w: parquet.NewWriter(dst, opts...), schema: schema, first: f.Name, rows: make([]parquet.Row, 64)}
}

// writeGroup writes the rows of row group g whose numbers (from 0, in
// order) keep holds, as a row group of their own.
func (o *parquetOut) writeGroup(g *input.ParquetGroup, keep []int64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &input.BadParquet{Err: fmt.Errorf("%s: row group %d: malformed Parquet file: the reader failed: %v", g.File.Name, g.Index, r)}
		}
	}()
	f := g.File
	if !parquet.SameNodes(f.File.Schema(), o.schema) {
		return status.Usagef("%s and %s have different schemas: the Parquet output has one (keep them apart)", o.first, f.Name)
	}
	if len(keep) == 0 {
		return nil
	}
	if err := f.CheckGroup(g.Index); err != nil {
		return err
	}
	rows := f.File.RowGroups()[g.Index].Rows()
	defer rows.Close()
	var n int64
	for len(keep) > 0 {
		k, err := rows.ReadRows(o.rows)
		for _, row := range o.rows[:k] {
			if len(keep) > 0 && keep[0] == n {
				if _, err := o.w.WriteRows([]parquet.Row{row}); err != nil {
					return err
				}
				keep = keep[1:]
			}
			n++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return &input.BadParquet{Err: fmt.Errorf("%s: row group %d: %w", f.Name, g.Index, err)}
		}
	}
	if len(keep) > 0 {
		return fmt.Errorf("%s: row group %d: %d rows read, row %d kept", f.Name, g.Index, n, keep[0])
	}
	return o.w.Flush()
}

// close writes the footer.
func (o *parquetOut) close() error { return o.w.Close() }

// closeParquet ends the Parquet output: its footer, or when no row group
// was read, a file of no rows with the schema of the first input.
func (k *keeper) closeParquet(inputs []string, w io.Writer, stderr io.Writer) error {
	if k.pq == nil {
		if len(inputs) == 0 {
			inputs = []string{"-"}
		}
		f, err := input.OpenParquet(inputs[0], k.opt.reading)
		if err != nil {
			return err
		}
		defer f.Release()
		k.pq = newParquetOut(w, f, stderr)
	}
	return k.pq.close()
}
