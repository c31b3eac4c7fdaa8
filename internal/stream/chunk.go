package stream

import (
	"bytes"
	"context"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
)

// Chunk is a run of whole lines from one input, or a batch of whole files.
type Chunk struct {
	// Seq numbers chunks from 0 in input order.
	Seq int
	// File names the input the lines come from.
	File string
	// Format is the input's document format, as Lines resolved it
	// (input.FileFormat); "" from other sources.
	Format string
	// FirstLine is the line number of the first line in Data, in its file.
	FirstLine int64
	// FirstOrdinal is the number of the first line in Data counted across
	// all inputs, as if they were concatenated.
	FirstOrdinal int64
	// Data holds whole lines, each ending in '\n'.
	Data []byte
	// Input numbers the input the lines come from, from 1, and Offset is
	// where Data starts in it: a byte offset of the file as stored, or -1
	// when there is none (a compressed input, not a regular file, one read
	// as records). Lines sets both; other sources leave them 0.
	Input  int
	Offset int64
	// Places, when set, are the places of the lines of Data, one each:
	// lines read one by one from where an offsets file puts them
	// (internal/offsets), not in a run.
	Places []LinePlace
	// Docs holds whole files when the source reads one file per document.
	Docs []FileDoc
	// Skipped holds files that could not be read, under SkipBad.
	Skipped []*record.Error
	// Value carries what a source attaches to a chunk for its workers
	// (verify's join: the records of the sorted file that the chunk's
	// lines name).
	Value any

	buf *[]byte
}

// FileDoc is one file read whole, or one record of an input read as
// records (then Record is set and Name is the input's name).
type FileDoc struct {
	Name   string
	Data   []byte
	Record *input.Record
}

// LinePlace is the place of a line: its line number in its file and its
// ordinal across all inputs (Chunk.FirstLine and FirstOrdinal).
type LinePlace struct{ Line, Ordinal int64 }

// HeaderAt is a header line and where it was read.
type HeaderAt struct {
	Header record.Header
	Pos    record.Pos
}

// Result is what a worker makes of a chunk.
type Result struct {
	Seq int
	// Out holds output records.
	Out []byte
	// Headers holds the header lines of the chunk, in order.
	Headers []HeaderAt
	// Records counts the records the chunk held.
	Records int64
	// Err is the first error that stopped the chunk; Out holds the output
	// of the lines before it.
	Err error
	// Skipped holds the first errors of lines skipped under --skip-bad and
	// NSkipped counts them all.
	Skipped  []*record.Error
	NSkipped int64
	// Value carries what a worker makes of a chunk when it is not output
	// bytes (parsed records for a stage that loads a file).
	Value any
	// Places holds the offsets records of the chunk's documents (shingle
	// --offsets), which the Output writes to its Places in order.
	Places []byte
	// Start is the place of the chunk's first line, and FirstRecord that
	// of its first record line (Line 0 when it has none), set by Lines:
	// where the header lines stand among the records (HeaderOrder).
	Start, FirstRecord record.Pos

	buf *[]byte
	// held is the chunk the result refers to (Hold), released with it.
	held *Chunk
	// done and ctx pass partial results on (Flush); final marks the last
	// result of a chunk.
	done  chan *Result
	ctx   context.Context
	final bool
}

// maxSkippedKept is how many skipped-line errors a result keeps for the
// report; all are counted.
const maxSkippedKept = 10

// Lines calls fn for each record line of the chunk, without its line end.
// Header lines go to r.Headers. An error from fn stops the chunk (r.Err, with
// the line's place) unless skipBad is set and the error is a
// *record.LineError, in which case the line is counted as skipped.
//
// fn also gets the line's ordinal: its number counted across all inputs.
func (c *Chunk) Lines(r *Result, skipBad bool, fn func(line []byte, ordinal int64) error) {
	data := c.Data
	lineNo := c.FirstLine
	ordinal := c.FirstOrdinal
	places := c.Places
	if len(places) > 0 {
		lineNo = places[0].Line
	}
	r.Start = record.Pos{File: c.File, Line: lineNo}
	for len(data) > 0 {
		if len(places) > 0 {
			lineNo, ordinal = places[0].Line, places[0].Ordinal
			places = places[1:]
		}
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if record.IsHeader(line) {
			h, err := record.ParseHeader(line)
			if err != nil {
				r.Err = &record.Error{Pos: record.Pos{File: c.File, Line: lineNo}, Msg: err.Error()}
				return
			}
			r.Headers = append(r.Headers, HeaderAt{h, record.Pos{File: c.File, Line: lineNo}})
			lineNo++
			ordinal++
			continue
		}
		if r.FirstRecord.Line == 0 {
			r.FirstRecord = record.Pos{File: c.File, Line: lineNo}
		}
		r.Records++
		if err := fn(line, ordinal); err != nil {
			if !r.Fail(err, record.Pos{File: c.File, Line: lineNo}, skipBad) {
				return
			}
		}
		lineNo++
		ordinal++
	}
}

// Fail records err found at pos. It returns true when the error was a bad
// line that skipBad lets the stage skip, false when the chunk must stop.
func (r *Result) Fail(err error, pos record.Pos, skipBad bool) bool {
	le, isLine := err.(*record.LineError)
	if !isLine {
		if re, ok := err.(*record.Error); ok {
			if skipBad {
				r.skip(re)
				return true
			}
			r.Err = re
			return false
		}
		r.Err = err
		return false
	}
	re := &record.Error{Pos: pos, Msg: le.Msg}
	if skipBad {
		r.skip(re)
		return true
	}
	r.Err = re
	return false
}

func (r *Result) skip(e *record.Error) {
	r.NSkipped++
	if len(r.Skipped) < maxSkippedKept {
		r.Skipped = append(r.Skipped, e)
	}
}
