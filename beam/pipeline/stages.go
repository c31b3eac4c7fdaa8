package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
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

// document is a document's id, escaped as records carry it, and its text.
type document struct {
	ID   string
	Text []byte
}

func init() {
	beam.RegisterType(reflect.TypeOf((*HeaderLine)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*document)(nil)).Elem())
	register.DoFn5x1[context.Context, Chunk, func([]byte), func(string, []byte), func(HeaderLine), error](&shingleFn{})
	register.DoFn3x1[context.Context, []byte, func([]byte), error](&sketchFn{})
	register.DoFn3x1[context.Context, []byte, func(string, string), error](&bandFn{})
	register.DoFn4x1[context.Context, string, func(*string) bool, func(string), error](&bucketFn{})
	register.DoFn4x1[string, func(*string) bool, func(*[]byte) bool, func(string, document), error](&joinFirstFn{})
	register.DoFn4x1[string, func(*document) bool, func(*[]byte) bool, func(string), error](&scoreFn{})
	register.Function2x0[[]byte, func(string)](splitLines)
	register.Function1x2[string, string, string](splitPair)
	register.Function2x1[string, string, string](joinFields)
	register.Emitter1[[]byte]()
	register.Emitter1[HeaderLine]()
	register.Emitter1[string]()
	register.Emitter2[string, string]()
	register.Emitter2[string, []byte]()
	register.Emitter2[string, document]()
	register.Iter1[string]()
	register.Iter1[[]byte]()
	register.Iter1[document]()
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
// emits chunks of shingle records, the header lines of the documents and,
// when Docs is set, each document's id and text for verify.
type shingleFn struct {
	Opt  Options
	Docs bool
	w    *shingle.Worker
}

func (fn *shingleFn) Setup() error {
	so, err := fn.Opt.shingleOptions()
	if err != nil {
		return err
	}
	fn.w = shingle.NewWorker(&so)
	return nil
}

func (fn *shingleFn) ProcessElement(ctx context.Context, c Chunk, emit func([]byte), emitDoc func(string, []byte), emitHeader func(HeaderLine)) error {
	var r stream.Result
	fn.w.Documents(c.streamChunk(), &r, func(id, text []byte) error {
		var err error
		if r.Out, err = fn.w.AppendRecord(r.Out, id, text); err != nil {
			return err
		}
		if fn.Docs {
			emitDoc(string(id), slices.Clone(text))
		}
		return nil
	})
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
	fn.w = band.Workers(b, false, &fn.empty)()
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
	splitLines(r.Out, func(line string) {
		key, id, _ := strings.Cut(line, "\t")
		emit(key, id)
	})
	return nil
}

// joinFields makes a record of a key and a value.
func joinFields(key, value string) string { return key + "\t" + value }

// splitLines emits each record of a chunk, without its line end.
func splitLines(records []byte, emit func(string)) {
	for len(records) > 0 {
		i := bytes.IndexByte(records, '\n')
		emit(string(records[:i]))
		records = records[i+1:]
	}
}

// bucketFn pairs the ids of one bucket (the ids of the band records of one
// key) as the pairs stage does: each pair of distinct ids once per bucket, idA <
// idB. Pairs found in more than one bucket are made distinct afterwards.
type bucketFn struct {
	MaxBucket, Reps int
}

func (fn *bucketFn) ProcessElement(ctx context.Context, key string, bucket func(*string) bool, emit func(string)) error {
	var ids [][]byte
	var id string
	for bucket(&id) {
		ids = append(ids, []byte(id))
	}
	var pair []byte
	repeated, _, notMade, err := pairs.Bucket(ids, &pairs.Options{MaxBucket: fn.MaxBucket, Reps: fn.Reps}, func(a, b []byte) error {
		pair = record.AppendPair(pair[:0], a, b)
		emit(string(pair[:len(pair)-1]))
		return nil
	})
	if repeated > 0 {
		beam.NewCounter("neardup", "pairs-repeated-records").Inc(ctx, int64(repeated))
	}
	if notMade > 0 {
		beam.NewCounter("neardup", "pairs-capped-buckets").Inc(ctx, 1)
		beam.NewCounter("neardup", "pairs-not-made").Inc(ctx, notMade)
	}
	return err
}

// splitPair keys a candidate pair by its first id.
func splitPair(p string) (string, string) {
	a, b, _ := strings.Cut(p, "\t")
	return a, b
}

// onlyText returns the text of the one document of an id. More than one is
// an error, as in verify; none is an error only when a pair needs it.
func onlyText(texts func(*[]byte) bool) ([]byte, int) {
	var text, t []byte
	n := 0
	for texts(&t) {
		text = t
		n++
	}
	return text, n
}

func documentError(id string, n int) error {
	if n == 0 {
		return fmt.Errorf("id %s is in a pair but has no document", id)
	}
	return fmt.Errorf("id %s appears more than once in the documents", id)
}

// joinFirstFn joins candidate pairs keyed by their first id with the
// documents keyed by id, and emits each pair's second id with the first
// document.
type joinFirstFn struct{}

func (*joinFirstFn) ProcessElement(id string, seconds func(*string) bool, texts func(*[]byte) bool, emit func(string, document)) error {
	text, n := onlyText(texts)
	var b string
	for seconds(&b) {
		if n != 1 {
			return documentError(id, n)
		}
		emit(b, document{ID: id, Text: text})
	}
	return nil
}

// scoreFn joins the output of joinFirstFn with the documents keyed by id
// and scores each pair as verify --shingles does: exact similarity of the
// sets parsed from the documents' shingle records, made by the shingle
// stage's worker. Documents travel instead of their shingle records, which
// are many times larger (17 bytes per shingle).
type scoreFn struct {
	Opt Options
	w   *shingle.Worker
	rec []byte
}

func (fn *scoreFn) Setup() error {
	so, err := fn.Opt.shingleOptions()
	if err != nil {
		return err
	}
	fn.w = shingle.NewWorker(&so)
	return nil
}

// set returns the shingle set of a document, parsed from its record.
func (fn *scoreFn) set(dst []uint64, id string, text []byte) ([]uint64, error) {
	var err error
	if fn.rec, err = fn.w.AppendRecord(fn.rec[:0], []byte(id), text); err != nil {
		return nil, fmt.Errorf("%s: %v", id, err)
	}
	_, field, _ := record.SplitShingles(fn.rec[:len(fn.rec)-1])
	set, _, err := record.ParseShingles(dst[:0], nil, field)
	if err != nil {
		return nil, fmt.Errorf("shingle record of %s: %v", id, err)
	}
	return set, nil
}

func (fn *scoreFn) ProcessElement(id string, firsts func(*document) bool, texts func(*[]byte) bool, emit func(string)) error {
	text, n := onlyText(texts)
	var setA, setB []uint64
	var out []byte
	var a document
	for i := 0; firsts(&a); i++ {
		if n != 1 {
			return documentError(id, n)
		}
		var err error
		if i == 0 {
			if setB, err = fn.set(setB, id, text); err != nil {
				return err
			}
		}
		if setA, err = fn.set(setA, a.ID, a.Text); err != nil {
			return err
		}
		j, cab, cba := verify.Exact(setA, setB)
		out = verify.AppendScored(out[:0], []byte(a.ID), []byte(id), j, cab, cba, fn.Opt.VerifyThreshold, fn.Opt.Containment)
		if len(out) > 0 {
			emit(string(out[:len(out)-1]))
		}
	}
	return nil
}
