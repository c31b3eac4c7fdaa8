package verify

import (
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/internal/stream"
)

// pairReader reads the chunks of pair lines that the tables take, one
// after another. For numbered tables a goroutine reads ahead, up to
// aheadChunks, while jobs more parse what it has read (parseNumbered),
// and the table takes the chunks in order: what was read past the end of
// one table goes to the next, so that where a table ends does not depend
// on the cores. Tables of other ids take the chunks as read.
type pairReader struct {
	lines    *stream.Lines
	numbered bool
	jobs     int
	// The numbered tables' pipeline: order has the chunks in order, each
	// as a channel its parse comes on; held counts the bytes of those
	// read and not yet taken; err is the reader's, once order is closed.
	order chan chan parsedChunk
	held  atomic.Int64
	stop  chan struct{}
	err   error
	wg    sync.WaitGroup
}

type parsedChunk struct {
	c  *stream.Chunk
	nl *numberedLines
}

// aheadChunks is how many chunks of a numbered table are read ahead.
const aheadChunks = 4

// next returns the next chunk and, for a numbered table, its lines
// parsed; nil at the end.
func (r *pairReader) next() (*stream.Chunk, *numberedLines, error) {
	if !r.numbered {
		c, err := r.lines.Next()
		return c, nil, err
	}
	if r.order == nil {
		r.start()
	}
	done, ok := <-r.order
	if !ok {
		r.wg.Wait()
		return nil, nil, r.err
	}
	p := <-done
	r.held.Add(-int64(cap(p.c.Data)) - p.nl.bytes())
	return p.c, p.nl, nil
}

// start starts the reader and the parsers.
func (r *pairReader) start() {
	r.order = make(chan chan parsedChunk, aheadChunks)
	r.stop = make(chan struct{})
	type task struct {
		c    *stream.Chunk
		done chan parsedChunk
	}
	tasks := make(chan task, aheadChunks)
	r.wg.Go(func() {
		defer close(r.order)
		defer close(tasks)
		for {
			c, err := r.lines.Next()
			if err != nil || c == nil {
				r.err = err
				return
			}
			r.held.Add(int64(cap(c.Data)))
			done := make(chan parsedChunk, 1)
			select {
			case <-r.stop:
				c.Release()
				return
			default:
			}
			select {
			case r.order <- done:
			case <-r.stop:
				c.Release()
				return
			}
			tasks <- task{c, done}
		}
	})
	for range max(r.jobs, 1) {
		r.wg.Go(func() {
			for t := range tasks {
				nl := parseNumbered(t.c.Data)
				r.held.Add(nl.bytes())
				t.done <- parsedChunk{t.c, nl}
			}
		})
	}
}

// bytes is what the chunks read ahead hold: those read, and one more the
// reader may be reading.
func (r *pairReader) bytes() int64 {
	if r.order == nil {
		return 0
	}
	return r.held.Load() + stream.ChunkSize
}

// release stops the reading ahead and lets go of the chunks read. It
// does not wait for the reader, which may be waiting for input.
func (r *pairReader) release() {
	if r.order == nil {
		return
	}
	close(r.stop)
	for {
		select {
		case done, ok := <-r.order:
			if !ok {
				return
			}
			(<-done).c.Release()
		default:
			return
		}
	}
}
