package bandindex

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Options configure the bandindex commands.
type Options struct {
	// MemoryBytes bounds the records build and add hold (their bytes and
	// 16 more each): past it they are written as a run and the rest of
	// the batch goes to further runs.
	MemoryBytes int64
	// MaxRuns is how many runs merge leaves (at least 1).
	MaxRuns int

	stream.Common

	fs fileSystem
	// atOnce, when above 0, is the runs held open at once in place of
	// what the open-file limit allows.
	atOnce int
}

// budget returns the runs the command holds open at once.
func (o *Options) budget() budget {
	if o.atOnce > 0 {
		return budget{files: o.atOnce, runs: o.atOnce}
	}
	return fileBudget()
}

func (o *Options) fsys() fileSystem {
	if o.fs == nil {
		return osFS{}
	}
	return o.fs
}

// limit is MemoryBytes resolved (0 is stream's default), stream.BufferFloor at
// least.
func (o *Options) limit() int64 { return max(stream.Memory(o.MemoryBytes), stream.BufferFloor) }

// readBatch reads band records, giving each header to onHeader, the place
// of the first record to onFirst (when not nil), and each record to add.
func readBatch(ctx context.Context, opt *Options, inputs []string, stderr io.Writer,
	onHeader func(record.Header, record.Pos) error, onFirst func(record.Pos) error, add func(key, id []byte) error) error {
	src := stream.NewLines(inputs)
	sc := stream.NewScanner(src)
	defer sc.Close()
	contain := false
	sc.OnHeader = func(h record.Header, pos record.Pos) error {
		contain = contain || isContainment(h)
		return onHeader(h, pos)
	}
	var cb record.ContainBand
	// The output is the index: records go nowhere, bad lines are reported.
	out := stream.NewOutput("bandindex", opt.Common, nil, stderr)
	defer out.Watch(src)()
	first := true
	for sc.Scan() {
		if first && onFirst != nil {
			if err := onFirst(sc.Pos()); err != nil {
				return err
			}
		}
		first = false
		key, id, err := record.ParseBand(sc.Line())
		if contain {
			// The record's tail after its key is stored as its id.
			if err = record.ParseContainBand(&cb, sc.Line()); err == nil {
				key, id = cb.Key, sc.Line()[len(cb.Key)+1:]
			}
		} else if err != nil && record.ParseContainBand(&cb, sc.Line()) == nil {
			err = record.Bad("a containment band record (band --containment) without a containment band header: the index needs the header (scheme=containment) to check it")
		}
		if err != nil {
			if err := out.Bad(err, sc.Pos(), opt.SkipBad); err != nil {
				return err
			}
			continue
		}
		if err := add(key, id); err != nil {
			return err
		}
		out.Count(1)
		if out.Records()%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return out.Finish()
}

func reportRepeated(stderr io.Writer, n int) {
	if n > 0 {
		fmt.Fprintf(stderr, "bandindex: %d repeated (key, id) record(s) of the batch stored once\n", n)
	}
}

// RunBuild makes a new index in dir (made if missing; it must hold no
// index) from band records.
func RunBuild(ctx context.Context, opt Options, dir string, inputs []string, stderr io.Writer) error {
	fsys := opt.fsys()
	if err := fsys.MkdirAll(dir); err != nil {
		return err
	}
	unlock, err := fsys.Lock(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if f, err := fsys.Open(filepath.Join(dir, manifestName)); err == nil {
		f.Close()
		return &record.Error{Pos: record.Pos{File: dir}, Msg: "already a band index: add records to it with bandindex add"}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	m := &manifest{next: 1}
	// Files of a build that was interrupted.
	if err := removeLeftovers(fsys, dir, m); err != nil {
		return err
	}
	bw := &batchWriter{fs: fsys, dir: dir, m: m, limit: opt.limit()}
	var headers record.HeaderSet
	tr := newBatchTracker()
	onHeader := func(h record.Header, pos record.Pos) error {
		if err := checkScheme(h, pos); err != nil {
			return err
		}
		if _, err := headers.Add(h, pos); err != nil {
			return err
		}
		return tr.header(h, pos)
	}
	if err := readBatch(ctx, &opt, inputs, stderr, onHeader, nil, tr.adding(bw.add)); err != nil {
		bw.abort()
		return err
	}
	if err := tr.overlap(); err != nil {
		bw.abort()
		return err
	}
	m.headers = headers.All()
	m.batches = tr.batches
	if err := bw.commit(); err != nil {
		return err
	}
	reportRepeated(stderr, bw.repeated)
	return nil
}

// RunAdd adds a batch of band records to the index in dir as new runs. The
// batch's header lines must be the index's.
func RunAdd(ctx context.Context, opt Options, dir string, inputs []string, stderr io.Writer) error {
	fsys := opt.fsys()
	unlock, err := fsys.Lock(dir)
	if err != nil {
		return err
	}
	defer unlock()
	ix, err := open(fsys, dir, opt.budget())
	if err != nil {
		return err
	}
	defer ix.Close()
	if err := removeLeftovers(fsys, dir, ix.m); err != nil {
		return err
	}
	m := *ix.m
	m.runs = append([]runEntry(nil), m.runs...)
	bw := &batchWriter{fs: fsys, dir: dir, m: &m, limit: opt.limit()}
	var batch record.HeaderSet
	tr := newBatchTracker()
	var samePos record.Pos
	onHeader := func(h record.Header, pos record.Pos) error {
		if err := ix.CheckHeader(h, pos); err != nil {
			return err
		}
		if same, err := ix.CheckBatch(h, pos); err != nil {
			return err
		} else if same {
			samePos = pos
			return errSameBatch
		}
		if _, err := batch.Add(h, pos); err != nil {
			return err
		}
		return tr.header(h, pos)
	}
	onFirst := func(pos record.Pos) error { return ix.CheckComplete(&batch, pos) }
	err = readBatch(ctx, &opt, inputs, stderr, onHeader, onFirst, tr.adding(bw.add))
	if err == nil {
		err = tr.overlap()
	}
	if err != nil {
		bw.abort()
		if errors.Is(err, errSameBatch) {
			SameBatchNote(stderr, "bandindex", ix, samePos, "nothing added")
			return nil
		}
		return err
	}
	m.batches = append(slices.Clone(m.batches), tr.batches...)
	if bw.entries.Len() == 0 && len(bw.added) == 0 {
		return nil
	}
	if err := bw.commit(); err != nil {
		return err
	}
	reportRepeated(stderr, bw.repeated)
	return nil
}

// RunMerge merges the newest runs of the index in dir into one, so that at
// most opt.MaxRuns remain (1 by default).
func RunMerge(ctx context.Context, opt Options, dir string, stderr io.Writer) error {
	fsys := opt.fsys()
	unlock, err := fsys.Lock(dir)
	if err != nil {
		return err
	}
	defer unlock()
	b := opt.budget()
	ix, err := open(fsys, dir, b)
	if err != nil {
		return err
	}
	if err := removeLeftovers(fsys, dir, ix.m); err != nil {
		ix.Close()
		return err
	}
	merged, rounds, err := ix.merge(opt.MaxRuns)
	if err == nil && rounds > 1 {
		fmt.Fprintf(stderr, "bandindex: merged %d runs in %d rounds, at most %d open at once (open-file limit %d)\n", merged, rounds, b.runs, b.files)
	}
	return err
}

// Dump writes every record of the index, opened by OpenAll, once, in (key,
// id) order, after the index's header lines.
func Dump(ctx context.Context, ix *Index, noHeader bool, stdout io.Writer) error {
	w := record.NewWriter(stdout, noHeader, false)
	for i, h := range ix.Headers {
		if err := w.Header(h, record.Pos{File: filepath.Join(ix.Dir, manifestName), Line: int64(i + 2)}); err != nil {
			return err
		}
	}
	w.Touch()
	src, err := newMerged(ix.runs)
	if err != nil {
		return err
	}
	var buf []byte
	n := 0
	err = src.each(func(key, id []byte) error {
		buf = record.AppendBand(buf, key, id)
		if len(buf) < 1<<16 {
			return nil
		}
		_, err := w.Write(buf)
		buf = buf[:0]
		if n++; n%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	})
	if err != nil {
		return err
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	return w.Close()
}

// Stats describes the index: its parameters, its runs and what it holds in
// memory; with check, every block is read and checked.
func Stats(ix *Index, check bool, w io.Writer) error {
	var bytes uint64
	for _, e := range ix.m.runs {
		bytes += e.bytes
	}
	records := ix.Records()
	fmt.Fprintf(w, "index:       %s (format version %d)\n", ix.Dir, Version)
	for _, h := range ix.Headers {
		fmt.Fprintf(w, "parameters:  %s\n", h)
	}
	fmt.Fprintf(w, "runs:        %d, %d records (band key, id), %d bytes, %.2f bytes per record\n",
		len(ix.runs), records, bytes, float64(bytes)/float64(max(records, 1)))
	fmt.Fprintf(w, "%-14s %12s %14s %8s %13s\n", "run", "records", "bytes", "blocks", "bytes/record")
	for i, r := range ix.runs {
		e := ix.m.runs[i]
		fmt.Fprintf(w, "%-14s %12d %14d %8d %13.2f\n", r.name, r.records, e.bytes, len(r.blocks), float64(e.bytes)/float64(max(r.records, 1)))
	}
	blocks := 0
	for _, r := range ix.runs {
		blocks += len(r.blocks)
	}
	fmt.Fprintf(w, "memory:      %d bytes while open (the first key of each of %d blocks); a lookup reads one block of each run at a time, %d KiB of records before compression\n",
		ix.MemoryBytes(), blocks, blockTarget>>10)
	if !check {
		return nil
	}
	if err := ix.Check(); err != nil {
		return err
	}
	fmt.Fprintf(w, "check:       every block read, its checksum, order and count verified\n")
	return nil
}

// Check reads every block of every run and verifies checksums, the order of
// the records, the first key of each block and the counts. Runs the index
// does not hold open are opened one at a time.
func (ix *Index) Check() error {
	for _, r := range ix.runs {
		if r.f != nil {
			if err := checkRun(r); err != nil {
				return err
			}
			continue
		}
		f, err := ix.fs.Open(r.path)
		if err != nil {
			return err
		}
		r.f = f
		err = checkRun(r)
		r.f = nil
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkRun reads every block of r and checks it.
func checkRun(r *run) error {
	c := newCursor(r)
	var n uint64
	var prevKey, prevID []byte
	block := -1
	for c.next() {
		if c.block != block {
			block = c.block
			if string(c.key) != string(r.blocks[block].first) {
				return damaged(r.path, "block %d: first key %q, the footer says %q: damaged", block, c.key, r.blocks[block].first)
			}
		}
		if n > 0 {
			if cmp := compareEntry(c.key, c.id, prevKey, prevID); cmp <= 0 {
				return damaged(r.path, "block %d: record %q %q out of order: damaged", block, c.key, c.id)
			}
		}
		prevKey = append(prevKey[:0], c.key...)
		prevID = append(prevID[:0], c.id...)
		n++
	}
	if c.err != nil {
		return c.err
	}
	if n != r.records {
		return damaged(r.path, "%d records read, the footer says %d: damaged", n, r.records)
	}
	if n > 0 && string(prevKey) != string(r.last) {
		return damaged(r.path, "last key %q, the footer says %q: damaged", prevKey, r.last)
	}
	return nil
}
