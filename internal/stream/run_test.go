package stream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/neardup/neardup/internal/record"
)

// echoWorker writes "ordinal TAB line" for each record line, after
// sleeping a random short time so that workers finish out of order. Lines
// that start with "bad" are bad input.
type echoWorker struct {
	rng     *rand.Rand
	skipBad bool
}

func (w *echoWorker) Process(c *Chunk, r *Result) {
	time.Sleep(time.Duration(w.rng.IntN(200)) * time.Microsecond)
	c.Lines(r, w.skipBad, func(line []byte, ordinal int64) error {
		if bytes.HasPrefix(line, []byte("bad")) {
			return record.Bad("bad line %q", line)
		}
		r.Out = fmt.Appendf(r.Out, "%d\t%s\n", ordinal, line)
		return nil
	})
}

func echoWorkers(skipBad bool) func() Worker {
	var n atomic.Uint64
	return func() Worker {
		return &echoWorker{rng: rand.New(rand.NewPCG(n.Add(1), 7)), skipBad: skipBad}
	}
}

// runEcho runs the echo workers over files with an Output sink and returns
// what it wrote, what it said on stderr and the error.
func runEcho(files []file, jobs int, skipBad bool) (string, string, error) {
	src := testLines(files, iotest.HalfReader)
	defer src.Close()
	var out, stderr bytes.Buffer
	// Line-buffered, so that what was written before an error shows.
	o := &Output{Stage: "test", W: record.NewWriter(&out, false, true, record.NewHeader("test")), Stderr: &stderr}
	err := Run(context.Background(), src, Common{Jobs: jobs, SkipBad: skipBad}, echoWorkers(skipBad), o.Sink)
	if err == nil {
		err = o.Finish()
	}
	return out.String(), stderr.String(), err
}

// echoed numbers lines from ordinal first on, as echoWorker does.
func echoed(first int, lines string) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(lines, "\n"), "\n") {
		fmt.Fprintf(&b, "%d\t%s\n", first+i, line)
	}
	return b.String()
}

func TestRunOrder(t *testing.T) {
	files := []file{
		{"a", "#neardup stage=shingle k=9\n" + numbered("a", 300)},
		{"b", ""},
		{"c", "#neardup stage=shingle k=9\n" + numbered("c", 200)},
	}
	// The headers of a and c are lines 1 and 302.
	want := "#neardup stage=shingle k=9\n#neardup stage=test\n" + echoed(2, numbered("a", 300)) + echoed(303, numbered("c", 200))
	for _, jobs := range []int{1, 2, 8, 0} {
		out, stderr, err := runEcho(files, jobs, false)
		if err != nil || stderr != "" {
			t.Fatalf("-j %d: %v %s", jobs, err, stderr)
		}
		if out != want {
			t.Errorf("-j %d: output differs from the input order\n got %s\nwant %s", jobs, clipped([]byte(out)), clipped([]byte(want)))
		}
	}
}

// A bad line stops the run with its place; what came before it is written
// and nothing after it.
func TestRunBadLine(t *testing.T) {
	files := []file{{"a", numbered("a", 100)}, {"b", numbered("b", 40) + "bad\n" + numbered("b2", 100)}}
	for _, jobs := range []int{1, 2, 8} {
		out, _, err := runEcho(files, jobs, false)
		if err == nil || err.Error() != `b:41: bad line "bad"` {
			t.Errorf("-j %d: error %v, want b:41: bad line", jobs, err)
		}
		if _, ok := err.(*record.Error); !ok {
			t.Errorf("-j %d: error is %T, want *record.Error", jobs, err)
		}
		if want := "#neardup stage=test\n" + echoed(1, numbered("a", 100)+numbered("b", 40)); out != want {
			t.Errorf("-j %d: wrote\n%s\nwant the 140 lines before the bad one", jobs, clipped([]byte(out)))
		}
	}
}

