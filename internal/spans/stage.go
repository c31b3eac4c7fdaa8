package spans

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/token"
)

// DefaultTokens is the default --tokens: Lee et al. (2022) remove repeated
// spans of 50 tokens.
const DefaultTokens = 50

// MaxTokens is the greatest --tokens: a worker holds N tokens, 40 bytes
// each.
const MaxTokens = 1 << 20

// Options configure the stage.
type Options struct {
	// Tokens is N: spans of at least N word tokens.
	Tokens int
	// Width folds the width forms before tokenizing, as word shingles do
	// by default (shingle --normalize width).
	Width bool
	// MemoryBytes bounds the sort buffers (0: stream.DefaultMemory, filled
	// in by Resolve);
	// TempDir holds the runs spilled beyond it.
	MemoryBytes int64
	TempDir     string

	// Reading is how the documents are read (empty fields: the defaults,
	// id and text).
	input.Reading

	stream.Common
}

// Resolve checks the options and fills in their defaults (-j, --memory),
// the one place where both are done: Run calls it. Its errors are usage
// errors.
func (o *Options) Resolve() error {
	if o.Tokens < 1 || o.Tokens > MaxTokens {
		return status.Usagef("--tokens %d: want 1 to %d", o.Tokens, MaxTokens)
	}
	if o.MemoryBytes < 0 {
		return status.Usagef("--memory can't be negative")
	}
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	o.MemoryBytes = stream.Memory(o.MemoryBytes)
	if err := stream.CheckUpFront(o.MemoryBytes); err != nil {
		return err
	}
	return o.reading().Check(o.NoHeader)
}

// reading is how the stage reads documents: as shingle and parts do, the
// default fields for those not set.
func (o *Options) reading() input.Reading { return o.Reading.WithDefaultFields() }

// Header returns the header line the stage writes: N and the
// normalization, then how the documents were read (input.Reading.Params),
// which keep --drop-parts reads them again by.
func (o *Options) Header() record.Header {
	norm := token.Normalization{Width: o.Width}
	h := record.NewHeader("spans", "tokens", strconv.Itoa(o.Tokens), "unit", "word", "normalize", norm.String())
	h.Params = append(h.Params, o.reading().Params()...)
	return h
}

// Bytes a window and a repeated window take in the sort buffers (Go's
// struct sizes).
const (
	windowBytes = 32
	repeatBytes = 40
)

// Run reads documents from the named inputs (standard input when there are
// none) and writes a record for each occurrence of a repeated span to
// stdout.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	mem := opt.MemoryBytes
	rd := opt.reading()
	noID := new(atomic.Int64)
	src, unit := document.Source(rd, inputs, opt.SkipBad)
	defer src.Close()
	out := stream.NewOutput("spans", opt.Common, stdout, stderr, opt.Header())
	out.Unit = unit
	c := &collector{n: opt.Tokens, windows: newSorter(windowCodec, int(max(mem, stream.BufferFloor)/windowBytes), opt.Jobs, opt.TempDir, "windows")}
	out.Summary = func(stderr io.Writer) {
		document.Report(src, stderr, "spans")
		c.summary(stderr)
	}
	stop := out.Watch(src)
	err := stream.Run(ctx, src, opt.Common, func() stream.Worker {
		k := newKeyer(opt.Tokens)
		return &worker{opt: &opt, docs: document.NewReader(rd, noID, nil, opt.SkipBad), roller: k.roller()}
	}, func(r *stream.Result) error {
		if err := c.take(r.Out); err != nil {
			return err
		}
		r.Out = r.Out[:0]
		return out.Sink(r)
	})
	if err == nil {
		err = c.group(ctx, mem, opt.Jobs, opt.TempDir)
	}
	if err == nil {
		err = c.write(ctx, out.W)
	}
	stop()
	document.ReportNoID(stderr, "spans", opt.IDField, noID)
	if err != nil {
		c.windows.release()
		if c.repeats != nil {
			c.repeats.release()
		}
		return err
	}
	return out.Finish()
}

