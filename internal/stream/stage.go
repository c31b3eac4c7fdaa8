package stream

import (
	"context"
	"io"
	"runtime"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
)

// Common holds the options every stage has. Each stage's Options embeds it,
// and the command line fills it from the flags in one place, so a flag that
// every stage takes is added here and there only.
type Common struct {
	// Jobs is the number of workers, at most MaxJobs; 0 means one per
	// core (Jobs).
	Jobs int
	// SkipBad skips malformed lines, counting and reporting them, instead
	// of stopping at the first.
	SkipBad bool
	// NoHeader leaves out the #neardup header lines.
	NoHeader bool
	// LineBuffered flushes the output as each batch of input is done.
	LineBuffered bool
	// Progress reports on standard error, every ProgressInterval, what has
	// been read.
	Progress bool
	// Counters writes Hadoop Streaming counters on standard error at the
	// end: records in and out, lines skipped.
	Counters bool
}

// MaxJobs is the most workers -j asks for: each holds its chunks of input
// in flight (two of about 1 MiB), and a channel of as many is made up
// front.
const MaxJobs = 1024

// Jobs resolves -j n, the one place where every stage's -j is checked and
// given its default: n workers, or when n is 0 one per core (GOMAXPROCS).
// A negative n or one past MaxJobs is a usage error.
func Jobs(n int) (int, error) {
	if n < 0 || n > MaxJobs {
		return 0, status.Usagef("-j %d: want 0 (one worker per core) to %d workers", n, MaxJobs)
	}
	if n > 0 {
		return n, nil
	}
	return runtime.GOMAXPROCS(0), nil
}

// WorkerFactory makes the Worker of one pool goroutine. Every stage that
// runs the pool exports its workers in this shape.
type WorkerFactory func() Worker

// NewOutput returns the Output of a stage that writes records to stdout
// after the header lines own, and warnings, progress and counters to
// stderr, as opt asks. A nil stdout discards the records and every header:
// the stage writes files, not a stream, and the Output only checks the
// input's headers and counts and reports.
func NewOutput(stage string, opt Common, stdout, stderr io.Writer, own ...record.Header) *Output {
	var w *record.Writer
	if stdout == nil {
		w = record.NewWriter(io.Discard, true, false)
	} else {
		w = record.NewWriter(stdout, opt.NoHeader, opt.LineBuffered, own...)
	}
	return &Output{Stage: stage, W: w, Stderr: stderr, opt: opt}
}

// Watch starts the progress report over src when the options ask for it
// and returns the function that stops it and prints the final line.
func (o *Output) Watch(src Source) (stop func()) {
	if !o.opt.Progress {
		return func() {}
	}
	return startProgress(o.Stage, o.Stderr, src, o.Records, o.Note)
}

// RunPool is the whole of a pool stage: it reads src, hands its chunks to
// the workers that workers makes, takes their results in input order and
// finishes the output (the summary, the skipped lines, the counters),
// reporting progress meanwhile when the options ask for it.
func (o *Output) RunPool(ctx context.Context, src Source, workers WorkerFactory) error {
	defer o.Watch(src)()
	if err := Run(ctx, src, o.opt, workers, o.Sink); err != nil {
		return err
	}
	return o.Finish()
}