func TestRunSkipBad(t *testing.T) {
	files := []file{{"a", "bad 1\n" + numbered("a", 10) + "bad 2\n"}, {"b", numbered("b", 5) + strings.Repeat("bad x\n", 15)}}
	out, stderr, err := runEcho(files, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n != 1+15 {
		t.Errorf("%d lines written, want the header and 15 records", n)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) != 11 || lines[0] != `test: skipped a:1: bad line "bad 1"` || lines[1] != `test: skipped a:12: bad line "bad 2"` ||
		lines[2] != `test: skipped b:6: bad line "bad x"` || lines[10] != "test: skipped 17 bad line(s)" {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestRunSinkError(t *testing.T) {
	stop := errors.New("stop")
	for _, jobs := range []int{1, 2, 8} {
		src := testLines([]file{{"a", numbered("a", 200)}}, iotest.OneByteReader)
		calls := 0
		err := Run(context.Background(), src, Common{Jobs: jobs}, echoWorkers(false), func(r *Result) error {
			calls++
			if r.Seq != calls-1 {
				t.Errorf("-j %d: result %d given as call %d", jobs, r.Seq, calls)
			}
			if calls == 3 {
				return stop
			}
			return nil
		})
		if err != stop || calls != 3 {
			t.Errorf("-j %d: Run = %v after %d calls, want stop after 3", jobs, err, calls)
		}
		src.Close()
	}
}

func TestRunSourceError(t *testing.T) {
	src := testLines([]file{{"a", numbered("a", 20)}}, iotest.OneByteReader)
	src.names = append(src.names, "missing")
	calls := 0
	err := Run(context.Background(), src, Common{Jobs: 2}, echoWorkers(false), func(r *Result) error {
		calls++
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Run = %v, want the open error of missing", err)
	}
	if calls == 0 {
		t.Errorf("the chunks before the error were not given to the sink")
	}
}

func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := testLines([]file{{"a", numbered("a", 500)}}, iotest.OneByteReader)
	defer src.Close()
	calls := 0
	err := Run(ctx, src, Common{Jobs: 2}, echoWorkers(false), func(r *Result) error {
		calls++
		if calls == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if calls >= 500 {
		t.Errorf("cancelled run went on to the end (%d results)", calls)
	}
}

// blockedSource is a source whose Next never returns: a FIFO opened with no
// writer.
type blockedSource struct{ release chan struct{} }

func (b *blockedSource) Next() (*Chunk, error)    { <-b.release; return nil, nil }
func (b *blockedSource) Progress() (int64, int64) { return 0, -1 }
func (b *blockedSource) Close() error             { return nil }

// TestRunCancelBlockedSource checks that a cancelled run returns while the
// source is blocked in Next (SIGINT while shingle waits to open a FIFO).
func TestRunCancelBlockedSource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	src := &blockedSource{release: make(chan struct{})}
	defer close(src.release)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, src, Common{Jobs: 2}, echoWorkers(false), func(*Result) error { return nil })
	}()
	time.Sleep(10 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return when cancelled with its source blocked")
	}
}

// bigWorker writes 64 KiB for each record line, the line repeated, and
// passes its output on as it goes (Flush).
type bigWorker struct{ flush bool }

func (w bigWorker) Process(c *Chunk, r *Result) {
	c.Lines(r, false, func(line []byte, _ int64) error {
		for range (64 << 10) / (len(line) + 1) {
			r.Out = append(append(r.Out, line...), '\n')
		}
		if w.flush {
			return r.Flush()
		}
		return nil
	})
}

// A worker whose output per chunk is far larger than the chunk passes it on
// in pieces of about FlushSize, in order, whatever the number of workers.
func TestRunFlush(t *testing.T) {
	files := []file{{"a", "#neardup stage=shingle k=9\n" + numbered("a", 400)}, {"b", numbered("b", 300)}}
	run := func(jobs int, flush bool) (string, int) {
		src := testLines(files, func(r io.Reader) io.Reader { return r })
		defer src.Close()
		var out bytes.Buffer
		o := &Output{Stage: "test", W: record.NewWriter(&out, false, false)}
		largest := 0
		sink := func(r *Result) error {
			largest = max(largest, len(r.Out))
			return o.Sink(r)
		}
		if err := Run(context.Background(), src, Common{Jobs: jobs}, func() Worker { return bigWorker{flush} }, sink); err != nil {
			t.Fatal(err)
		}
		if err := o.Finish(); err != nil {
			t.Fatal(err)
		}
		if got := o.Records(); got != 700 {
			t.Errorf("-j %d: %d records counted, want 700", jobs, got)
		}
		return out.String(), largest
	}
	want, whole := run(1, false)
	if whole < 2*FlushSize {
		t.Fatalf("the test needs chunks whose output is over 2×FlushSize, got %d", whole)
	}
	for _, jobs := range []int{1, 2, 8} {
		got, largest := run(jobs, true)
		if got != want {
			t.Fatalf("-j %d: flushed output differs from the whole chunks' output", jobs)
		}
		if largest > FlushSize+64<<10 {
			t.Errorf("-j %d: a result held %d bytes, want at most FlushSize+64 KiB (%d)", jobs, largest, FlushSize+64<<10)
		}
	}
}

// A sink that stops the run while workers hold partial results leaves no
// worker waiting to hand on a result that nobody will take.
func TestRunFlushStopped(t *testing.T) {
	files := []file{{"a", numbered("a", 300000)}}
	before := runtime.NumGoroutine()
	src := testLines(files, func(r io.Reader) io.Reader { return r })
	stop := errors.New("stop")
	err := Run(context.Background(), src, Common{Jobs: 4}, func() Worker { return bigWorker{true} }, func(*Result) error {
		// Time for the other workers to pass on partial results.
		time.Sleep(100 * time.Millisecond)
		return stop
	})
	src.Close()
	if err != stop {
		t.Fatalf("got %v, want the sink's error", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left running after the run stopped (%d before)", n-before, before)
	}
}

// holdWorker holds each chunk (Result.Hold) and passes its data on with a
// checksum of it.
type holdWorker struct{}

type held struct {
	data []byte
	sum  uint64
}

func checksum(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

func (holdWorker) Process(c *Chunk, r *Result) {
	r.Hold(c)
	r.Value = held{c.Data, checksum(c.Data)}
}

// TestRunHold: a chunk a result holds is not read into again before the
// sink has taken the result, while the reader reads ahead into the
// buffers of the chunks released.
func TestRunHold(t *testing.T) {
	files := []file{{"a", numbered("a", 400000)}}
	src := testLines(files, func(r io.Reader) io.Reader { return r })
	defer src.Close()
	chunks := 0
	err := Run(context.Background(), src, Common{Jobs: 2}, func() Worker { return holdWorker{} }, func(r *Result) error {
		time.Sleep(2 * time.Millisecond) // the reader and the workers go ahead
		h := r.Value.(held)
		if checksum(h.data) != h.sum {
			return fmt.Errorf("chunk %d changed before the sink took it", r.Seq)
		}
		chunks++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if chunks < 5 {
		t.Fatalf("%d chunks: too few to reuse a buffer", chunks)
	}
}
