package stream

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/neardup/neardup/internal/record"
)

// Output is the usual sink of a stage: it checks and passes on header lines,
// writes records, reports skipped lines and stops at the first error.
type Output struct {
	// Stage names the stage in messages.
	Stage string
	W     *record.Writer
	// Stderr receives warnings.
	Stderr io.Writer
	// CheckHeader, if set, is called with each header read; an error stops
	// the stage (a header that does not fit the stage's parameters).
	CheckHeader func(h record.Header, pos record.Pos) error
	// Unit names what a skipped input is in the report ("line" if empty).
	Unit string
	// Summary, if set, writes the stage's own report on Stderr when the
	// output is finished, before the count of skipped lines.
	Summary func(stderr io.Writer)
	// Note, if set before Watch, adds to each progress line what the stage
	// is doing besides reading (pairs: the pairs tried so far).
	Note func() string
	// Places, if set, takes the Places of each result, in order.
	Places io.Writer
	// RecordsOf, if set, names the stage whose records the input holds:
	// its header must come before them in every file (HeaderOrder).
	RecordsOf string

	order HeaderOrder

	opt      Common
	records  atomic.Int64
	skipped  int64
	reported int
}

// maxSkippedReported is how many skipped lines are named on stderr.
const maxSkippedReported = 10

// Sink takes one result; it is the sink argument of Run.
func (o *Output) Sink(r *Result) error {
	if o.RecordsOf != "" {
		o.order.Stage = o.RecordsOf
		if err := o.order.Check(r); err != nil {
			return err
		}
	}
	for _, h := range r.Headers {
		if o.CheckHeader != nil {
			if err := o.CheckHeader(h.Header, h.Pos); err != nil {
				return err
			}
		}
		if err := o.W.Header(h.Header, h.Pos); err != nil {
			return err
		}
	}
	o.W.Touch()
	if len(r.Out) > 0 {
		if _, err := o.W.Write(r.Out); err != nil {
			return err
		}
	}
	if o.Places != nil && len(r.Places) > 0 {
		if _, err := o.Places.Write(r.Places); err != nil {
			return err
		}
	}
	o.records.Add(r.Records)
	o.Skip(r.Skipped, r.NSkipped)
	return r.Err
}

// Skip reports skipped lines: the first few by place, all in the count.
func (o *Output) Skip(errs []*record.Error, n int64) {
	o.skipped += n
	for _, e := range errs {
		if o.reported < maxSkippedReported && o.Stderr != nil {
			fmt.Fprintf(o.Stderr, "%s: skipped %s\n", o.Stage, e)
			o.reported++
		}
	}
}

// Records returns how many records have been taken so far.
func (o *Output) Records() int64 { return o.records.Load() }

// counter writes a Hadoop Streaming counter line,
// "reporter:counter:neardup,STAGE NAME,N", when the options ask for them.
func (o *Output) counter(name string, n int64) {
	if o.opt.Counters {
		fmt.Fprintf(o.Stderr, "reporter:counter:neardup,%s %s,%d\n", o.Stage, name, n)
	}
}

// Finish writes the stage's summary, reports the number of skipped lines,
// flushes the output and writes the counters: records in and out, lines
// skipped.
func (o *Output) Finish() error {
	if o.Summary != nil {
		o.Summary(o.Stderr)
	}
	unit := o.Unit
	if unit == "" {
		unit = "line"
	}
	if o.skipped > 0 && o.Stderr != nil {
		fmt.Fprintf(o.Stderr, "%s: skipped %d bad %s(s)\n", o.Stage, o.skipped, unit)
	}
	err := o.W.Close()
	o.counter("records in", o.records.Load())
	o.counter("records out", o.W.Records())
	o.counter("bad "+unit+"s skipped", o.skipped)
	return err
}

// Bad handles an error found in the line at pos by a stage that reads its
// input in order: under skipBad a *record.LineError is counted and reported
// and Bad returns nil; otherwise it returns the error with its place.
func (o *Output) Bad(err error, pos record.Pos, skipBad bool) error {
	if le, ok := err.(*record.LineError); ok {
		re := &record.Error{Pos: pos, Msg: le.Msg}
		if skipBad {
			o.Skip([]*record.Error{re}, 1)
			return nil
		}
		return re
	}
	return err
}

// Count adds n to the records taken, for progress reports.
func (o *Output) Count(n int64) { o.records.Add(n) }
