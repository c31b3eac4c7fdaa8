package verify

import (
	"bytes"
	"context"
	"sync"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// readAhead reads the candidate pairs before the shingle or sketch file is
// loaded, so that only the documents that appear in some pair are loaded
// (most documents of a corpus are in none). It keeps the chunks it read and
// hands them out again, then the rest of the input. When the pairs are
// larger than the limit it stops reading ahead and every document is
// loaded.
type readAhead struct {
	src     *stream.Lines
	limit   int64
	kept    []*stream.Chunk
	ids     map[string]struct{}
	partial bool
	// mu guards kept and closed once the pool runs: its reader may be in
	// Next when the stage, stopped by an error, calls Close.
	mu     sync.Mutex
	closed bool
}

func newReadAhead(src *stream.Lines, limit int64) *readAhead {
	return &readAhead{src: src, limit: limit, ids: map[string]struct{}{}}
}

// fill reads ahead up to the limit.
func (r *readAhead) fill(ctx context.Context) error {
	var size int64
	for {
		if size > r.limit {
			r.partial = true
			return nil
		}
		c, err := r.src.Next()
		if err != nil {
			return err
		}
		if c == nil {
			return nil
		}
		r.kept = append(r.kept, c)
		size += int64(len(c.Data))
		r.collect(c.Data)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// collect notes the ids of the pair lines in data; malformed lines are
// reported later, when they are scored.
func (r *readAhead) collect(data []byte) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data[:i]
		data = data[i+1:]
		if record.IsHeader(line) {
			continue
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		a, b, err := record.ParsePair(line)
		if err != nil {
			continue
		}
		if _, ok := r.ids[string(a)]; !ok {
			r.ids[string(a)] = struct{}{}
		}
		if _, ok := r.ids[string(b)]; !ok {
			r.ids[string(b)] = struct{}{}
		}
	}
}

// needed returns the ids to load, or nil for all.
func (r *readAhead) needed() map[string]struct{} {
	if r.partial {
		return nil
	}
	return r.ids
}

// Next hands out the chunks read ahead, then the rest of the input.
func (r *readAhead) Next() (*stream.Chunk, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, nil
	}
	if len(r.kept) > 0 {
		c := r.kept[0]
		r.kept = r.kept[1:]
		r.mu.Unlock()
		return c, nil
	}
	r.mu.Unlock()
	return r.src.Next()
}

// Progress reports on the underlying input.
func (r *readAhead) Progress() (int64, int64) { return r.src.Progress() }

// Close releases the kept chunks and the input.
func (r *readAhead) Close() error {
	r.mu.Lock()
	r.closed = true
	kept := r.kept
	r.kept = nil
	r.mu.Unlock()
	for _, c := range kept {
		c.Release()
	}
	return r.src.Close()
}
