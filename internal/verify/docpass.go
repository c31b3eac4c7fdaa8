package verify

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/stream"
)

// docRun is verify --documents over documents read in order (not one file
// a document): the pairs are read in segments of up to half of --memory
// (pairTable); each segment's pairs are scored in passes over the
// documents (passes), the first reading the corpus and writing the text of
// the documents later passes need to a scratch file, the others reading
// that; then the segment's lines are written with their scores.
type docRun struct {
	opt   *Options
	stage *shingle.StageOptions
	out   *stream.Output
	t     *pairTable
	ps    *passes
	// pass is the pass under way (1: the corpus).
	pass   int
	sample []byte
	// The scratch of the segment: frames of the documents' texts; frames
	// is the source of a pass reading it.
	scratch *scratch
	frames  *frameSource
	enc     *zstd.Encoder
	dec     *zstd.Decoder
	// Totals for the report.
	passes, segments   int
	maxHeld, budget    int64
	scratchBytes       int64
	pairBytes, maxPair int64
}

// inflightBytes is what the pool holds per chunk in flight besides the
// held sets: the chunk, its shingle sets, its texts kept for the scratch.
const inflightBytes = 4 << 20

// runDocuments scores the pairs of lines from the documents (opt.Documents,
// already resolved), shingled as so says, within opt.MemoryBytes.
func runDocuments(ctx context.Context, opt *Options, so shingle.Options, lines *stream.Lines, out *stream.Output, stderr io.Writer) error {
	d := opt.Documents
	r := d.reading
	v := &docRun{opt: opt, out: out}
	v.stage = &shingle.StageOptions{Shingle: so, Format: r.Format, IDField: r.IDField, TextField: r.TextField,
		Number: r.Number, NumberFrom: r.NumberFrom, IDRequired: r.IDRequired, NoID: new(atomic.Int64),
		Text: r.Text, Main: r.Main, Common: stream.Common{SkipBad: opt.SkipBad}}
	defer shingle.ReportNoID(stderr, "verify", r.IDField, v.stage.NoID)
	var err error
	if v.enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1)); err != nil {
		return err
	}
	defer v.enc.Close()
	if v.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0)); err != nil {
		return err
	}
	defer v.dec.Close()
	mem := opt.MemoryBytes
	if mem <= 0 {
		mem = DefaultMemoryBytes
	}
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	reserve := int64(3*jobs+2) * inflightBytes
	// What is held is bounded; let the collector keep the heap near it.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(mem))
	defer out.Watch(lines)()
	for eof := false; !eof; {
		t := newPairTable(r.Number, -1)
		var kept []*stream.Chunk
		for t.bytes() < mem/2 {
			c, err := lines.Next()
			if err != nil {
				releaseAll(kept)
				return err
			}
			if c == nil {
				eof = true
				break
			}
			if t.first < 0 {
				t.first = c.FirstOrdinal
			}
			kept = append(kept, c)
			t.add(c)
		}
		if len(kept) == 0 {
			break
		}
		v.segments++
		if v.segments == 1 && !eof && !rereadable(d.Paths) {
			releaseAll(kept)
			return &usageError{fmt.Sprintf("the pairs take more than half of --memory (%d bytes), so verify --documents reads the documents once for each part of them that fits; the documents come from standard input (or a pipe), which can be read only once: give them as a file, or more --memory", mem)}
		}
		t.done()
		v.pairBytes = t.bytes()
		v.maxPair = max(v.maxPair, v.pairBytes)
		// A quarter of what is left goes to the collector's slack and the
		// runtime's own, so that the process stays within --memory.
		budget := max((mem-v.pairBytes-reserve)/4*3, mem/4)
		v.budget = budget
		v.t, v.ps = t, newPasses(t, budget)
		v.ps.threshold, v.ps.containment = opt.Threshold, opt.Containment
		if v.segments == 2 {
			v.stage.NoID = new(atomic.Int64) // counted in the first part
		}
		err := v.score(ctx, stderr)
		v.scratch.remove()
		v.scratch = nil
		if err != nil {
			releaseAll(kept)
			return err
		}
		src := &keptSource{chunks: kept, progress: lines}
		err = stream.Run(ctx, src, opt.Common, func() stream.Worker { return &scoredWorker{opt: opt, t: t} }, out.Sink)
		src.Close()
		if err != nil {
			return err
		}
	}
	if v.passes > v.segments || v.segments > 1 {
		fmt.Fprintf(stderr, "verify: %d pass(es) over the documents for %d part(s) of the pairs (%d bytes of pairs at most): held up to %d bytes of shingle sets in a budget of %d (--memory %d); scratch %d bytes written to %s\n",
			v.passes, v.segments, v.maxPair, v.maxHeld, v.budget, mem, v.scratchBytes, tempDirName(opt.TempDir))
	}
	return out.Finish()
}