// worker tokenizes the documents of a chunk and computes the keys of their
// windows as it goes, holding N tokens. Its output, for the collector, is
// binary: for each document, 'D' and the id's length and the id; then its
// windows in batches, 'W', their number (4 bytes) and for each its key and
// byte range (24 bytes); then 'E' and its numbers of tokens and of bytes.
// It passes its output on after each batch once it reaches
// stream.FlushSize, so a long document takes no more.
type worker struct {
	opt    *Options
	docs   *document.Reader
	th     token.TokenHasher
	roller *roller
}

// batchWindows is the most windows in a batch.
const batchWindows = 4096

func (w *worker) Process(c *stream.Chunk, r *stream.Result) {
	w.docs.Documents(c, r, func(id, text []byte) error {
		r.Out = append(r.Out, 'D')
		r.Out = binary.AppendUvarint(r.Out, uint64(len(id)))
		r.Out = append(r.Out, id...)
		w.th.Reset(text, w.opt.Width)
		w.roller.reset()
		toks, batch, inBatch := 0, 0, 0
		end := func() {
			binary.LittleEndian.PutUint32(r.Out[batch+1:], uint32(inBatch))
			inBatch = 0
			// An error here is the run being stopped, which the pool
			// reports.
			_ = r.Flush()
		}
		for {
			t, ok := w.th.Next()
			if !ok {
				break
			}
			toks++
			k, start, ok := w.roller.push(t)
			if !ok {
				continue
			}
			if inBatch == 0 {
				batch = len(r.Out)
				r.Out = append(r.Out, 'W', 0, 0, 0, 0)
			}
			r.Out = binary.LittleEndian.AppendUint64(r.Out, k.k0)
			r.Out = binary.LittleEndian.AppendUint64(r.Out, k.k1)
			r.Out = binary.LittleEndian.AppendUint32(r.Out, uint32(start))
			r.Out = binary.LittleEndian.AppendUint32(r.Out, uint32(t.End))
			if inBatch++; inBatch == batchWindows {
				end()
			}
		}
		if inBatch > 0 {
			end()
		}
		r.Out = append(r.Out, 'E')
		r.Out = binary.AppendUvarint(r.Out, uint64(toks))
		r.Out = binary.AppendUvarint(r.Out, uint64(len(text)))
		_ = r.Flush()
		return nil
	})
}

// collector takes the workers' output in input order: it numbers the
// documents that have a window, holds their ids, and sorts their windows by
// key; then it groups them (group) and writes the records (write).
type collector struct {
	n       int
	windows *sorter[window]
	repeats *sorter[repeat]
	// ids holds the ids of the documents with a window, one after
	// another; idEnds[d] is where the id of document d ends.
	ids    []byte
	idEnds []int
	// The document being taken: its id until it has a window, then its
	// number and the next window's.
	id0      []byte
	numbered bool
	doc, tok uint64

	docs, tokens, bytes, nwindows int64
	repeated, groups              int64
	records, firsts               int64
	capped                        int64
	covered, coveredLater         int64
	repeatRuns                    int
}

// maxDocs is the most documents with a window: a place holds the number
// in 32 bits.
const maxDocs = 1 << 32

func (c *collector) take(b []byte) error {
	for len(b) > 0 {
		tag := b[0]
		b = b[1:]
		switch tag {
		case 'D':
			idLen, k := binary.Uvarint(b)
			b = b[k:]
			c.id0 = append(c.id0[:0], b[:idLen]...)
			b = b[idLen:]
			c.numbered = false
		case 'W':
			nwin := binary.LittleEndian.Uint32(b)
			b = b[4:]
			if !c.numbered {
				d := uint64(len(c.idEnds))
				if d >= maxDocs {
					return fmt.Errorf("more than %d documents of %d tokens or more: a window's place holds the document's number in 32 bits; split the corpus", uint64(maxDocs), c.n)
				}
				c.ids = append(c.ids, c.id0...)
				c.idEnds = append(c.idEnds, len(c.ids))
				c.numbered, c.doc, c.tok = true, d, 0
			}
			for range nwin {
				w := window{key: key{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])},
					pos: c.doc<<32 | c.tok, start: binary.LittleEndian.Uint32(b[16:]), end: binary.LittleEndian.Uint32(b[20:])}
				b = b[24:]
				c.tok++
				if err := c.windows.add(w); err != nil {
					return err
				}
			}
			c.nwindows += int64(nwin)
		case 'E':
			toks, k1 := binary.Uvarint(b)
			b = b[k1:]
			size, k2 := binary.Uvarint(b)
			b = b[k2:]
			c.docs++
			c.tokens += int64(toks)
			c.bytes += int64(size)
		default:
			panic("spans: bad worker output")
		}
	}
	return nil
}

