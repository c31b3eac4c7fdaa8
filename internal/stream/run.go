package stream

import (
	"context"
	"runtime"
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
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type task struct {
		chunk *Chunk
		done  chan *Result
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
				r := &Result{Seq: t.chunk.Seq}
				r.buf = getBuf(&outPool, ChunkSize)
				r.Out = *r.buf
				if ctx.Err() == nil {
					w.Process(t.chunk, r)
				}
				t.chunk.Release()
				t.done <- r
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
		var r *Result
		select {
		case r = <-done:
		case <-ctx.Done():
			// The reader gives up a chunk it could not hand to a worker,
			// whose result would never come.
			return ctx.Err()
		}
		err := sink(r)
		r.release()
		if err != nil {
			// The reader may be blocked on a slow input: do not wait for it.
			return err
		}
	}
	wg.Wait()
	if readErr != nil {
		return readErr
	}
	return ctx.Err()
}

func (r *Result) release() {
	if r.buf != nil {
		*r.buf = r.Out[:0]
		putBuf(&outPool, r.buf)
		r.buf = nil
	}
	r.Out = nil
}
