package document

import (
	"fmt"
	"sync/atomic"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/vector"
)

// VectorReading returns how the documents whose vectors are in the field
// named (JSON Lines) are read: as r says, the vector in place of the text.
// Vectors are read from TSV ("id TAB numbers"), JSON Lines and --lines;
// another format is a usage error.
func VectorReading(r input.Reading, field string) (input.Reading, error) {
	switch r.Format {
	case input.FormatAuto, input.FormatTSV, input.FormatJSONL, input.FormatLines:
	default:
		return r, fmt.Errorf("--format %s: vectors are read from TSV, JSON Lines and --lines", r.Format)
	}
	if field == "" {
		return r, fmt.Errorf("--vector-field: want the name of the field that holds the vector")
	}
	r.TextField, r.Vector = field, true
	r.Text, r.Main = "", false
	return r, nil
}

// FirstDim returns the dimension of the first vector of src, read as r
// says (VectorReading), with its place; 0 when src has no document. A
// source that is not read line by line has none to show (0).
func FirstDim(src stream.Source, r input.Reading) (int, record.Pos, error) {
	l, ok := src.(*stream.Lines)
	if !ok {
		return 0, record.Pos{}, nil
	}
	_, first, err := l.Peek()
	if err != nil || first == nil {
		return 0, record.Pos{}, err
	}
	pos := l.FirstPos()
	p := input.NewReadingParser(r, nil)
	_, text, err := p.Parse(input.ResolveFormat(r.Format, pos.File), first, 1)
	if err == nil {
		var v []float64
		if v, err = vector.Parse(nil, text); err == nil {
			if len(v) > vector.MaxDim {
				return 0, pos, record.Errorf(pos, "the vector has %d components: at most %d", len(v), vector.MaxDim)
			}
			return len(v), pos, nil
		}
	}
	if le, ok := err.(*record.LineError); ok {
		return 0, pos, record.Errorf(pos, "%s", le.Msg)
	}
	return 0, pos, err
}

// VectorReader reads the vectors of the documents of the chunks of a
// Source in a worker; all have Dim components. It keeps scratch space: one
// per goroutine.
type VectorReader struct {
	docs *Reader
	dim  int
	// dimFrom says where the dimension comes from, for messages.
	dimFrom string
	v       []float64
}

// NewVectorReader returns a reader of the vectors of documents read as r
// says (VectorReading), of dim components, the dimension dimFrom names
// ("--dim", "the first vector, at file:line"); noID and skipBad are
// NewReader's.
func NewVectorReader(r input.Reading, dim int, dimFrom string, noID *atomic.Int64, skipBad bool) *VectorReader {
	return &VectorReader{docs: NewReader(r, noID, nil, skipBad), dim: dim, dimFrom: dimFrom}
}

// Vectors calls fn with the id (escaped) and the vector of each document
// of a chunk. A vector that is not numbers, or not of the dimension, is a
// bad line (file:line), as is a document in a format that holds no
// vectors. The slices are valid until fn returns.
func (d *VectorReader) Vectors(c *stream.Chunk, r *stream.Result, fn func(id []byte, v []float64) error) {
	if _, pq := c.Value.(*input.ParquetGroup); pq || c.Docs != nil || c.Skipped != nil {
		r.Fail(record.Errorf(record.Pos{File: c.File}, "vectors are read from TSV, JSON Lines and --lines, not from %s", input.ResolveFormat(c.Format, c.File)), record.Pos{File: c.File}, false)
		return
	}
	d.docs.Documents(c, r, func(id, text []byte) error {
		var err error
		if d.v, err = vector.Parse(d.v[:0], text); err != nil {
			return err
		}
		if len(d.v) != d.dim {
			return record.Bad("the vector has %d components, want %d (the dimension of %s)", len(d.v), d.dim, d.dimFrom)
		}
		return fn(id, d.v)
	})
}
