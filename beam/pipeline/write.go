package pipeline

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/record"
)

func init() {
	register.DoFn1x2[string, int, string](&shardFn{})
	register.Function1x2[int, int, bool](shardMark)
	register.DoFn7x1[context.Context, int, func(*string) bool, func(*bool) bool, func(*HeaderLine) bool, func(*int64) bool, func(string), error](&writeFn{})
	register.Iter1[bool]()
	register.Iter1[int64]()
	register.DoFn2x1[[]byte, func(*HeaderLine) bool, error](&checkHeadersFn{})
	register.Iter1[HeaderLine]()
}

// ShardPath returns the name of shard i of n of an output of records.
func ShardPath(prefix, output string, i, n int) string {
	return shardName(prefix, output, i, n, ".tsv")
}

func shardName(prefix, output string, i, n int, ext string) string {
	return fmt.Sprintf("%s-%s-%05d-of-%05d%s", prefix, output, i, n, ext)
}

// shardFn assigns a record to a shard by the hash of its first field, so
// that the records of one key (a cluster, a pair's first id) share a shard.
type shardFn struct {
	Shards int
}

func (fn *shardFn) ProcessElement(line string) (int, string) {
	key, _, _ := strings.Cut(line, "\t")
	return int(xxhash.Sum64String(key) % uint64(fn.Shards)), line
}

func shardMark(i int) (int, bool) { return i, true }

// shardMarks returns a mark for each shard (PCollection<KV<int, bool>>), so
// that grouped with an output's records every shard is written, empty ones
// too.
func shardMarks(s beam.Scope, n int) beam.PCollection {
	var shards []any
	for i := range n {
		shards = append(shards, i)
	}
	return beam.ParDo(s, shardMark, beam.Create(s, shards...))
}

// writeFn writes one shard of an output: the header lines, as the
// command-line stage writes them (the documents' own headers and those of
// the stages before, then its own), and the records sorted bytewise, so
// that every shard is a record file sorted as LC_ALL=C sort sorts and a
// run gives the same files every time. A shard is sorted in the memory of
// one worker: choose the number of shards to fit.
type writeFn struct {
	Prefix   string
	Output   string
	Shards   int
	Upstream []string
	Own      string
	NoHeader bool
}

func (fn *writeFn) ProcessElement(ctx context.Context, shard int, lines func(*string) bool, _ func(*bool) bool, docHeaders func(*HeaderLine) bool, chunks func(*int64) bool, emitPath func(string)) error {
	var recs []string
	var l string
	for lines(&l) {
		recs = append(recs, l)
	}
	slices.Sort(recs)
	docs := sortedHeaders(docHeaders)

	path := ShardPath(fn.Prefix, fn.Output, shard, fn.Shards)
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	f, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return err
	}
	own, err := record.ParseHeader([]byte(fn.Own))
	if err != nil {
		return err
	}
	// The count of chunks read is one value, or none when the input is
	// empty (a global combine of nothing).
	var n, seen int64
	for chunks(&n) {
		seen += n
	}
	w := record.NewWriter(f, fn.NoHeader, false, own)
	err = fn.write(w, docs, recs, seen > 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	emitPath(path)
	return nil
}

func (fn *writeFn) write(w *record.Writer, docs []HeaderLine, recs []string, seen bool) error {
	if !seen {
		// An empty input: no stage saw a line, so none writes a header.
		return w.Close()
	}
	if err := writeHeaders(w, docs); err != nil {
		return err
	}
	for _, u := range fn.Upstream {
		h, err := record.ParseHeader([]byte(u))
		if err != nil {
			return err
		}
		if err := w.Header(h, record.Pos{File: recordsName}); err != nil {
			return err
		}
	}
	w.Touch()
	var buf []byte
	for _, r := range recs {
		buf = append(append(buf, r...), '\n')
		if len(buf) >= 1<<16 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return w.Close()
}

// sortedHeaders returns the documents' header lines in input order.
func sortedHeaders(docHeaders func(*HeaderLine) bool) []HeaderLine {
	var docs []HeaderLine
	var h HeaderLine
	for docHeaders(&h) {
		docs = append(docs, h)
	}
	slices.SortFunc(docs, func(a, b HeaderLine) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return int(a.Line - b.Line)
	})
	return docs
}

// writeHeaders gives w the documents' header lines, which it checks.
func writeHeaders(w *record.Writer, docs []HeaderLine) error {
	for _, d := range docs {
		h, err := record.ParseHeader([]byte(d.Text))
		if err != nil {
			return err
		}
		if err := w.Header(h, record.Pos{File: d.File, Line: d.Line}); err != nil {
			return err
		}
	}
	return nil
}

// checkHeadersFn checks the documents' header lines as the shingle stage
// does (record.Writer.Header): a header of a stage the pipeline runs, or
// two different headers of one stage, stop the pipeline. writeFn checks
// them as it writes an output of records; the dedup outputs copy them, and
// this checks them for those.
type checkHeadersFn struct {
	Own string
}

func (fn *checkHeadersFn) ProcessElement(_ []byte, docHeaders func(*HeaderLine) bool) error {
	own, err := record.ParseHeader([]byte(fn.Own))
	if err != nil {
		return err
	}
	return writeHeaders(record.NewWriter(io.Discard, true, false, own), sortedHeaders(docHeaders))
}

// checkHeaders adds the check of the documents' header lines
// (PCollection<HeaderLine>) against the shingle stage's.
func checkHeaders(s beam.Scope, opt Options, docHeaders beam.PCollection) {
	s = s.Scope("check headers")
	beam.ParDo0(s, &checkHeadersFn{Own: opt.headers()[OutShingles].String()}, beam.Impulse(s), beam.SideInput{Input: docHeaders})
}

// writeRecords writes records (PCollection<string>, lines without their
// end) as the shards of one output and returns the paths written.
func writeRecords(s beam.Scope, opt Options, output string, records, docHeaders, seen beam.PCollection) beam.PCollection {
	s = s.Scope("write " + output)
	hs := opt.headers()
	var upstream []string
	for _, o := range AllOutputs {
		if o == output {
			break
		}
		upstream = append(upstream, hs[o].String())
	}
	marks := shardMarks(s, opt.Shards)
	keyed := beam.ParDo(s, &shardFn{Shards: opt.Shards}, records)
	grouped := beam.CoGroupByKey(s, keyed, marks)
	return beam.ParDo(s, &writeFn{
		Prefix: opt.Output, Output: output, Shards: opt.Shards,
		Upstream: upstream, Own: hs[output].String(), NoHeader: opt.NoHeader,
	}, grouped, beam.SideInput{Input: docHeaders}, beam.SideInput{Input: seen})
}