// id returns the id of document d.
func (c *collector) id(d uint32) []byte {
	start := 0
	if d > 0 {
		start = c.idEnds[d-1]
	}
	return c.ids[start:c.idEnds[d]]
}

// checkEvery is how many records the sorted passes take between looks at
// the context.
const checkEvery = 1 << 20

// maxCount is the greatest COUNT a record holds (a part id's offsets'
// bound): a window in more places is written with it, and counted.
const maxCount = 1<<31 - 1

// maxGroupHeld is the most windows of one key held in memory; more go to a
// temporary file.
var maxGroupHeld = 1 << 16

// group takes the windows in key order and sorts those whose key occurs in
// two places or more by place, each with the number of places of its key
// and the first of them.
func (c *collector) group(ctx context.Context, mem int64, jobs int, dir string) error {
	var g groupBuf
	g.dir = dir
	defer g.close()
	flush := func() error {
		defer g.reset()
		if g.len < 2 {
			return nil
		}
		c.groups++
		c.repeated += g.len
		first := g.held[0]
		count := uint32(min(g.len, maxCount))
		if g.len > maxCount {
			c.capped++
		}
		return g.each(func(w *window) error {
			return c.repeats.add(repeat{pos: w.pos, first: first.pos, count: count,
				start: w.start, end: w.end, firstStart: first.start, firstEnd: first.end})
		})
	}
	// Windows held in memory that leave the repeated windows less than a
	// quarter of --memory go to a run first, so that those get all of it
	// (and a few large runs, not many small ones).
	if c.windows.spilled() == 0 && int64(len(c.windows.buf))*windowBytes > mem/4*3 {
		if err := c.windows.spill(); err != nil {
			return err
		}
	}
	var seen int64
	err := c.windows.each(func(w *window) error {
		if c.repeats == nil {
			// The window buffer is gone if it was spilled: the repeats
			// have what it held, else what it leaves.
			held := int64(len(c.windows.buf)) * windowBytes
			rc := repeatCodec
			ndocs := uint64(len(c.idEnds))
			rc.bucket = func(r *repeat) uint8 { return uint8(uint64(docOf(r.pos)) * 256 / ndocs) }
			c.repeats = newSorter(rc, int(max(mem-held, stream.BufferFloor)/repeatBytes), jobs, dir, "repeated windows")
		}
		if seen++; seen%checkEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if g.len > 0 && g.held[0].key != w.key {
			if err := flush(); err != nil {
				return err
			}
		}
		return g.add(w)
	})
	if err == nil {
		err = flush()
	}
	if c.repeats == nil {
		c.repeats = newSorter(repeatCodec, 0, 1, dir, "repeated windows")
	}
	return err
}

// groupBuf holds the windows of one key: the first maxGroupHeld in memory,
// the others in a temporary file.
type groupBuf struct {
	held  []window
	len   int64
	dir   string
	f     *os.File
	w     *bufio.Writer
	b     []byte
	spill int64
}

func (g *groupBuf) add(w *window) error {
	g.len++
	if len(g.held) < maxGroupHeld {
		g.held = append(g.held, *w)
		return nil
	}
	if g.f == nil {
		f, err := os.CreateTemp(g.dir, "neardup-spans-group-*")
		if err != nil {
			return err
		}
		os.Remove(f.Name()) // (read back through the open file)
		g.f, g.w, g.b = f, bufio.NewWriterSize(f, 1<<16), make([]byte, windowCodec.size)
	}
	windowCodec.put(g.b, w)
	g.spill++
	_, err := g.w.Write(g.b)
	return err
}

