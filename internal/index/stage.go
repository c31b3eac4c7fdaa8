package index

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Options configure the index stage's commands.
type Options struct {
	// Build parameters.
	K, Blocks, BlockSize int
	// Distance is the largest distance a query asks for; -1 means the
	// index's k.
	Distance int
	// Batch answers all queries at once (merging them with each table)
	// instead of one by one.
	Batch bool
	// Check makes stats read and check every block.
	Check bool

	stream.Common

	fs disk.FS
}

// checkSketchHeader refuses input that is not 64-bit simhash fingerprints.
func checkSketchHeader(h record.Header, pos record.Pos) error {
	if h.Stage != "sketch" {
		return nil
	}
	if m, _ := h.Get("method"); !record.IsFingerprints(m) {
		return record.Errorf(pos, "the index holds simhash fingerprints; the input holds %s sketches", m)
	}
	if f := h.Int("f", 64); f != 64 {
		return record.Errorf(pos, "the index holds 64-bit fingerprints; the input's have %d bits", f)
	}
	return nil
}

// recordChunk is a chunk of parsed sketch records.
type recordChunk struct {
	fps   []uint64
	ends  []int
	arena []byte
	empty int64
}

type recordWorker struct {
	skipBad bool
	sk      record.SimSketch
}

func (w *recordWorker) Process(c *stream.Chunk, r *stream.Result) {
	rc := &recordChunk{}
	c.Lines(r, w.skipBad, func(line []byte, _ int64) error {
		if err := record.ParseSimSketch(&w.sk, line); err != nil {
			return err
		}
		if w.sk.F != 64 {
			return record.Bad("a %d-bit fingerprint: the index holds 64-bit fingerprints", w.sk.F)
		}
		if w.sk.Size == 0 {
			rc.empty++
			return nil
		}
		rc.fps = append(rc.fps, w.sk.Hi)
		rc.arena = append(rc.arena, w.sk.ID...)
		rc.ends = append(rc.ends, len(rc.arena))
		return nil
	})
	r.Value = rc
}

// readRecords reads simhash sketch records into memory.
func readRecords(ctx context.Context, opt *Options, inputs []string, stderr io.Writer) (*Records, error) {
	src := stream.NewLines(inputs)
	defer src.Close()
	recs := &Records{}
	// The output is the index: records go nowhere, skipped lines are
	// reported.
	out := stream.NewOutput("index", opt.Common, nil, stderr)
	var empty int64
	out.Summary = func(stderr io.Writer) {
		if empty > 0 {
			fmt.Fprintf(stderr, "index: %d document(s) without shingles left out: they can't be near-duplicates of anything\n", empty)
		}
	}
	sink := func(r *stream.Result) error {
		for _, h := range r.Headers {
			if err := checkSketchHeader(h.Header, h.Pos); err != nil {
				return err
			}
			if _, err := recs.Headers.Add(h.Header, h.Pos); err != nil {
				return err
			}
		}
		out.Skip(r.Skipped, r.NSkipped)
		rc := r.Value.(*recordChunk)
		start := 0
		for i, fp := range rc.fps {
			recs.Add(fp, rc.arena[start:rc.ends[i]])
			start = rc.ends[i]
		}
		empty += rc.empty
		out.Count(r.Records)
		if recs.Len() >= 1<<32-1 {
			return fmt.Errorf("more than %d records: build the index in parts with index add", 1<<32-1)
		}
		return r.Err
	}
	defer out.Watch(src)()
	err := stream.Run(ctx, src, opt.Common, func() stream.Worker { return &recordWorker{skipBad: opt.SkipBad} }, sink)
	if err != nil {
		return nil, err
	}
	return recs, out.Finish()
}

// lockHolding is what the writer lock of an index says of its holder.
const lockHolding = "another index build or add is changing this index"

// RunBuild builds an index from simhash sketch records.
func RunBuild(ctx context.Context, opt Options, path string, inputs []string, stderr io.Writer) error {
	// The same lock as add's: a build at once with an add would replace
	// the index the add is merging its batch into, and lose one of them.
	unlock, err := disk.Lock(path+".lock", lockHolding)
	if err != nil {
		return err
	}
	defer unlock()
	recs, err := readRecords(ctx, &opt, inputs, stderr)
	if err != nil {
		return err
	}
	return Build(path, recs, BuildOptions{K: opt.K, Blocks: opt.Blocks, BlockSize: opt.BlockSize, Jobs: opt.Jobs, fs: opt.fs})
}

// RunAdd adds simhash sketch records to an index.
func RunAdd(ctx context.Context, opt Options, path string, inputs []string, stderr io.Writer) error {
	// Held from the batch read to the rename: two adds at once would each
	// write the old index with their own batch over the other's.
	unlock, err := disk.Lock(path+".lock", lockHolding)
	if err != nil {
		return err
	}
	defer unlock()
	recs, err := readRecords(ctx, &opt, inputs, stderr)
	if err != nil {
		return err
	}
	return Add(path, recs, AddOptions{Jobs: opt.Jobs, fs: opt.fs})
}

