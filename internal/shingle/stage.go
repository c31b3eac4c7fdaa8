package shingle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Document formats (input.DocParser reads them).
const (
	FormatAuto    = input.FormatAuto
	FormatTSV     = input.FormatTSV
	FormatJSONL   = input.FormatJSONL
	FormatFiles   = input.FormatFiles
	FormatLines   = input.FormatLines
	FormatParquet = input.FormatParquet
)

// StageOptions configure the shingle stage.
type StageOptions struct {
	Shingle Options
	// Format is one of the Format constants; FormatAuto takes it from each
	// file name (.tsv, .jsonl, .json, also under .gz or .zst) and is TSV for
	// standard input and other names.
	Format             string
	IDField, TextField string
	// Number makes the ids arrival numbers from NumberFrom (12 digits,
	// zero-padded); IDRequired makes a JSON Lines document without the id
	// field a bad line (the field was given explicitly).
	Number     bool
	NumberFrom int64
	IDRequired bool
	// Text and Main: how a document's text is taken (input.Reading).
	Text string
	Main bool
	// NoID counts the documents whose default id field was missing (their
	// id is their line number); Run sets it.
	NoID *atomic.Int64
	// Counts writes h:c with the number of occurrences of each shingle.
	Counts bool
	// Want, when set, leaves unread the text of a TSV line whose id it
	// does not want: Documents hands it over with a nil text
	// (input.DocParser.Want).
	Want func(id []byte) bool
	stream.Common
}

// Check validates the options; its errors are usage errors. Run calls it.
func (o *StageOptions) Check() error {
	if o.Shingle.K < 1 {
		return status.Usagef("-k %d: want at least 1", o.Shingle.K)
	}
	if o.Shingle.Norm.Punct && o.Shingle.Unit != Char {
		return status.Usagef("--normalize punct is for --unit char: %s shingles ignore punctuation and spacing already", o.Shingle.Unit)
	}
	if o.Number {
		if o.NumberFrom < 0 {
			return status.Usagef("--number-from %d: want a number from 0", o.NumberFrom)
		}
		if o.Format == FormatFiles {
			return status.Usagef("--number-from and --files exclude each other: a file's id is its path")
		}
	}
	if !o.NoHeader {
		if err := o.Reading().CheckHeader(); err != nil {
			return status.Usage(err)
		}
	}
	return nil
}

// Reading returns how the stage reads documents.
func (o *StageOptions) Reading() input.Reading {
	return input.Reading{Format: o.Format, IDField: o.IDField, TextField: o.TextField,
		Number: o.Number, NumberFrom: o.NumberFrom, IDRequired: o.IDRequired, Text: o.Text, Main: o.Main}
}

