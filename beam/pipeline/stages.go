package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/pairs"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/sketch"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/verify"
)

// HeaderLine is a header line found in the documents, with its place.
type HeaderLine struct {
	File string
	Line int64
	Text string
}

func init() {
	beam.RegisterType(reflect.TypeOf((*HeaderLine)(nil)).Elem())
	register.DoFn4x1[context.Context, Chunk, func([]byte), func(HeaderLine), error](&shingleFn{})
	register.DoFn3x1[context.Context, []byte, func([]byte), error](&sketchFn{})
	register.DoFn3x1[context.Context, []byte, func(string, string), error](&bandFn{})
	register.DoFn4x1[context.Context, string, func(*string) bool, func(string), error](&bucketFn{})
	register.DoFn4x1[string, func(*string) bool, func(*string) bool, func(string, string), error](&joinFirstFn{})
	register.DoFn4x1[string, func(*string) bool, func(*string) bool, func(string), error](&scoreFn{})
	register.Function2x0[[]byte, func(string)](splitLines)
	register.Function2x0[[]byte, func(string, string)](keyByFirstField)
	register.Function1x2[string, string, string](splitPair)
	register.Emitter1[[]byte]()
	register.Emitter1[HeaderLine]()
	register.Emitter1[string]()
	register.Emitter2[string, string]()
	register.Iter1[string]()
}

// skipped handles the lines a worker skipped under SkipBad: counted, the
// first few logged. A result's error stops the pipeline.
func skipped(ctx context.Context, stage string, r *stream.Result) error {
	if r.NSkipped > 0 {
		beam.NewCounter("neardup", stage+"-skipped").Inc(ctx, r.NSkipped)
		for _, e := range r.Skipped {
			log.Warnf(ctx, "%s: skipped %s", stage, e)
		}
	}
	return r.Err
}

// shingleFn runs the shingle stage's worker on chunks of documents: it
// emits chunks of shingle records and the header lines of the documents.
type shingleFn struct {
	Opt Options
	w   stream.Worker
}

func (fn *shingleFn) Setup() error {
	so, err := fn.Opt.shingleOptions()
	if err != nil {
		return err
	}
	fn.w = shingle.NewWorker(&so)
	return nil
}

func (fn *shingleFn) ProcessElement(ctx context.Context, c Chunk, emit func([]byte), emitHeader func(HeaderLine)) error {
	var r stream.Result
	fn.w.Process(c.streamChunk(), &r)
	for _, h := range r.Headers {
		emitHeader(HeaderLine{File: h.Pos.File, Line: h.Pos.Line, Text: h.Header.String()})
	}
	if err := skipped(ctx, "shingle", &r); err != nil {
		return err
	}
	if len(r.Out) > 0 {
		emit(r.Out)
	}
	return nil
}

// recordsName names the records a pipeline stage reads in messages.
const recordsName = "(pipeline records)"

// sketchFn runs the sketch stage's worker on chunks of shingle records.
type sketchFn struct {
	Opt Options
	w   stream.Worker
}

func (fn *sketchFn) Setup() {
	so := fn.Opt.sketchOptions()
	fn.w = sketch.Workers(&so)()
}

func (fn *sketchFn) ProcessElement(ctx context.Context, records []byte, emit func([]byte)) error {
	var r stream.Result
	fn.w.Process(&stream.Chunk{File: recordsName, FirstLine: 1, Data: records}, &r)
	if err := skipped(ctx, "sketch", &r); err != nil {
		return err
	}
	if len(r.Out) > 0 {
		emit(r.Out)
	}
	return nil
}

// bandFn runs the band stage's worker on chunks of signatures and emits
// each band record as a key and an id.
type bandFn struct {
	Opt   Options
	w     stream.Worker
	empty atomic.Int64
}

func (fn *bandFn) Setup() {
	b, _ := fn.Opt.Banding()
	fn.w = band.NewWorker(b, false, &fn.empty)
}

func (fn *bandFn) ProcessElement(ctx context.Context, sketches []byte, emit func(string, string)) error {
	var r stream.Result
	fn.w.Process(&stream.Chunk{File: recordsName, FirstLine: 1, Data: sketches}, &r)
	if err := skipped(ctx, "band", &r); err != nil {
		return err
	}
	if n := fn.empty.Swap(0); n > 0 {
		beam.NewCounter("neardup", "band-empty-documents").Inc(ctx, n)
	}
	keyByFirstField(r.Out, emit)
	return nil
}