// parseQuery parses a query line: a simhash sketch record, or a bare
// fingerprint of 16 hex digits (its own id).
func parseQuery(line []byte, sk *record.SimSketch) (id []byte, fp uint64, skip bool, err error) {
	if fp, ok := record.ParseHex64(line); ok {
		return line, fp, false, nil
	}
	if err := record.ParseSimSketch(sk, line); err != nil {
		if len(line) != 16 && len(record.Key(line)) == len(line) {
			return nil, 0, false, record.Bad("want a simhash sketch record (id TAB size TAB fingerprint) or 16 hex digits, found %q", clip(line))
		}
		return nil, 0, false, err
	}
	if sk.F != 64 {
		return nil, 0, false, record.Bad("a %d-bit fingerprint: the index holds 64-bit fingerprints", sk.F)
	}
	return sk.ID, sk.Hi, sk.Size == 0, nil
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// QueryHeader is the header line of query output.
func (ix *Index) QueryHeader(k int) record.Header {
	return record.NewHeader("index", "f", "64", "k", strconv.Itoa(ix.Scheme.K), "blocks", strconv.Itoa(ix.Scheme.Blocks),
		"tables", strconv.Itoa(len(ix.Scheme.Tables)), "distance", strconv.Itoa(k))
}

// RunQuery answers queries: "query_id TAB stored_id TAB distance" for every
// stored fingerprint within the distance, by query in input order, then by
// distance and stored id.
func RunQuery(ctx context.Context, opt Options, path string, inputs []string, stdout, stderr io.Writer) error {
	ix, err := Open(path)
	if err != nil {
		return err
	}
	defer ix.Close()
	k := opt.Distance
	if k < 0 {
		k = ix.Scheme.K
	}
	if err := ix.checkK(k); err != nil {
		return err
	}
	src := stream.NewLines(inputs)
	defer src.Close()
	var set record.HeaderSet
	for _, h := range ix.Headers {
		set.Add(h, record.Pos{File: ix.Path})
	}
	out := stream.NewOutput("index", opt.Common, stdout, stderr, ix.QueryHeader(k))
	out.CheckHeader = func(h record.Header, pos record.Pos) error {
		if err := checkSketchHeader(h, pos); err != nil {
			return err
		}
		if h.Stage == "shingle" || h.Stage == "sketch" {
			if _, err := set.Add(h, pos); err != nil {
				return err
			}
		}
		return nil
	}
	if !opt.Batch {
		return out.RunPool(ctx, src, func() stream.Worker {
			return &queryWorker{s: ix.NewSearcher(), k: k, skipBad: opt.SkipBad}
		})
	}
	defer out.Watch(src)()
	if err := queryBatch(ctx, opt, ix, k, src, out); err != nil {
		return err
	}
	return out.Finish()
}

type queryWorker struct {
	s       *Searcher
	k       int
	skipBad bool
	sk      record.SimSketch
	matches []Match
	results []Result
	ids     [][]byte
}

func (w *queryWorker) Process(c *stream.Chunk, r *stream.Result) {
	c.Lines(r, w.skipBad, func(line []byte, _ int64) error {
		qid, fp, skip, err := parseQuery(line, &w.sk)
		if err != nil || skip {
			return err
		}
		w.matches, err = w.s.Search(w.matches[:0], fp, w.k)
		if err != nil {
			return err
		}
		w.results = w.results[:0]
		for _, m := range w.matches {
			w.ids, err = w.s.IDs(w.ids[:0], m.FP)
			if err != nil {
				return err
			}
			for _, id := range w.ids {
				w.results = append(w.results, Result{Dist: m.Dist, ID: bytes.Clone(id)})
			}
		}
		sortResults(w.results)
		for _, res := range w.results {
			r.Out = record.AppendDistance(r.Out, qid, res.ID, res.Dist)
		}
		// A query may have thousands of answers (a fingerprint that many
		// documents share): pass them on as they come, so that memory
		// holds one query's answers, not a chunk's.
		return r.Flush()
	})
}

// queryChunk is a chunk of parsed queries, for the batch mode.
type queryChunk struct {
	fps   []uint64
	ends  []int
	arena []byte
}

type batchReadWorker struct {
	skipBad bool
	sk      record.SimSketch
}

func (w *batchReadWorker) Process(c *stream.Chunk, r *stream.Result) {
	qc := &queryChunk{}
	c.Lines(r, w.skipBad, func(line []byte, _ int64) error {
		qid, fp, skip, err := parseQuery(line, &w.sk)
		if err != nil || skip {
			return err
		}
		qc.fps = append(qc.fps, fp)
		qc.arena = append(qc.arena, qid...)
		qc.ends = append(qc.ends, len(qc.arena))
		return nil
	})
	r.Value = qc
}

// queryBatch reads every query, then answers them with SearchBatch.
func queryBatch(ctx context.Context, opt Options, ix *Index, k int, src stream.Source, out *stream.Output) error {
	var qs Records
	sink := func(r *stream.Result) error {
		// Headers, skipped lines and errors as usual; the chunk has no
		// output yet.
		if err := out.Sink(r); err != nil {
			return err
		}
		qc := r.Value.(*queryChunk)
		start := 0
		for i, fp := range qc.fps {
			qs.Add(fp, qc.arena[start:qc.ends[i]])
			start = qc.ends[i]
		}
		return nil
	}
	err := stream.Run(ctx, src, opt.Common, func() stream.Worker { return &batchReadWorker{skipBad: opt.SkipBad} }, sink)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	jobs, err := stream.Jobs(opt.Jobs)
	if err != nil {
		return err
	}
	rs, err := ix.SearchBatch(qs.fps, k, jobs)
	if err != nil {
		return err
	}
	var buf []byte
	for i := range rs.Len() {
		res := rs.Result(i)
		buf = record.AppendDistance(buf, qs.id(res.Q), res.ID, res.Dist)
		if len(buf) >= 1<<16 || i == rs.Len()-1 {
			if _, err := out.W.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return nil
}

// Stats describes an index for people.
func Stats(ix *Index, check bool, w io.Writer) error {
	h := ix.Scheme
	lo, hi := h.KeyBitsRange()
	fmt.Fprintf(w, "index:        %s (format version %d)\n", ix.Path, Version)
	fmt.Fprintf(w, "fingerprints: %d distinct, %d records (fingerprint, id)\n", ix.Distinct, ix.Records)
	fmt.Fprintf(w, "layout:       64-bit fingerprints, distance ≤ %d, %d blocks of %s bits, %d tables keyed on %d-%d bits, %d fingerprints per block\n",
		h.K, h.Blocks, h.WidthList(), len(h.Tables), lo, hi, ix.BlockSize)
	for _, hd := range ix.Headers {
		fmt.Fprintf(w, "parameters:   %s\n", hd)
	}
	n := float64(max(ix.Distinct, 1))
	fmt.Fprintf(w, "%-7s %-8s %-10s %-8s %-14s %s\n", "table", "key", "blocks", "code", "bytes", "bytes/fingerprint (raw 8)")
	var total uint64
	for t, tb := range ix.tables {
		fmt.Fprintf(w, "%-7d %-8s %-10d %-8d %-14d %.2f\n", t, strconv.Itoa(h.Tables[t].KeyBits)+" bits", tb.blocks(), len(tb.code), tb.length, float64(tb.length)/n)
		total += tb.length
	}
	fmt.Fprintf(w, "%-7s %-8s %-10s %-8s %-14d %.2f (%.2f per table)\n", "all", "", "", "", total, float64(total)/n, float64(total)/n/float64(len(ix.tables)))
	fmt.Fprintf(w, "ids:          %d bytes, %.2f per record\n", ix.ids.length, float64(ix.ids.length)/float64(max(ix.Records, 1)))
	fmt.Fprintf(w, "file:         %d bytes, %.2f per fingerprint\n", ix.Size, float64(ix.Size)/n)
	blocks := 0
	for _, tb := range ix.tables {
		blocks += tb.blocks()
	}
	fmt.Fprintf(w, "memory:       %d bytes in memory (%.1f per block of %d fingerprints, %.2f per fingerprint); the blocks are read from the file as needed\n",
		ix.MemoryBytes(), float64(ix.MemoryBytes())/float64(max(blocks, 1)), ix.BlockSize, float64(ix.MemoryBytes())/n)
	if check {
		if err := ix.Check(); err != nil {
			return err
		}
		fmt.Fprintf(w, "check:        every block read and its checksum, order and count verified\n")
	}
	return nil
}

// Check reads every block of the index and verifies checksums, order and
// counts.
func (ix *Index) Check() error {
	for t := range ix.tables {
		var n uint64
		first := true
		var prev uint64
		err := ix.tableSeq(t)(func(v uint64) bool {
			if !first && v <= prev {
				return false
			}
			first, prev = false, v
			n++
			return true
		})
		if err != nil {
			return err
		}
		if n != ix.Distinct {
			return ix.corrupt("table %d holds %d fingerprints, not %d in order", t, n, ix.Distinct)
		}
	}
	var records uint64
	ok := true
	err := ix.entrySeq()(func(fp uint64, ids [][]byte) bool {
		records += uint64(len(ids))
		ok = slices.IsSortedFunc(ids, bytes.Compare)
		return ok
	})
	if err != nil {
		return err
	}
	if !ok || records != ix.Records {
		return ix.corrupt("the id blocks hold %d records, not %d in order", records, ix.Records)
	}
	return nil
}
