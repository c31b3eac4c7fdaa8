// Package docfreq is the docfreq stage: it counts, for every shingle hash,
// the number of documents that hold it, and writes the document-frequency
// table that SimHash's idf weights read:
//
//	#neardup stage=shingle …          the shingle parameters, copied
//	#neardup stage=docfreq docs=N     N documents were counted
//	hash TAB count                    ascending by hash, each hash once
//
// The pass is a map/reduce keyed on the shingle hash. Counting (Run) keeps
// every hash it reads, 8 bytes each, in one buffer; when the buffer is full
// it sorts it in place and writes the distinct hashes and their counts to a
// run file, and the runs are merged at the end, so the input can be larger
// than memory (count.go). Merging (Merge) streams key-sorted tables: the
// partial tables of shards counted apart, or one stream sorted by hash
// (LC_ALL=C sort) in which equal hashes are adjacent, as a Hadoop reducer
// gets them. It sums the counts of equal hashes and the document counts of
// the docfreq header lines it reads (each line is one partial table), and
// holds one line per input.
package docfreq

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Stage is the stage name in headers.
const Stage = "docfreq"

// Options configure the stage.
type Options struct {
	// MemoryBytes bounds the counting buffer and its sorting scratch; 0
	// is stream's default (Resolve).
	MemoryBytes int64
	// TempDir holds spilled runs ("" is the system's).
	TempDir string

	stream.Common
}

// Resolve checks the options and fills in their defaults (-j, --memory),
// the one place where both are done: Run calls it. Its errors are usage
// errors.
func (o *Options) Resolve() error {
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	o.MemoryBytes = stream.Memory(o.MemoryBytes)
	return stream.CheckUpFront(o.MemoryBytes)
}

// header returns the stage's header line for docs documents.
func header(docs uint64) record.Header {
	return record.NewHeader(Stage, "docs", strconv.FormatUint(docs, 10))
}

// Run counts the documents of the shingle records read from inputs
// (standard input when there are none) per hash and writes the table.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	src := stream.NewLines(inputs)
	defer src.Close()
	out := stream.NewOutput(Stage, opt.Common, stdout, stderr, header(0))
	w := out.W
	out.CheckHeader = func(h record.Header, pos record.Pos) error {
		// Shingle records, of documents or of their parts.
		if h.Stage != "shingle" && h.Stage != "parts" {
			return record.Errorf(pos, "docfreq counts shingle records; the input went through %s (docfreq --merge merges tables)", h.Stage)
		}
		return nil
	}
	defer out.Watch(src)()
	c := newCounter(&opt, opt.Jobs)
	defer c.runs.Remove()
	docs, err := c.count(ctx, opt, src, out.Sink)
	if err != nil {
		return err
	}
	w.SetOwn(header(docs))
	if c.n > 0 || c.runs.Len() > 0 {
		if err := c.finish(ctx, w); err != nil {
			return err
		}
	}
	return out.Finish()
}

// count counts the hashes of the shingle records src reads, and returns
// the number of records; check takes each chunk's result (its headers,
// the lines it skipped, an error) before its hashes are counted.
func (c *counter) count(ctx context.Context, opt Options, src stream.Source, check func(*stream.Result) error) (docs uint64, err error) {
	// The workers' hash slices come back for reuse: garbage as large as
	// the input would sit beside the buffer until the collector ran.
	free := make(chan *chunkCounts, 3*opt.Jobs+3)
	sink := func(r *stream.Result) error {
		if err := check(r); err != nil {
			return err
		}
		cc := r.Value.(*chunkCounts)
		docs += cc.docs
		err := c.add(cc.hashes, &cc.ends)
		select {
		case free <- cc:
		default:
		}
		return err
	}
	newWorker := func() stream.Worker { return &worker{skipBad: opt.SkipBad, free: free} }
	err = stream.Run(ctx, src, opt.Common, newWorker, sink)
	return docs, err
}

// chunkCounts is what a worker makes of a chunk: every record's distinct
// hashes in their buckets (partition), and the number of records.
type chunkCounts struct {
	hashes []uint64
	ends   [buckets]int
	docs   uint64
}

type worker struct {
	skipBad bool
	free    chan *chunkCounts
	// read holds the chunk's hashes in the order read.
	read []uint64
}

