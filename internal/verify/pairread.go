package verify

import (
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/internal/stream"
)

// pairReader reads the chunks of pair lines that the tables take, one
// after another. For numbered tables it reads a few at once and parses
// them (parseNumbered) on every core, ahead of the table, which takes them
// in order: what was read past the end of one table goes to the next, so
// that where a table ends does not depend on the cores.
type pairReader struct {
	lines    *stream.Lines
	numbered bool
	jobs     int
	ahead    []parsedChunk
	eof      bool
}

type parsedChunk struct {
	c  *stream.Chunk
	nl *numberedLines
}

// aheadChunks is how many chunks of a numbered table are read and parsed
// at once.
const aheadChunks = 4

// next returns the next chunk and, for a numbered table, its lines
// parsed; nil at the end.
func (r *pairReader) next() (*stream.Chunk, *numberedLines, error) {
	if len(r.ahead) == 0 && !r.eof {
		n := 1
		if r.numbered {
			n = aheadChunks
		}
		for len(r.ahead) < n {
			c, err := r.lines.Next()
			if err != nil {
				return nil, nil, err
			}
			if c == nil {
				r.eof = true
				break
			}
			r.ahead = append(r.ahead, parsedChunk{c: c})
		}
		if r.numbered {
			r.parse()
		}
	}
	if len(r.ahead) == 0 {
		return nil, nil, nil
	}
	p := r.ahead[0]
	r.ahead = append(r.ahead[:0], r.ahead[1:]...)
	return p.c, p.nl, nil
}

// parse parses the chunks read ahead on up to jobs cores.
func (r *pairReader) parse() {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(min(r.jobs, len(r.ahead)), 1) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(r.ahead); i = int(next.Add(1) - 1) {
				r.ahead[i].nl = parseNumbered(r.ahead[i].c.Data)
			}
		})
	}
	wg.Wait()
}

// bytes is what the chunks read ahead hold.
func (r *pairReader) bytes() int64 {
	n := int64(0)
	for _, p := range r.ahead {
		n += int64(cap(p.c.Data))
		if p.nl != nil {
			n += p.nl.bytes()
		}
	}
	return n
}

// release lets go of the chunks read ahead.
func (r *pairReader) release() {
	for _, p := range r.ahead {
		p.c.Release()
	}
	r.ahead = nil
}