func tempDirName(dir string) string {
	if dir == "" {
		return os.TempDir()
	}
	return dir
}

// rereadable tells whether the documents can be read again: regular files.
func rereadable(paths []string) bool {
	return !slices.Contains(paths, "-") && stream.TotalSize(paths) >= 0
}

func releaseAll(chunks []*stream.Chunk) {
	for _, c := range chunks {
		c.Release()
	}
}

// score runs the passes of a segment.
func (v *docRun) score(ctx context.Context, stderr io.Writer) error {
	for v.pass = 1; ; v.pass++ {
		v.ps.begin()
		v.passes++
		var src stream.Source
		var files *stream.Files
		v.frames = nil
		if v.pass == 1 {
			src, files = stream.NewDocuments(v.opt.Documents.Paths, v.opt.Documents.reading, v.opt.SkipBad)
		} else {
			v.frames = v.scratch.source(v.ps.start)
			src = v.frames
		}
		newWorker := func() stream.Worker { return &docWorker{v: v, w: shingle.NewWorker(v.stage)} }
		// A pass over the scratch that has nothing left to score stops its
		// source, and the run ends once the chunks under way are taken:
		// no worker is left running into the next pass.
		err := stream.Run(ctx, src, v.opt.Common, newWorker, v.sink)
		src.Close()
		if err != nil {
			return err
		}
		v.maxHeld = max(v.maxHeld, v.ps.maxHeld)
		if v.pass == 1 {
			// Each part reads the corpus again: its reports are the first's.
			if v.segments == 1 {
				if files != nil {
					files.Report(stderr, "verify")
				}
				if l, ok := src.(*stream.Lines); ok {
					l.Report(stderr, "verify")
				}
			}
			if err := v.matched(); err != nil {
				return err
			}
			if err := v.scratch.finish(); err != nil {
				return err
			}
		}
		if !v.ps.end() {
			return nil
		}
	}
}

// matched refuses documents none of whose ids the pairs name.
func (v *docRun) matched() error {
	if v.sample == nil || v.t.named() == 0 || slices.ContainsFunc(v.t.seen, func(s uint32) bool { return s > 0 }) {
		return nil
	}
	d := v.opt.Documents
	return &usageError{fmt.Sprintf("the ids do not match: none of the %d documents the pairs name is among the documents (%s): the pairs have %q, the documents %q; read the documents as shingle did (--format, --id-field, --number-from)",
		v.t.named(), strings.Join(d.Paths, " "), v.t.least(), v.sample)}
}

// sink takes the documents of a chunk in order.
func (v *docRun) sink(r *stream.Result) error {
	if b, ok := r.Value.(*docBatch); ok {
		if v.sample == nil && b.sample != nil {
			v.sample = b.sample
		}
		start := 0
		for i, d := range b.docs {
			set := b.vals[start:b.ends[i]]
			start = b.ends[i]
			if err := v.ps.take(d, set, b.has[i]); err != nil {
				if _, ok := err.(errRepeated); ok {
					return record.Errorf(record.Pos{File: b.file}, "document %s appears more than once", v.t.id(d))
				}
				return err
			}
		}
		if v.pass == 1 {
			if err := v.keep(b); err != nil {
				return err
			}
		}
	}
	if v.pass == 1 && v.segments == 1 {
		v.out.Skip(r.Skipped, r.NSkipped)
	}
	if r.Err != nil {
		return r.Err
	}
	if v.frames != nil && v.ps.idle() {
		v.frames.stop.Store(true)
	}
	return nil
}

