package band

import (
	"context"
	"io"

	"github.com/neardup/neardup/internal/docfreq"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Without --df, in corpus mode, band counts the document frequencies of its
// own input, which are what docfreq's table of it would hold: a pass before
// the two of probe.go, through docfreq's counter (docfreq.Count: a buffer of
// --memory, sorted runs spilled to --temp-dir), whose entries go straight
// into the dfMap, no table written and parsed back. The header's df= and
// df-docs= are those of that table, so that the output is byte for byte
// that of band --df on docfreq's table. The counting pass is the first to
// read the input: an input that can't be read again is copied by it.

// countDF counts the document frequencies of the shingle records of inputs
// and returns their map (of df ≥ 2) and the table they make (its ID and
// Docs alone). It checks each header with check, and refuses two different
// headers of one stage as the output would.
func countDF(ctx context.Context, opt Options, inputs []string, sp *spool, check func(record.Header, record.Pos) error, stderr io.Writer, st *containStats) (*dfMap, *docfreq.Table, error) {
	co := *opt.Containment
	src := stream.NewLinesOpen(inputs, sp.open)
	defer src.Close()
	var seen record.HeaderSet
	sink := func(r *stream.Result) error {
		for _, h := range r.Headers {
			if err := check(h.Header, h.Pos); err != nil {
				return err
			}
			if _, err := seen.Add(h.Header, h.Pos); err != nil {
				return err
			}
		}
		return r.Err
	}
	// The pass counts no records (the third does), but shows how far it
	// has read.
	pass := stream.NewOutput("band", opt.Common, nil, stderr)
	pass.Note = func() string { return "first of three passes: counting the document frequencies (no --df)" }
	stop := pass.Watch(src)
	var runs [][]uint64
	var counts [][]uint32
	n := 0
	dopt := docfreq.Options{MemoryBytes: co.MemoryBytes, TempDir: co.TempDir, Common: opt.Common}
	t, counted, err := docfreq.Count(ctx, dopt, src, sink, 2, func(h []uint64, c []uint32) {
		runs, counts, n = append(runs, h), append(counts, c), n+len(h)
	})
	stop()
	sp.endPass()
	if err != nil {
		return nil, nil, err
	}
	st.counted, st.countedDocs, st.kept = &counted, t.Docs, n
	return newDFMap(n, runs, counts, opt.Jobs), t, nil
}
