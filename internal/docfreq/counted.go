package docfreq

import (
	"context"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/stream"
)

// Counted says what Count counted.
type Counted struct {
	// Distinct is the number of distinct hashes, of any count.
	Distinct uint64
	// Spilled is the number of sorted runs spilled to TempDir: 0 when
	// the buffer held every hash.
	Spilled int
}

// countBatch is the entries of a run Count hands to fn.
const countBatch = 1 << 16

// Count counts the documents of the shingle records src reads per hash, as
// Run does (within opt.MemoryBytes, spilling sorted runs to opt.TempDir),
// and returns the table of the counts as Scan returns the one Run would
// have written: it calls fn, in ascending order, with each run of hashes of
// at least least documents and their counts (fn may keep the slices), and
// the table returned holds none of them (its Docs and ID are those of the
// table; it has no shingle header). check takes each chunk's result (its
// headers, the lines it skipped, an error) before its hashes are counted.
func Count(ctx context.Context, opt Options, src stream.Source, check func(*stream.Result) error, least uint32, fn func(hashes []uint64, counts []uint32)) (*Table, Counted, error) {
	var got Counted
	if err := opt.Resolve(); err != nil {
		return nil, got, err
	}
	c := newCounter(&opt, opt.Jobs)
	defer c.runs.Remove()
	docs, err := c.count(ctx, opt, src, check)
	if err != nil {
		return nil, got, err
	}
	d := xxhash.New()
	var raw []byte
	var hashes []uint64
	var counts []uint32
	flush := func() {
		if len(hashes) > 0 {
			fn(hashes, counts)
			hashes, counts = nil, nil
		}
	}
	emit := func(h, n uint64) error {
		if n == 0 { // the end of mergeSum's output
			return nil
		}
		got.Distinct++
		// A table's counts are read as 32 bits (Scan).
		count := uint32(min(n, 1<<32-1))
		if raw = appendIDEntry(raw, h, count); len(raw) >= idEntry*countBatch {
			d.Write(raw)
			raw = raw[:0]
		}
		if count >= least {
			if hashes == nil {
				hashes, counts = make([]uint64, 0, countBatch), make([]uint32, 0, countBatch)
			}
			hashes, counts = append(hashes, h), append(counts, count)
			if len(hashes) == countBatch {
				flush()
			}
		}
		return nil
	}
	if c.runs.Len() == 0 {
		err = c.each(emit)
	} else {
		if c.n > 0 {
			err = c.spill()
		}
		c.buf = nil
		if err == nil {
			err = mergeSum(ctx, runSources(c.runs.Readers()), emit)
		}
	}
	if err != nil {
		return nil, got, err
	}
	flush()
	d.Write(raw)
	got.Spilled = c.spilled
	return &Table{Docs: docs, ID: finishID(d, docs)}, got, nil
}