func (w *worker) Process(c *stream.Chunk, r *stream.Result) {
	var cc *chunkCounts
	select {
	case cc = <-w.free:
		cc.hashes, cc.docs = cc.hashes[:0], 0
	default:
		cc = &chunkCounts{}
	}
	w.read = w.read[:0]
	c.Lines(r, w.skipBad, func(line []byte, _ int64) error {
		_, field, err := record.SplitShingles(line)
		if err != nil {
			return err
		}
		n := len(w.read)
		w.read, _, err = record.ParseShingles(w.read, nil, field)
		if err != nil {
			w.read = w.read[:n]
			return err
		}
		cc.docs++
		return nil
	})
	cc.hashes = partition(cc.hashes, w.read, &cc.ends)
	r.Value = cc
}

// tableReader reads one key-sorted table.
type tableReader struct {
	name string
	r    *bufio.Reader
	line int64
	// onHeader takes the header lines; nil means none are expected.
	onHeader func(h record.Header, pos record.Pos) error
	hash     uint64
	count    uint64
	started  bool
	closer   io.Closer
}

func (t *tableReader) entry() (uint64, uint64) { return t.hash, t.count }

func (t *tableReader) close() {
	if t.closer != nil {
		t.closer.Close()
	}
}

// next reads the next entry; it returns false at the end.
func (t *tableReader) next() (bool, error) {
	for {
		line, err := t.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return false, record.Errorf(record.Pos{File: t.name, Line: t.line + 1}, "line longer than %d bytes: not a document-frequency table", t.r.Size())
		}
		if err != nil && err != io.EOF {
			return false, err
		}
		if len(line) == 0 {
			return false, nil
		}
		t.line++
		pos := record.Pos{File: t.name, Line: t.line}
		line = record.TrimEOL(line)
		if record.IsHeader(line) {
			if t.started {
				return false, record.Errorf(pos, "header line after table entries: sort the tables with LC_ALL=C so that headers come first")
			}
			h, err := record.ParseHeader(line)
			if err != nil {
				return false, record.Errorf(pos, "%v", err)
			}
			if t.onHeader == nil {
				return false, record.Errorf(pos, "unexpected header line")
			}
			if err := t.onHeader(h, pos); err != nil {
				return false, err
			}
			continue
		}
		h, c, perr := record.ParseDocFreq(line)
		if perr != nil {
			return false, record.Errorf(pos, "%v", perr)
		}
		if t.started && h < t.hash {
			return false, record.Errorf(pos, "hash %016x comes after %016x: tables must be sorted by hash (LC_ALL=C sort)", h, t.hash)
		}
		t.hash, t.count, t.started = h, c, true
		return true, nil
	}
}

// Merge merges document-frequency tables, each sorted by hash, read from
// inputs (standard input when there are none), into one.
func Merge(ctx context.Context, inputs []string, stdout io.Writer) error {
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	w := record.NewWriter(stdout, false, false)
	var docs uint64
	parts := 0
	onHeader := func(h record.Header, pos record.Pos) error {
		if h.Stage != Stage {
			return w.Header(h, pos)
		}
		v, _ := h.Get("docs")
		n, ok := record.ParseUint([]byte(v))
		if !ok {
			return record.Errorf(pos, "docfreq header without a document count (docs=N)")
		}
		docs += n
		parts++
		return nil
	}
	var ins []*tableReader
	defer func() {
		for _, t := range ins {
			t.close()
		}
	}()
	var h []source
	for _, name := range inputs {
		in, err := input.Open(name)
		if err != nil {
			return err
		}
		t := &tableReader{name: in.Name, r: bufio.NewReaderSize(in, 1<<16), onHeader: onHeader, closer: in}
		ins = append(ins, t)
		ok, err := t.next()
		if err != nil {
			return err
		}
		if ok {
			h = append(h, t)
		}
	}
	// Every header has been read: each input's come before its entries.
	if parts == 0 && len(h) > 0 {
		return fmt.Errorf("%s: no docfreq header (docs=N): not a document-frequency table made by docfreq", inputs[0])
	}
	w.SetOwn(header(docs))
	if parts > 0 {
		w.Touch()
	}
	if err := mergeStarted(ctx, h, textWriter(w)); err != nil {
		return err
	}
	return w.Close()
}