// keep writes to the scratch, once the first pass's block is closed, the
// texts of the documents of a chunk that later passes may read: those that
// have pairs, from the one that closed the block on.
func (v *docRun) keep(b *docBatch) error {
	c := v.ps.closed.Load()
	if c == noRank {
		return nil
	}
	frame := b.frame
	if frame == nil {
		var raw []byte
		start := 0
		for i, d := range b.tdocs {
			if v.ps.rank[d] >= c {
				raw = appendScratch(raw, d, b.texts[start:b.tends[i]])
			}
			start = b.tends[i]
		}
		if len(raw) == 0 {
			return nil
		}
		frame = v.enc.EncodeAll(raw, nil)
	}
	if v.scratch == nil {
		s, err := newScratch(v.opt.TempDir)
		if err != nil {
			return err
		}
		v.scratch = s
	}
	last := uint32(0)
	for _, d := range b.tdocs {
		last = max(last, v.ps.rank[d])
	}
	n, err := v.scratch.write(frame, last)
	v.scratchBytes += n
	return err
}

// appendScratch appends a document of the scratch: its number, the length
// of its text and the text.
func appendScratch(dst []byte, d uint32, text []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(d))
	dst = binary.AppendUvarint(dst, uint64(len(text)))
	return append(dst, text...)
}

// docBatch is what a worker makes of a chunk of documents: those the pairs
// name, in order, with the shingle sets of those it shingled (has); in the
// first pass also the texts of those with pairs (tdocs), for the scratch,
// or the scratch frame itself when the worker knew the block closed.
type docBatch struct {
	file   string
	docs   []uint32
	has    []bool
	ends   []int
	vals   []uint64
	tdocs  []uint32
	tends  []int
	texts  []byte
	frame  []byte
	sample []byte
}

type docWorker struct {
	v   *docRun
	w   *shingle.Worker
	raw []byte
	buf []byte
}

func (w *docWorker) Process(c *stream.Chunk, r *stream.Result) {
	b := &docBatch{file: c.File}
	r.Value = b
	v := w.v
	if f, ok := c.Value.(scratchFrame); ok {
		data, err := v.dec.DecodeAll(f, w.buf[:0])
		w.buf = data
		if err != nil {
			r.Err = fmt.Errorf("reading verify's scratch file: %w", err)
			return
		}
		for len(data) > 0 {
			d, n := binary.Uvarint(data)
			l, m := binary.Uvarint(data[n:])
			if n <= 0 || m <= 0 || uint64(len(data)-n-m) < l {
				r.Err = fmt.Errorf("reading verify's scratch file: a frame is cut short")
				return
			}
			w.take(b, uint32(d), data[n+m:n+m+int(l)])
			data = data[n+m+int(l):]
		}
		return
	}
	// Once the block is closed, every document after it with pairs goes to
	// the scratch: the worker that knows it makes the frame.
	closed := v.pass == 1 && v.ps.closed.Load() != noRank
	w.raw = w.raw[:0]
	w.w.Documents(c, r, func(id, text []byte) error {
		if b.sample == nil {
			b.sample = append([]byte{}, id...)
		}
		d, ok := v.t.lookup(id)
		if !ok {
			return nil
		}
		w.take(b, d, text)
		if v.pass == 1 && v.ps.active[d] {
			b.tdocs = append(b.tdocs, d)
			if closed {
				w.raw = appendScratch(w.raw, d, text)
			} else {
				b.texts = append(b.texts, text...)
			}
			b.tends = append(b.tends, len(b.texts))
		}
		return nil
	})
	if closed && len(w.raw) > 0 {
		b.frame = v.enc.EncodeAll(w.raw, nil)
	}
}

// take adds document d to the batch, shingled when the pass needs it.
func (w *docWorker) take(b *docBatch, d uint32, text []byte) {
	b.docs = append(b.docs, d)
	has := w.v.ps.needs(d)
	if has {
		b.vals = w.w.Set(b.vals, text)
	}
	b.has = append(b.has, has)
	b.ends = append(b.ends, len(b.vals))
}

// scoredWorker writes the pairs of a segment with the scores the passes
// counted, as worker does from a store.
type scoredWorker struct {
	opt *Options
	t   *pairTable
}

func (w *scoredWorker) Process(c *stream.Chunk, r *stream.Result) {
	t := w.t
	c.Lines(r, w.opt.SkipBad, func(line []byte, ordinal int64) error {
		a, b, err := record.ParsePair(line)
		if err != nil {
			return err
		}
		switch strings.Compare(string(a), string(b)) {
		case 0:
			return record.Bad("a pair of %s with itself", a)
		case 1:
			a, b = b, a
		}
		da, ok := t.lookup(a)
		if !ok || t.seen[da] == 0 {
			return record.Bad("id %s is not in %s", a, documentsSource(w.opt))
		}
		db, ok := t.lookup(b)
		if !ok || t.seen[db] == 0 {
			return record.Bad("id %s is not in %s", b, documentsSource(w.opt))
		}
		inter := t.inter[t.line(ordinal)]
		if inter == unscored {
			return fmt.Errorf("verify --documents: the pair %s %s was not scored", a, b)
		}
		j, cab, cba := scoreCounts(int(inter), int(t.size[da]), int(t.size[db]))
		r.Out = AppendScored(r.Out, a, b, j, cab, cba, w.opt.Threshold, w.opt.Containment)
		return nil
	})
}

