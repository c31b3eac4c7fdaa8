package record

import (
	"bufio"
	"bytes"
	"io"
	"slices"
)

// Writer writes a stage's records after the header lines: the upstream
// headers it is given (each distinct one once) and the stage's own. Headers
// are written only once some input has been seen, so an empty input gives an
// empty output.
type Writer struct {
	w            *bufio.Writer
	own          []Header
	noHeader     bool
	lineBuffered bool
	upstream     HeaderSet
	touched      bool
	ownDone      bool
	pending      []Header // headers read before own is written
	records      int64
	err          error
}

// WriterBufferSize is the size of the output buffer.
const WriterBufferSize = 1 << 20

// NewWriter returns a Writer to w that adds own after the upstream headers.
// With noHeader set no header line is written. With lineBuffered set every
// Write is flushed at once (for live streams).
func NewWriter(w io.Writer, noHeader, lineBuffered bool, own ...Header) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, WriterBufferSize), own: own, noHeader: noHeader, lineBuffered: lineBuffered}
}

// Upstream returns the headers read so far.
func (w *Writer) Upstream() *HeaderSet { return &w.upstream }

// Header takes a header read from the input at pos. A header already seen is
// dropped, a new one is written, and one that conflicts with a header already
// seen for the same stage is an error.
func (w *Writer) Header(h Header, pos Pos) error {
	w.touched = true
	if h.Stage == AttachStage {
		return Errorf(pos, "the input holds attached pairs (%s), written by verify --attach: only verify --sorted reads them, sorted by their first field (LC_ALL=C sort -t$'\\t' -k1,1)", h)
	}
	for _, o := range w.own {
		if o.Stage == h.Stage {
			return Errorf(pos, "input already went through %s (%s); this run would add %s", h.Stage, h, o)
		}
	}
	isNew, err := w.upstream.Add(h, pos)
	if err != nil || !isNew {
		return err
	}
	if !w.ownDone {
		w.pending = append(w.pending, h)
		return nil
	}
	if w.noHeader {
		return nil
	}
	return w.writeLine(h)
}

func (w *Writer) writeLine(h Header) error {
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.WriteString(h.String()); err != nil {
		w.err = err
		return err
	}
	w.err = w.w.WriteByte('\n')
	return w.err
}

// Secondary takes a header of a secondary input (a file a stage loads
// beside its main input, such as verify --shingles). It is checked against
// the others like any header and written with them; unlike a header of the
// main input it does not count as input seen: if the main input is empty,
// nothing is written.
func (w *Writer) Secondary(h Header, pos Pos) error {
	touched := w.touched
	err := w.Header(h, pos)
	w.touched = touched
	return err
}

// Touch notes that input has been seen, so that Close writes the headers
// even if no record follows.
func (w *Writer) Touch() { w.touched = true }

func (w *Writer) writeOwn() error {
	w.ownDone = true
	if w.noHeader {
		return nil
	}
	// Headers read before the first record are written in pipeline order,
	// whatever order they came in (sort, or a shuffle between mapper and
	// reducer, moves header lines too).
	slices.SortStableFunc(w.pending, func(a, b Header) int { return StageRank(a.Stage) - StageRank(b.Stage) })
	for _, h := range append(w.pending, w.own...) {
		if err := w.writeLine(h); err != nil {
			return err
		}
	}
	return nil
}

// Write writes whole records.
func (w *Writer) Write(b []byte) (int, error) {
	w.touched = true
	if !w.ownDone {
		if err := w.writeOwn(); err != nil {
			return 0, err
		}
	}
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(b)
	w.records += int64(bytes.Count(b[:n], []byte{'\n'}))
	if err != nil {
		w.err = err
		return n, err
	}
	if w.lineBuffered {
		if err := w.w.Flush(); err != nil {
			w.err = err
			return n, err
		}
	}
	return n, nil
}

// Records returns the number of records written.
func (w *Writer) Records() int64 { return w.records }

// Flush writes out what is buffered.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.w.Flush()
	return w.err
}

// Close writes the headers if input was seen and none were written, and
// flushes. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.touched && !w.ownDone {
		if err := w.writeOwn(); err != nil {
			return err
		}
	}
	return w.Flush()
}

// SetOwn sets the stage's own header lines, for a stage that knows them
// only after loading its secondary inputs. It must be called before any
// record is written.
func (w *Writer) SetOwn(own ...Header) { w.own = own }