// each calls fn with every window of the group, in place order.
func (g *groupBuf) each(fn func(w *window) error) error {
	for i := range g.held {
		if err := fn(&g.held[i]); err != nil {
			return err
		}
	}
	if g.spill == 0 {
		return nil
	}
	if err := g.w.Flush(); err != nil {
		return err
	}
	if _, err := g.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(g.f, 1<<16)
	var w window
	for range g.spill {
		if _, err := io.ReadFull(r, g.b); err != nil {
			return fmt.Errorf("reading back the windows of a key: %w", err)
		}
		windowCodec.get(g.b, &w)
		if err := fn(&w); err != nil {
			return err
		}
	}
	return nil
}

func (g *groupBuf) reset() {
	g.held, g.len = g.held[:0], 0
	if g.spill > 0 {
		g.f.Truncate(0)
		g.f.Seek(0, io.SeekStart)
		g.w.Reset(g.f)
		g.spill = 0
	}
}

func (g *groupBuf) close() {
	if g.f != nil {
		g.f.Close()
	}
}

// write takes the repeated windows in place order, joins them into
// occurrences (occurrence.extends) and writes a record for each.
func (c *collector) write(ctx context.Context, w io.Writer) error {
	c.repeatRuns = c.repeats.spilled()
	var buf []byte
	var cur occurrence
	have := false
	// The bytes covered in the current document, by all records and by
	// those of later occurrences: the ends of the ranges so far.
	var coverDoc uint32
	var coverEnd, laterEnd uint32
	emit := func(o *occurrence) error {
		c.records++
		if o.doc != coverDoc || c.records == 1 {
			coverDoc, coverEnd, laterEnd = o.doc, 0, 0
		}
		c.covered += int64(o.end - min(max(o.start, coverEnd), o.end))
		coverEnd = max(coverEnd, o.end)
		if o.isFirst() {
			c.firsts++
		} else {
			c.coveredLater += int64(o.end - min(max(o.start, laterEnd), o.end))
			laterEnd = max(laterEnd, o.end)
		}
		buf = record.AppendSpan(buf, record.Span{Doc: c.id(o.doc), Start: int(o.start), End: int(o.end),
			Count: int64(o.count), First: c.id(o.firstDoc), FirstStart: int(o.firstStart), FirstEnd: int(o.firstEnd)})
		if len(buf) >= 1<<16 {
			_, err := w.Write(buf)
			buf = buf[:0]
			return err
		}
		return nil
	}
	var seen int64
	err := c.repeats.each(func(r *repeat) error {
		if seen++; seen%checkEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if have && cur.extends(r) {
			cur.extend(r)
			return nil
		}
		if have {
			if err := emit(&cur); err != nil {
				return err
			}
		}
		cur, have = occurrenceOf(r), true
		return nil
	})
	if err == nil && have {
		err = emit(&cur)
	}
	if err == nil && len(buf) > 0 {
		_, err = w.Write(buf)
	}
	return err
}

// summary writes the counts on stderr.
func (c *collector) summary(stderr io.Writer) {
	fmt.Fprintf(stderr, "spans: %d document(s), %d token(s), %d byte(s); %d window(s) of %d tokens, %d of them in %d repeated window(s) (a key in 2 places or more)\n",
		c.docs, c.tokens, c.bytes, c.nwindows, c.n, c.repeated, c.groups)
	fmt.Fprintf(stderr, "spans: %d occurrence(s) written, %d of them first places; %d byte(s) covered, %d of them by occurrences after the first\n",
		c.records, c.firsts, c.covered, c.coveredLater)
	if c.capped > 0 {
		fmt.Fprintf(stderr, "spans: %d repeated window(s) in more than %d places: their records say %d\n", c.capped, maxCount, maxCount)
	}
	if r1, r2 := c.windows.spilled(), c.repeatRuns; r1+r2 > 0 {
		fmt.Fprintf(stderr, "spans: spilled %d run(s) of windows and %d of repeated windows to disk (--memory)\n", r1, r2)
	}
}