// Header returns the header line the stage writes.
func (o *StageOptions) Header() record.Header {
	h := record.NewHeader("shingle",
		"unit", o.Shingle.Unit.String(),
		"k", strconv.Itoa(o.Shingle.K),
		"hash", o.Shingle.Scheme.String(),
		"seed", strconv.FormatUint(o.Shingle.Seed, 10),
		"normalize", o.Shingle.Norm.String(),
		"counts", yesNo(o.Counts))
	if o.Shingle.Unit == Stopword {
		sw := o.Shingle.Stopwords
		if sw == nil {
			sw = English()
		}
		h.Params = append(h.Params, record.Param{Key: "stopwords", Value: sw.Name()})
	}
	h.Params = append(h.Params, o.Reading().Params()...)
	return h
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// FormatOf returns the document format of a file name under FormatAuto.
func FormatOf(name string) string { return input.FormatOf(name) }

// Run reads documents from the named inputs (standard input when there are
// none) and writes shingle records to stdout.
func Run(ctx context.Context, opt StageOptions, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Check(); err != nil {
		return err
	}
	src, unit := Source(&opt, inputs)
	defer src.Close()
	out := stream.NewOutput("shingle", opt.Common, stdout, stderr, opt.Header())
	out.Unit = unit
	out.Summary = func(stderr io.Writer) { ReportSource(src, stderr) }
	opt.NoID = new(atomic.Int64)
	crowded := hashsort.Crowded()
	err := out.RunPool(ctx, src, Workers(&opt))
	ReportNoID(stderr, "shingle", opt.IDField, opt.NoID)
	ReportCrowded(stderr, "shingle", crowded)
	return err
}

// Source returns the source of the documents in the named inputs, and the
// unit progress counts them in.
func Source(opt *StageOptions, inputs []string) (stream.Source, string) {
	src, _ := stream.NewDocuments(inputs, opt.Reading(), opt.SkipBad)
	switch opt.Format {
	case FormatFiles:
		return src, "file"
	case FormatParquet:
		return src, "row"
	}
	return src, "line"
}

// ReportSource says on stderr what the source did not read: the files a
// walk left out, the records of a format that are not documents.
func ReportSource(src stream.Source, stderr io.Writer) {
	switch s := src.(type) {
	case *stream.Files:
		s.Report(stderr, "shingle")
	case *stream.Lines:
		s.Report(stderr, "shingle")
	}
}

// ReportNoID says on stderr how many documents had no id field, so that
// their ids became line numbers.
func ReportNoID(stderr io.Writer, stage, field string, n *atomic.Int64) {
	if n != nil && n.Load() > 0 {
		fmt.Fprintf(stderr, "%s: %d document(s) had no %q field: their ids are line numbers\n", stage, n.Load(), field)
	}
}

// ReportCrowded says how many documents had shingle hashes that crowded
// one part of a hash table (the one-pass sorted set, the distinct set of
// --sketch, OPH's count), so that they were sorted instead: the output is
// the same, the time longer. Shingle hashes are mixed and uniform: values
// that crowd a table were chosen to collide. since is hashsort.Crowded()
// when the run began.
func ReportCrowded(stderr io.Writer, stage string, since int64) {
	if n := hashsort.Crowded() - since; n > 0 {
		fmt.Fprintf(stderr, "%s: %d document(s) had shingle hashes that crowded one part of a hash table (not uniform: chosen to collide?), and were sorted instead: the same output, in more time\n", stage, n)
	}
}

// Workers returns the factory of the stage's workers.
func Workers(opt *StageOptions) stream.WorkerFactory {
	return func() stream.Worker { return NewWorker(opt) }
}

// NewWorker returns the stage's worker: it turns a chunk of document lines
// (or of whole files) into shingle records. The Beam pipeline runs it too.
func NewWorker(opt *StageOptions) *Worker {
	doc := input.NewReadingParser(opt.Reading(), opt.NoID)
	doc.Want = opt.Want
	return &Worker{opt: opt, sh: New(opt.Shingle), doc: doc}
}

// Worker is the stage's worker. It keeps scratch space: one per goroutine.
type Worker struct {
	opt    *StageOptions
	sh     *Shingler
	doc    *input.DocParser
	hashes []uint64
	set    []uint64 // scratch: the distinct hashes, swapped with hashes
	sorter hashsort.Sorter
	// distinct is the scratch table of Distinct.
	distinct distinctSet
	id       []byte
}

// Process appends to r.Out the shingle record of each document of a chunk.
func (w *Worker) Process(c *stream.Chunk, r *stream.Result) {
	w.Documents(c, r, func(id, text []byte) error {
		var err error
		if r.Out, err = w.AppendRecord(r.Out, id, text); err != nil {
			return err
		}
		// Many short documents can make output several times the
		// chunk: pass it on as it grows. An error here is the run
		// being stopped, which the pool reports.
		_ = r.Flush()
		return nil
	})
}

// Documents calls fn with the id (escaped, as records carry it) and the
// text of each document of a chunk, under the stage's id rules; bad lines
// go to r as in Process, and so does an error from fn. The slices are valid
// until fn returns.
func (w *Worker) Documents(c *stream.Chunk, r *stream.Result, fn func(id, text []byte) error) {
	if c.Docs != nil || c.Skipped != nil {
		for _, e := range c.Skipped {
			r.Fail(e, e.Pos, true)
		}
		ordinal := c.FirstOrdinal
		for _, d := range c.Docs {
			if d.Record != nil {
				if d.Record.Kind != input.RecordDocument {
					continue
				}
				r.Records++
				ordinal++
				id, text, err := w.doc.Record(c.Format, c.File, d.Record, ordinal-1)
				if err != nil {
					if !r.Fail(err, record.Pos{File: c.File}, w.opt.SkipBad) {
						return
					}
					continue
				}
				if err := fn(id, text); err != nil && !r.Fail(err, record.Pos{File: c.File}, w.opt.SkipBad) {
					return
				}
				continue
			}
			r.Records++
			w.id = input.FileID(w.id[:0], d.Name)
			if err := fn(w.id, w.doc.Text(d.Data)); err != nil && !r.Fail(err, record.Pos{File: d.Name}, w.opt.SkipBad) {
				return
			}
		}
		return
	}
	if g, ok := c.Value.(*input.ParquetGroup); ok {
		w.parquet(c, g, r, fn)
		return
	}
	format := c.Format
	if format == "" {
		format = input.ResolveFormat(w.opt.Format, c.File)
	}
	c.Lines(r, w.opt.SkipBad, func(line []byte, ordinal int64) error {
		id, text, err := w.doc.Parse(format, line, ordinal)
		if err != nil {
			return err
		}
		return fn(id, text)
	})
}

// parquet calls fn with each document of a Parquet row group; a row's
// error has the row's number for its line.
func (w *Worker) parquet(c *stream.Chunk, g *input.ParquetGroup, r *stream.Result, fn func(id, text []byte) error) {
	ordinal := c.FirstOrdinal
	err := g.File.ReadGroup(g.Index, func(d *input.ParquetDocument) error {
		r.Records++
		id, text, err := w.doc.ParquetDoc(d, ordinal)
		ordinal++
		if err != nil {
			if r.Fail(err, record.Pos{File: c.File, Line: d.Row}, w.opt.SkipBad) {
				return nil
			}
			return errStopGroup
		}
		if err := fn(id, text); err != nil && !r.Fail(err, record.Pos{File: c.File, Line: d.Row}, w.opt.SkipBad) {
			return errStopGroup
		}
		return nil
	})
	if err != nil && err != errStopGroup {
		r.Err = err
	}
}

var errStopGroup = errors.New("stop")

// AppendRecord appends the shingle record of one document. It refuses,
// with out unchanged, a record longer than stream.MaxLine: the stages after
// shingle could not read it.
func (w *Worker) AppendRecord(out, id, text []byte) ([]byte, error) {
	w.hashes = w.sh.Append(w.hashes[:0], text)
	var distinct int
	if w.opt.Counts {
		w.sorter.Sort(w.hashes)
		distinct = countDistinct(w.hashes)
	} else {
		w.set = w.sorter.AppendSet(w.set[:0], w.hashes)
		w.hashes, w.set = w.set, w.hashes
		distinct = len(w.hashes)
	}
	// Each distinct hash takes 17 bytes or more ("h " or "h:c "), and the
	// id and a TAB come first, less the last space.
	n := len(id) + 17*distinct
	if n > stream.MaxLine {
		return out, tooLong("at least ", n)
	}
	// The record's room in one allocation (all of it without counts): a
	// huge document's record is not grown by doubling, which held it
	// about twice over.
	out = slices.Grow(out, n+1)
	start := len(out)
	if w.opt.Counts {
		out = record.AppendShingleCounts(out, id, w.hashes)
	} else {
		out = record.AppendShingles(out, id, w.hashes)
	}
	if n := len(out) - start - 1; n > stream.MaxLine {
		return out[:start], tooLong("", n)
	}
	return out, nil
}

// countDistinct counts the distinct values of sorted hashes.
func countDistinct(hashes []uint64) int {
	n := 0
	for i, h := range hashes {
		if i == 0 || h != hashes[i-1] {
			n++
		}
	}
	return n
}

// tooLong refuses a document whose shingle record would be n bytes.
func tooLong(atLeast string, n int) error {
	return record.Bad("the shingle record of this document would be %s%d bytes, more than the longest line the stages read, %d bytes: split the document", atLeast, n, stream.MaxLine)
}
