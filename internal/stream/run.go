package stream

import (
	"context"
	"sync"
)

// Worker turns a chunk into a result. Each worker goroutine gets its own
// Worker from the factory, so a Worker may keep scratch buffers.
type Worker interface {
	Process(c *Chunk, r *Result)
}

// Run reads chunks from src, hands them to opt.Jobs workers made by
// newWorker, and calls sink with each result in input order. It stops at the first error
// from src or sink and returns it; a result's Err is the sink's to handle.
func Run(ctx context.Context, src Source, opt Common, newWorker WorkerFactory, sink func(*Result) error) error {
	jobs, err := Jobs(opt.Jobs)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type task struct {
		chunk *Chunk
		// done carries the chunk's partial results (Result.Flush), then
		// its final one.
		done chan *Result
	}
	tasks := make(chan task, jobs)
	order := make(chan chan *Result, 2*jobs+2)
	var readErr error

	go func() {
		defer close(tasks)
		defer close(order)
		for {
			c, err := src.Next()
			if err != nil {
				readErr = err
				return
			}
			if c == nil {
				return
			}
			done := make(chan *Result, 1)
			select {
			case order <- done:
			case <-ctx.Done():
				c.Release()
				return
			}
			select {
			case tasks <- task{c, done}:
			case <-ctx.Done():
				c.Release()
				return
			}
		}
	}()

	var wg sync.WaitGroup
	for i := 0; i < jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker()
			for t := range tasks {
				r := &Result{Seq: t.chunk.Seq, done: t.done, ctx: ctx}
				r.buf = getBuf(&outPool, ChunkSize)
				r.Out = *r.buf
				if ctx.Err() == nil {
					w.Process(t.chunk, r)
				}
				if r.held != t.chunk {
					t.chunk.Release()
				}
				r.final = true
				// A partial result (Flush) may fill the channel: when the
				// run has stopped nobody takes them, and the worker must not
				// wait.
				select {
				case t.done <- r:
				case <-ctx.Done():
				}
			}
		}()
	}

	for {
		// The reader may be blocked in Next (opening a FIFO that has no
		// writer): a cancelled run returns without it.
		var done chan *Result
		var ok bool
		select {
		case done, ok = <-order:
		case <-ctx.Done():
			return ctx.Err()
		}
		if !ok {
			break
		}
		// A chunk's result may come in pieces (Result.Flush), the last
		// one final.
		for final := false; !final; {
			var r *Result
			select {
			case r = <-done:
			case <-ctx.Done():
				// The reader gives up a chunk it could not hand to a worker,
				// whose result would never come.
				return ctx.Err()
			}
			final = r.final
			err := sink(r)
			r.release()
			if err != nil {
				// The reader may be blocked on a slow input: do not wait for it.
				return err
			}
		}
	}
	wg.Wait()
	if readErr != nil {
		return readErr
	}
	return ctx.Err()
}

// FlushSize is the output a worker holds before it passes it on
// (Result.Flush): a chunk whose records each make a lot of output (a query
// that finds thousands of answers) is written as it goes, not held whole.
const FlushSize = ChunkSize

// Flush passes on what the result holds so far (output, headers, counts,
// skipped lines) as a partial result of its chunk, in order, when the output
// has reached FlushSize; the result goes on empty. A worker whose output per
// chunk can be much larger than the chunk calls it after each record. It
// waits while the partial result before it has not been taken, so that a
// worker holds at most two partial results; it returns the context's error
// when the run is stopped. Outside Run (no channel) it does nothing.
func (r *Result) Flush() error {
	if r.done == nil || len(r.Out) < FlushSize || r.Err != nil {
		return nil
	}
	p := &Result{Seq: r.Seq, Out: r.Out, Headers: r.Headers, Records: r.Records,
		Skipped: r.Skipped, NSkipped: r.NSkipped, Places: r.Places, buf: r.buf}
	*r = Result{Seq: r.Seq, done: r.done, ctx: r.ctx}
	r.buf = getBuf(&outPool, ChunkSize)
	r.Out = *r.buf
	select {
	case r.done <- p:
		return nil
	case <-r.ctx.Done():
		p.release()
		return r.ctx.Err()
	}
}

// Hold keeps c, the chunk the result is made of, until the sink has taken
// the result: the sink may then read c's Data where a worker would copy
// its lines to Out. Not with Flush, whose partial results do not hold it.
func (r *Result) Hold(c *Chunk) { r.held = c }

func (r *Result) release() {
	if r.held != nil {
		r.held.Release()
		r.held = nil
	}
	if r.buf != nil {
		*r.buf = r.Out[:0]
		putBuf(&outPool, r.buf)
		r.buf = nil
	}
	r.Out = nil
}