// keyByFirstField emits each record of a chunk as its first field and the
// whole record.
func keyByFirstField(records []byte, emit func(string, string)) {
	splitLines(records, func(line string) {
		key, _, _ := strings.Cut(line, "\t")
		emit(key, line)
	})
}

// splitLines emits each record of a chunk, without its line end.
func splitLines(records []byte, emit func(string)) {
	for len(records) > 0 {
		i := bytes.IndexByte(records, '\n')
		emit(string(records[:i]))
		records = records[i+1:]
	}
}

// bucketFn pairs the ids of one bucket (band records keyed by band key) as
// the pairs stage does: each pair of distinct ids once per bucket, idA <
// idB. Pairs found in more than one bucket are made distinct afterwards.
type bucketFn struct {
	MaxBucket int
}

func (fn *bucketFn) ProcessElement(ctx context.Context, key string, records func(*string) bool, emit func(string)) error {
	var ids [][]byte
	var rec string
	for records(&rec) {
		_, id, _ := strings.Cut(rec, "\t")
		ids = append(ids, []byte(id))
	}
	var pair []byte
	repeated, distinct, err := pairs.Bucket(ids, fn.MaxBucket, func(a, b []byte) error {
		pair = append(append(append(pair[:0], a...), '\t'), b...)
		emit(string(pair))
		return nil
	})
	if repeated > 0 {
		beam.NewCounter("neardup", "pairs-repeated-records").Inc(ctx, int64(repeated))
	}
	if fn.MaxBucket > 0 && distinct > fn.MaxBucket {
		beam.NewCounter("neardup", "pairs-capped-buckets").Inc(ctx, 1)
		beam.NewCounter("neardup", "pairs-capped-ids").Inc(ctx, int64(distinct-fn.MaxBucket))
	}
	return err
}

// splitPair keys a candidate pair by its first id.
func splitPair(p string) (string, string) {
	a, b, _ := strings.Cut(p, "\t")
	return a, b
}

// onlyRecord returns the one shingle record of an id. More than one is an
// error, as in verify; none is an error only when a pair needs it.
func onlyRecord(id string, records func(*string) bool) (string, int) {
	var rec, r string
	n := 0
	for records(&r) {
		rec = r
		n++
	}
	return rec, n
}

func recordError(id string, n int) error {
	if n == 0 {
		return fmt.Errorf("id %s is in a pair but has no shingle record", id)
	}
	return fmt.Errorf("id %s appears more than once in the documents", id)
}

// joinFirstFn joins candidate pairs keyed by their first id with the
// shingle records keyed by id, and emits each pair's second id with the
// first id's shingle record.
type joinFirstFn struct{}

func (*joinFirstFn) ProcessElement(id string, seconds func(*string) bool, records func(*string) bool, emit func(string, string)) error {
	rec, n := onlyRecord(id, records)
	var b string
	for seconds(&b) {
		if n != 1 {
			return recordError(id, n)
		}
		emit(b, rec)
	}
	return nil
}

// scoreFn joins the output of joinFirstFn with the shingle records keyed by
// id and scores each pair exactly, as verify --shingles does.
type scoreFn struct {
	Threshold   float64
	Containment bool
}

func (fn *scoreFn) ProcessElement(id string, firsts func(*string) bool, records func(*string) bool, emit func(string)) error {
	rec, n := onlyRecord(id, records)
	var setB, setA []uint64
	var out []byte
	parsed := false
	var recA string
	for firsts(&recA) {
		if n != 1 {
			return recordError(id, n)
		}
		if !parsed {
			var err error
			if setB, err = parseSet(rec); err != nil {
				return err
			}
			parsed = true
		}
		a, field, _ := strings.Cut(recA, "\t")
		var err error
		setA, _, err = record.ParseShingles(setA[:0], nil, []byte(field))
		if err != nil {
			return fmt.Errorf("shingle record of %s: %v", a, err)
		}
		j, cab, cba := verify.Exact(setA, setB)
		out = verify.AppendScored(out[:0], []byte(a), []byte(id), j, cab, cba, fn.Threshold, fn.Containment)
		if len(out) > 0 {
			emit(string(out[:len(out)-1]))
		}
	}
	return nil
}

func parseSet(rec string) ([]uint64, error) {
	id, field, _ := strings.Cut(rec, "\t")
	set, _, err := record.ParseShingles(nil, nil, []byte(field))
	if err != nil {
		return nil, fmt.Errorf("shingle record of %s: %v", id, err)
	}
	return set, nil
}