// documentsSource names the documents in messages.
func documentsSource(opt *Options) string {
	return "the documents (" + strings.Join(opt.Documents.Paths, " ") + ")"
}

// id returns the id of document d, for messages.
func (t *pairTable) id(d uint32) string {
	if t.numbered {
		n, _ := input.AppendNumber(nil, int64(t.nums[d]), 1)
		return string(n)
	}
	for id, x := range t.index {
		if x == d {
			return id
		}
	}
	return ""
}

// keptSource hands out the chunks of a segment of pairs again.
type keptSource struct {
	chunks   []*stream.Chunk
	progress stream.Source
}

func (s *keptSource) Next() (*stream.Chunk, error) {
	if len(s.chunks) == 0 {
		return nil, nil
	}
	c := s.chunks[0]
	s.chunks[0] = nil
	s.chunks = s.chunks[1:]
	return c, nil
}

func (s *keptSource) Progress() (int64, int64) { return s.progress.Progress() }

func (s *keptSource) Close() error {
	releaseAll(s.chunks)
	s.chunks = nil
	return nil
}

// scratch is the file of the texts of the documents that passes after the
// first read: zstd frames, each the documents of a chunk.
type scratch struct {
	f      *os.File
	w      *bufio.Writer
	frames []frameAt
	size   int64
}

// frameAt is where a frame is, and the last rank of its documents.
type frameAt struct {
	off  int64
	n    int
	last uint32
}

// scratchFrame is a compressed frame, the Value of a chunk of the scratch.
type scratchFrame []byte

func newScratch(dir string) (*scratch, error) {
	f, err := os.CreateTemp(dir, "neardup-verify-*.zst")
	if err != nil {
		return nil, err
	}
	disk.Track(f.Name())
	return &scratch{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (s *scratch) write(frame []byte, last uint32) (int64, error) {
	if _, err := s.w.Write(frame); err != nil {
		return 0, fmt.Errorf("writing verify's scratch file: %w", err)
	}
	s.frames = append(s.frames, frameAt{s.size, len(frame), last})
	s.size += int64(len(frame))
	return int64(len(frame)), nil
}

// finish ends the writing.
func (s *scratch) finish() error {
	if s == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("writing verify's scratch file: %w", err)
	}
	return nil
}

func (s *scratch) remove() {
	if s == nil {
		return
	}
	s.f.Close()
	os.Remove(s.f.Name())
	disk.Untrack(s.f.Name())
}

// source returns the frames that hold documents of rank start or later.
func (s *scratch) source(start uint32) *frameSource {
	if s == nil {
		return &frameSource{}
	}
	i, _ := slices.BinarySearchFunc(s.frames, start, func(f frameAt, r uint32) int {
		if f.last < r {
			return -1
		}
		return 1
	})
	return &frameSource{s: s, next: i}
}

// frameSource reads the frames of the scratch, a chunk each, until it is
// stopped.
type frameSource struct {
	s    *scratch
	next int
	done int64
	stop atomic.Bool
}

func (f *frameSource) Next() (*stream.Chunk, error) {
	if f.s == nil || f.next >= len(f.s.frames) || f.stop.Load() {
		return nil, nil
	}
	fr := f.s.frames[f.next]
	buf := make([]byte, fr.n)
	if _, err := f.s.f.ReadAt(buf, fr.off); err != nil {
		return nil, fmt.Errorf("reading verify's scratch file: %w", err)
	}
	c := &stream.Chunk{Seq: f.next, File: f.s.f.Name(), Value: scratchFrame(buf)}
	f.next++
	f.done += int64(fr.n)
	return c, nil
}

func (f *frameSource) Progress() (int64, int64) {
	if f.s == nil {
		return 0, 0
	}
	return f.done, f.s.size
}

func (f *frameSource) Close() error { return nil }
