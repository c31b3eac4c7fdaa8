package verify

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/s2"
	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/offsets"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/stream"
)

// docRun is verify --documents over documents read in order (not one file
// a document): the pairs are read in segments of up to half of --memory
// (pairTable); each segment's pairs are scored in passes over the
// documents (passes), the first reading the corpus and, once its block is
// closed, writing the text of the documents later passes need to a scratch
// file in bins of connected documents (bins); then each bin is scored in
// a pass over its own frames of the scratch (or more, when its sets do not
// fit after all); then the segment's lines are written with their scores.
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
	// bins of the segment, once its first pass's block closed; the bytes
	// of the shingle sets of the first pass so far (their mean is the
	// estimate of a set's); the frames of the bins go to writer.
	bins              *bins
	setBytes, setDocs int64
	frameBytes        int
	rawCap            int64
	writer            chan frameJob
	written           chan error
	// Totals for the report; copies counts the documents with the text of
	// a partner held before them, bounded the pairs histBound left below
	// need.
	copies, bounded    int64
	passes, segments   int
	nbins, overflows   int
	maxHeld, budget    int64
	scratchBytes       int64
	pairBytes, maxPair int64
	// freeTexts holds the texts arrays of the first pass's batches the
	// sink is done with, for the workers to fill again: made anew for
	// each chunk, they were faulted in and grown (memmove, growslice and
	// page faults were a fifth of verify's time on make peers' corpus).
	freeTexts chan []byte
	// whole names the inputs --offsets has no offsets for: the documents
	// were read whole.
	whole []string
}

// inflightBytes is what the pool holds per chunk in flight besides the
// held sets: the chunk, its shingle sets, its texts kept for the scratch.
const inflightBytes = 4 << 20

