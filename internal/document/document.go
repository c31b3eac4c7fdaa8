// Package document reads the user's documents for every stage that takes
// them (shingle, parts, seen, spans, keep, verify --documents, the Beam
// pipeline): the source of their chunks (Source), the reader that turns a
// chunk into ids and texts in a worker (Reader), and what a stage says on
// stderr about what it did not read (Report, ReportNoID). How documents are
// read is one input.Reading; the formats are input's registry.
package document

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/offsets"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Source returns the source of the documents in the named inputs read as r
// says, and the unit progress counts them in.
func Source(r input.Reading, inputs []string, skipBad bool) (stream.Source, string) {
	src, _ := stream.NewDocuments(inputs, r, skipBad)
	return src, input.UnitOf(r.Format)
}

// Report says on stderr, as stage, what the source did not read: the files
// a walk left out, the records of a format that are not documents.
func Report(src stream.Source, stderr io.Writer, stage string) {
	switch s := src.(type) {
	case *stream.Files:
		s.Report(stderr, stage)
	case *stream.Lines:
		s.Report(stderr, stage)
	}
}

// ReportNoID says on stderr how many documents had no id field, so that
// their ids became line numbers.
func ReportNoID(stderr io.Writer, stage, field string, n *atomic.Int64) {
	if n != nil && n.Load() > 0 {
		fmt.Fprintf(stderr, "%s: %d document(s) had no %q field: their ids are line numbers\n", stage, n.Load(), field)
	}
}

// Reader reads the documents of the chunks of a Source in a worker. It
// keeps scratch space: one per goroutine.
type Reader struct {
	format  string
	skipBad bool
	doc     *input.DocParser
	id      []byte
	// Places has Documents append the offsets record of each document of
	// input i+1 to the result where Places[i] (shingle --offsets,
	// offsets.Writer.Has).
	Places []bool
}

// NewReader returns a reader of documents read as r says, counting in noID
// (when not nil) the documents whose id field is missing; want, when set,
// leaves unread the text of a TSV line whose id it does not want
// (input.DocParser.Want); skipBad passes over bad documents, counted.
func NewReader(r input.Reading, noID *atomic.Int64, want func(id []byte) bool, skipBad bool) *Reader {
	doc := input.NewReadingParser(r, noID)
	doc.Want = want
	return &Reader{format: r.Format, skipBad: skipBad, doc: doc}
}

// Documents calls fn with the id (escaped, as records carry it) and the
// text of each document of a chunk, under the stage's id rules; bad lines
// go to r as the results of bad input do, and so does an error from fn.
// The slices are valid until fn returns.
func (d *Reader) Documents(c *stream.Chunk, r *stream.Result, fn func(id, text []byte) error) {
	places := c.Input >= 1 && c.Input <= len(d.Places) && d.Places[c.Input-1]
	if places && (c.Docs != nil || c.Skipped != nil || c.Value != nil) {
		r.Err = fmt.Errorf("--offsets: %s is read as %s, not as lines: only documents read as lines have offsets", c.File, c.Format)
		return
	}
	if c.Docs != nil || c.Skipped != nil {
		for _, e := range c.Skipped {
			r.Fail(e, e.Pos, true)
		}
		ordinal := c.FirstOrdinal
		for _, doc := range c.Docs {
			if doc.Record != nil {
				if doc.Record.Kind != input.RecordDocument {
					continue
				}
				r.Records++
				ordinal++
				id, text, err := d.doc.Record(c.Format, c.File, doc.Record, ordinal-1)
				if err != nil {
					if !r.Fail(err, record.Pos{File: c.File}, d.skipBad) {
						return
					}
					continue
				}
				if err := fn(id, text); err != nil && !r.Fail(err, record.Pos{File: c.File}, d.skipBad) {
					return
				}
				continue
			}
			r.Records++
			d.id = input.FileID(d.id[:0], doc.Name)
			if err := fn(d.id, d.doc.Text(doc.Data)); err != nil && !r.Fail(err, record.Pos{File: doc.Name}, d.skipBad) {
				return
			}
		}
		return
	}
	if g, ok := c.Value.(*input.ParquetGroup); ok {
		d.parquet(c, g, r, fn)
		return
	}
	format := c.Format
	if format == "" {
		format = input.ResolveFormat(d.format, c.File)
	}
	c.Lines(r, d.skipBad, func(line []byte, ordinal int64) error {
		id, text, err := d.doc.Parse(format, line, ordinal)
		if err != nil {
			return err
		}
		if err := fn(id, text); err != nil || !places {
			return err
		}
		// After fn, which may have passed the result on (Flush): the
		// record goes with the next, in order all the same.
		r.Places, err = offsets.Append(r.Places, id, c, line, ordinal)
		return err
	})
}

// parquet calls fn with each document of a Parquet row group; a row's
// error has the row's number for its line.
func (d *Reader) parquet(c *stream.Chunk, g *input.ParquetGroup, r *stream.Result, fn func(id, text []byte) error) {
	ordinal := c.FirstOrdinal
	err := g.File.ReadGroup(g.Index, func(doc *input.ParquetDocument) error {
		r.Records++
		id, text, err := d.doc.ParquetDoc(doc, ordinal)
		ordinal++
		if err != nil {
			if r.Fail(err, record.Pos{File: c.File, Line: doc.Row}, d.skipBad) {
				return nil
			}
			return errStopGroup
		}
		if err := fn(id, text); err != nil && !r.Fail(err, record.Pos{File: c.File, Line: doc.Row}, d.skipBad) {
			return errStopGroup
		}
		return nil
	})
	if err != nil && err != errStopGroup {
		r.Err = err
	}
}

var errStopGroup = errors.New("stop")