// runDocuments scores the pairs of lines from the documents (opt.Documents,
// already resolved), shingled as so says, within opt.MemoryBytes.
func runDocuments(ctx context.Context, opt *Options, so shingle.Options, bb *bbit.File, lines *stream.Lines, out *stream.Output, stderr io.Writer) error {
	d := opt.Documents
	v := &docRun{opt: opt, out: out, freeTexts: make(chan []byte, 3*opt.Jobs+2)}
	v.stage = &shingle.StageOptions{Shingle: so, Reading: d.Reading, NoID: new(atomic.Int64),
		Common: stream.Common{SkipBad: opt.SkipBad}}
	// A document in no pair of the segment is not decoded (TSV).
	v.stage.Want = func(id []byte) bool {
		_, ok := v.t.lookup(id)
		return ok
	}
	defer document.ReportNoID(stderr, "verify", d.IDField, v.stage.NoID)
	defer shingle.ReportCrowded(stderr, "verify", hashsort.Crowded())
	mem := opt.MemoryBytes
	jobs := opt.Jobs
	reserve := int64(3*jobs+2) * inflightBytes
	score := newScorer(jobs)
	defer score.close()
	if opt.HoldLimit != nil {
		opt.HoldLimit(mem)
	}
	defer out.Watch(lines)()
	var bbc bbit.Counts
	pr := &pairReader{lines: lines, numbered: d.Number, jobs: jobs}
	defer pr.release()
	for eof := false; !eof; {
		t := newPairTable(d.Number, -1)
		if bb != nil {
			t.extraDocBytes = bbitDocBytes
		}
		var kept []*stream.Chunk
		for t.bytes() < max(mem/2, stream.BufferFloor) {
			c, nl, err := pr.next()
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
			t.add(c, nl)
		}
		if len(kept) == 0 {
			break
		}
		v.segments++
		if v.segments == 1 && !eof && !rereadable(d.Paths) {
			releaseAll(kept)
			return &usageError{fmt.Sprintf("the pairs take more than half of --memory (%d bytes), so verify --documents reads the documents once for each part of them that fits; the documents come from standard input (or a pipe), which can be read only once: give them as a file, or more --memory", mem)}
		}
		t.done(jobs)
		if bb != nil {
			c, err := filterBBit(bb, t, opt.Threshold, opt.Containment)
			if err != nil {
				releaseAll(kept)
				return err
			}
			bbc.Add(c)
			t.extraDocBytes = 0
		}
		v.pairBytes = t.bytes() + pr.bytes()
		v.maxPair = max(v.maxPair, v.pairBytes)
		// A quarter of what is left goes to the collector's slack and the
		// runtime's own, so that the process stays within --memory.
		budget := max((mem-v.pairBytes-reserve)/4*3, mem/4, stream.BufferFloor)
		v.budget = budget
		v.t, v.ps = t, newPasses(t, budget)
		v.ps.threshold, v.ps.containment = opt.Threshold, opt.Containment
		v.ps.score = score
		v.bins, v.setBytes, v.setDocs = nil, 0, 0
		// The first pass gathers the texts of the bins as it goes: up to
		// rawCap of its budget.
		v.rawCap = min(max(budget/8, 64<<10), 32<<20)
		v.frameBytes = int(min(binFrameBytes, v.rawCap))
		if v.segments == 2 {
			v.stage.NoID = new(atomic.Int64) // counted in the first part
		}
		err := v.score(ctx, stderr)
		if werr := v.stopWriter(); err == nil {
			err = werr
		}
		v.scratch.remove()
		v.scratch = nil
		v.bins = nil
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
	if bb != nil {
		bbc.Report(stderr, "verify", bb.Name, "candidate pair(s)")
	}
	if len(v.whole) > 0 {
		fmt.Fprintf(stderr, "verify: --offsets %s has no offsets for %d of %d input(s) (%s): every document was read whole\n", d.Offsets, len(v.whole), len(d.Paths), strings.Join(v.whole, ", "))
	}
	if v.copies > 0 {
		fmt.Fprintf(stderr, "verify: %d document(s) with the text of a partner held before them: the same shingle set, taken from the partner where it was made in time, not shingled again\n", v.copies)
	}
	if v.bounded > 0 {
		fmt.Fprintf(stderr, "verify: %d pair(s) below the threshold by their sets' histograms, not merged\n", v.bounded)
	}
	if v.passes > v.segments || v.segments > 1 {
		fmt.Fprintf(stderr, "verify: %d pass(es) over the documents for %d part(s) of the pairs (%d bytes of pairs at most): %d bin(s) of connected documents after the first, %d of them in more than one pass; held up to %d bytes of shingle sets in a budget of %d (--memory %d); scratch %d bytes (the texts the bins need, s2) written to %s\n",
			v.passes, v.segments, v.maxPair, v.nbins, v.overflows, v.maxHeld, v.budget, mem, v.scratchBytes, tempDirName(opt.TempDir))
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

// score runs the passes of a segment: the first over the corpus, then
// those of each bin over its frames of the scratch.
func (v *docRun) score(ctx context.Context, stderr io.Writer) error {
	v.pass = 1
	v.frames = nil
	src, err := v.source()
	if err != nil {
		return err
	}
	// Of the budget, the first pass keeps what the bins gather, a buffer
	// past it, and two with the writer (each up to twice a frame), and as
	// much again for the buffers written and not yet collected.
	budget := v.ps.budget
	v.ps.budget = max(budget-2*(v.rawCap+6*int64(v.frameBytes)), 1)
	err = v.run(ctx, src)
	v.ps.budget = budget
	if err != nil {
		return err
	}
	// Each part reads the corpus again: its reports are the first's.
	if v.segments == 1 {
		document.Report(src, stderr, "verify")
	}
	if err := v.matched(); err != nil {
		return err
	}
	if err := v.flushBins(); err != nil {
		return err
	}
	if !v.ps.end(nil) || v.bins == nil {
		return nil
	}
	v.nbins += len(v.bins.docs)
	start := v.ps.start
	for k, docs := range v.bins.docs {
		v.ps.start = start
		for n := 1; ; n++ {
			v.pass++
			v.frames = v.scratch.source(k, v.ps.start)
			if err := v.run(ctx, v.frames); err != nil {
				return err
			}
			if !v.ps.end(docs) {
				break
			}
			if n == 1 {
				v.overflows++
			}
		}
	}
	return nil
}

// source returns the source of the first pass: the documents, or with
// --offsets the lines of those the segment's pairs name.
func (v *docRun) source() (stream.Source, error) {
	d := v.opt.Documents
	if d.Offsets == "" {
		src, _ := document.Source(d.Reading, d.Paths, v.opt.SkipBad)
		return src, nil
	}
	ix, err := offsets.Load(d.Offsets, func(id []byte) bool {
		_, ok := v.t.lookup(id)
		return ok
	})
	if err != nil {
		return nil, err
	}
	// The offsets are of the documents the pairs were made of, read the
	// same way: shingle's header is the pairs'.
	var hs record.HeaderSet
	if d.shingle.Header.Stage != "" {
		hs.Add(d.shingle.Header, d.shingle.Pos)
	}
	for _, h := range ix.Headers {
		if _, err := hs.Add(h.Header, h.Pos); err != nil {
			return nil, fmt.Errorf("--offsets %s is not of the documents the pairs were made of: %w", d.Offsets, err)
		}
	}
	// Read otherwise (another --number-from, --id-field, other inputs),
	// the documents have other ids: a record's id would name another
	// line.
	if pos, ok := hs.DocumentsVary(); ok {
		return nil, record.Errorf(pos, "--offsets %s reads the documents otherwise than the pairs (%s): its ids are not theirs", d.Offsets, d.shingle.Pos)
	}
	whole, err := ix.Whole(d.Paths)
	if err != nil {
		return nil, err
	}
	if len(whole) > 0 {
		// Inputs shingle had no offsets for (compressed, read as
		// records): all are read as without the file.
		v.whole = whole
		src, _ := document.Source(d.Reading, d.Paths, v.opt.SkipBad)
		return src, nil
	}
	return ix.Source(d.Paths, d.Reading)
}

// run runs a pass over src.
func (v *docRun) run(ctx context.Context, src stream.Source) error {
	v.ps.begin()
	v.passes++
	newWorker := func() stream.Worker {
		return &docWorker{v: v, w: shingle.NewWorker(v.stage), digest: xxhash.New()}
	}
	// A pass over the scratch that has nothing left to score stops its
	// source, and the run ends once the chunks under way are taken:
	// no worker is left running into the next pass.
	err := stream.Run(ctx, src, v.opt.Common, newWorker, v.sink)
	src.Close()
	v.maxHeld = max(v.maxHeld, v.ps.maxHeld)
	v.bounded += v.ps.boundedPairs
	v.copies += v.ps.copies
	v.ps.boundedPairs, v.ps.copies = 0, 0
	return err
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
		hstart := 0
		for i, d := range b.docs {
			set := b.sets[i]
			hist := b.hists[hstart:b.hends[i]]
			hstart = b.hends[i]
			if b.has[i] && v.pass == 1 {
				v.setBytes += int64(len(set))*8 + heldDocBytes
				v.setDocs++
			}
			if err := v.ps.take(d, set, hist, b.has[i], b.keys[i]); err != nil {
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
			if cap(b.texts) <= inflightBytes {
				select {
				case v.freeTexts <- b.texts[:0]:
				default:
				}
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

// keep gathers in their bins, once the first pass's block is closed, the
// texts of the documents of a chunk that later passes read: those from the
// one that closed the block on with pairs not yet scored.
func (v *docRun) keep(b *docBatch) error {
	c := v.ps.closed.Load()
	if c == noRank {
		return nil
	}
	if v.bins == nil {
		s, err := newScratch(v.opt.TempDir)
		if err != nil {
			return err
		}
		v.scratch = s
		v.bins = newBins(v.t)
		v.bins.share = v.budget
		v.startWriter()
	}
	mean := v.setBytes / max(v.setDocs, 1)
	start := 0
	for i, d := range b.tdocs {
		text := b.texts[start:b.tends[i]]
		start = b.tends[i]
		r := v.ps.rank[d]
		if r < c || v.ps.remaining[d] == 0 {
			continue
		}
		k := v.bins.place(d, mean)
		v.bins.add(k, d, r, text, v.frameBytes)
		if len(v.bins.raw[k]) >= v.frameBytes {
			v.flush(k)
		}
	}
	if v.bins.rawBytes > v.rawCap {
		for k := range v.bins.raw {
			v.flush(k)
		}
	}
	return nil
}

// frameJob is the texts of a bin for the writer to compress and write.
type frameJob struct {
	raw  []byte
	last uint32
	bin  int
}

// startWriter starts the writer of the frames of the scratch, which
// compresses them off the sink, in the order they are given.
func (v *docRun) startWriter() {
	v.writer = make(chan frameJob, 1)
	v.written = make(chan error, 1)
	go func(s *scratch, jobs <-chan frameJob, done chan<- error) {
		var err error
		for j := range jobs {
			if err == nil {
				_, err = s.write(s2.Encode(nil, j.raw), j.last, j.bin)
			}
		}
		done <- err
	}(v.scratch, v.writer, v.written)
}

// flush hands the texts gathered in bin k to the writer.
func (v *docRun) flush(k int) {
	if len(v.bins.raw[k]) == 0 {
		return
	}
	raw, last := v.bins.take(k)
	v.writer <- frameJob{raw, last, k}
}

// stopWriter waits for the writer to be done and returns its error.
func (v *docRun) stopWriter() error {
	if v.writer == nil {
		return nil
	}
	close(v.writer)
	err := <-v.written
	v.writer = nil
	return err
}

// flushBins writes what the bins still gather and ends the scratch.
func (v *docRun) flushBins() error {
	if v.bins == nil {
		return nil
	}
	for k := range v.bins.raw {
		v.flush(k)
	}
	if err := v.stopWriter(); err != nil {
		return err
	}
	v.scratchBytes += v.scratch.size
	return v.scratch.finish()
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
// first pass also the texts of those with pairs (tdocs), for the scratch.
type docBatch struct {
	file   string
	docs   []uint32
	has    []bool
	keys   []uint64   // of the texts shingled (textKey), 0 for the others
	sets   [][]uint64 // each its own array (or a held twin's)
	hends  []int
	hists  []uint8 // the sets' histograms (appendHist)
	tdocs  []uint32
	tends  []int
	texts  []byte
	sample []byte
}

type docWorker struct {
	v      *docRun
	w      *shingle.Worker
	buf    []byte
	digest *xxhash.Digest
	// The length of the worker's last batch's texts: the next is made that
	// large (and an eighth) at once, not grown.
	ntexts int
}

func (w *docWorker) Process(c *stream.Chunk, r *stream.Result) {
	b := &docBatch{file: c.File}
	if w.v.pass == 1 {
		select {
		case b.texts = <-w.v.freeTexts:
		default:
			b.texts = make([]byte, 0, w.ntexts+w.ntexts/8)
		}
	}
	r.Value = b
	defer func() { w.ntexts = len(b.texts) }()
	v := w.v
	if f, ok := c.Value.(scratchFrame); ok {
		n, err := s2.DecodedLen(f)
		var data []byte
		if err == nil {
			w.buf = slices.Grow(w.buf[:0], n)
			data, err = s2.Decode(w.buf[:n], f)
		}
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
			if len(b.texts)+len(text) > cap(b.texts) {
				// At once to the chunk's bytes, which hold its texts
				// (TSV, JSON Lines), not a quarter more at a time.
				b.texts = slices.Grow(b.texts, max(len(text), len(c.Data)-len(b.texts)))
			}
			b.texts = append(b.texts, text...)
			b.tends = append(b.tends, len(b.texts))
		}
		return nil
	})
}

// take adds document d to the batch, shingled when the pass needs it, or
// with the set of a partner held whose text is the same. Each set is an
// array of its own, made at its size (AppendSet counts the values first),
// which the sink holds as it is: sets in one array of the batch were
// copied out to be held (they would have kept the batch's other sets), and
// copied again when the array, made from the last batch's size, grew
// (memmove and growslice were a tenth of verify's time on make speed's
// corpus). A twin's set is its partner's: a set is not written once made.
func (w *docWorker) take(b *docBatch, d uint32, text []byte) {
	b.docs = append(b.docs, d)
	has := w.v.ps.needs(d)
	key := uint64(0)
	var set []uint64
	if has {
		key = textKey(w.digest, text)
		if set = w.v.ps.twin(d, key); set == nil {
			set = w.w.Set(nil, text)
		}
		// Made from the set whichever way it came, so that which sets
		// have one does not depend on how far the workers ran ahead.
		if w.v.ps.histWanted(d) {
			b.hists = appendHist(b.hists, set)
		}
	}
	b.keys = append(b.keys, key)
	b.has = append(b.has, has)
	b.sets = append(b.sets, set)
	b.hends = append(b.hends, len(b.hists))
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
		// A pair of two documents read, scored and below the threshold,
		// most of the lines, is passed over as the table has it, not
		// parsed again: the line is parsed when it is written or wrong.
		i := t.line(ordinal)
		if da, db, inter := t.a[i], t.b[i], t.inter[i]; da != db && da != noDoc && db != noDoc && t.seen[da] != 0 && t.seen[db] != 0 && inter != unscored {
			j, cab, cba := scoreCounts(int(inter), int(t.size[da]), int(t.size[db]))
			if !above(j, cab, cba, w.opt.Threshold, w.opt.Containment) {
				return nil
			}
		}
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
	s := "the documents (" + strings.Join(opt.Documents.Paths, " ") + ")"
	if opt.Documents.Offsets != "" {
		s += " where --offsets " + opt.Documents.Offsets + " puts them"
	}
	return s
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
// first read: s2 blocks, each of the documents of one bin.
type scratch struct {
	f      *os.File
	w      *bufio.Writer
	frames []frameAt
	// byBin lists the frames of each bin, in the order written.
	byBin [][]int
	size  int64
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

func (s *scratch) write(frame []byte, last uint32, bin int) (int64, error) {
	if _, err := s.w.Write(frame); err != nil {
		return 0, fmt.Errorf("writing verify's scratch file: %w", err)
	}
	for len(s.byBin) <= bin {
		s.byBin = append(s.byBin, nil)
	}
	s.byBin[bin] = append(s.byBin[bin], len(s.frames))
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

// source returns the frames of bin that hold documents of rank start or
// later.
func (s *scratch) source(bin int, start uint32) *frameSource {
	if s == nil || bin >= len(s.byBin) {
		return &frameSource{}
	}
	list := s.byBin[bin]
	i, _ := slices.BinarySearchFunc(list, start, func(f int, r uint32) int {
		if s.frames[f].last < r {
			return -1
		}
		return 1
	})
	f := &frameSource{s: s, list: list[i:]}
	for _, x := range f.list {
		f.total += int64(s.frames[x].n)
	}
	return f
}

// frameSource reads frames of the scratch (list), a chunk each, until it
// is stopped.
type frameSource struct {
	s           *scratch
	list        []int
	seq         int
	done, total int64
	stop        atomic.Bool
}

func (f *frameSource) Next() (*stream.Chunk, error) {
	if f.seq >= len(f.list) || f.stop.Load() {
		return nil, nil
	}
	fr := f.s.frames[f.list[f.seq]]
	buf := make([]byte, fr.n)
	if _, err := f.s.f.ReadAt(buf, fr.off); err != nil {
		return nil, fmt.Errorf("reading verify's scratch file: %w", err)
	}
	c := &stream.Chunk{Seq: f.seq, File: f.s.f.Name(), Value: scratchFrame(buf)}
	f.seq++
	f.done += int64(fr.n)
	return c, nil
}

func (f *frameSource) Progress() (int64, int64) { return f.done, f.total }

func (f *frameSource) Close() error { return nil }
