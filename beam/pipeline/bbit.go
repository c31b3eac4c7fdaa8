package pipeline

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/sketch"
)

// The b-bit filter (Options.BBit), as band --bbit FILE and pairs --bbit
// FILE: each candidate pair is judged by the sizes and 4-bit signatures
// (minhash.AppendBits) of its two documents, and those far below the
// threshold the banding was chosen for are set aside (bbit.Counts.Judge,
// pairs' judge) before the candidates are written and verified. Where the
// command line reads the signatures from band's file into memory, here they
// travel: each candidate is joined with the signature of its first id, then
// of its second (two CoGroupByKeys of the distinct candidates, with some
// 80 bytes a document for n = 128), so that the pairs set aside never reach
// verify's joins, which carry a document's text with every pair. A pair
// is judged once, not once per bucket that makes it: the counters
// (pairs-bbit-tried, pairs-bbit-by-size, pairs-bbit-by-signature) count
// distinct pairs, pairs --bbit's summary pairs tried in each bucket.

// bitSig is a document's b-bit signature and the size of its shingle set.
type bitSig struct {
	Size int
	Bits []byte
}

// halfJudged is a candidate pair's first id and its signature.
type halfJudged struct {
	A   string
	Sig bitSig
}

func init() {
	beam.RegisterType(reflect.TypeOf((*bitSig)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*halfJudged)(nil)).Elem())
	register.DoFn3x1[context.Context, []byte, func(string, bitSig), error](&bitSigFn{})
	register.Function4x1[string, func(*string) bool, func(*bitSig) bool, func(string, halfJudged), error](signFirst)
	register.DoFn5x1[context.Context, string, func(*halfJudged) bool, func(*bitSig) bool, func(string), error](&judgeFn{})
	register.Emitter2[string, bitSig]()
	register.Emitter2[string, halfJudged]()
	register.Iter1[bitSig]()
	register.Iter1[halfJudged]()
}

// bitSigFn makes the b-bit signature of each signature of a chunk of
// sketch records, keyed by its id: those of documents with shingles, which
// alone get band keys.
type bitSigFn struct{}

func (*bitSigFn) ProcessElement(ctx context.Context, sketches []byte, emit func(string, bitSig)) error {
	var sk record.Sketch
	var err error
	splitLines(sketches, func(line string) {
		if err != nil {
			return
		}
		if err = record.ParseSketch(&sk, []byte(line)); err != nil {
			err = fmt.Errorf("%s: %v", recordsName, err)
			return
		}
		if sk.Size > 0 {
			emit(string(sk.ID), bitSig{Size: int(sk.Size), Bits: minhash.AppendBits(nil, sk.Values)})
		}
	})
	return err
}

// onlySig returns the one signature of an id; n says how many there were.
func onlySig(sigs func(*bitSig) bool) (bitSig, int) {
	var sig, s bitSig
	n := 0
	for sigs(&s) {
		sig = s
		n++
	}
	return sig, n
}

func sigError(id string, n int) error {
	if n == 0 {
		return fmt.Errorf("id %s is in a candidate pair but has no signature", id)
	}
	return fmt.Errorf("id %s has %d signatures", id, n)
}

// signFirst joins candidate pairs keyed by their first id with the
// signatures, and emits each pair's second id with the first's signature.
func signFirst(a string, seconds func(*string) bool, sigs func(*bitSig) bool, emit func(string, halfJudged)) error {
	sig, n := onlySig(sigs)
	var b string
	for seconds(&b) {
		if n != 1 {
			return sigError(a, n)
		}
		emit(b, halfJudged{A: a, Sig: sig})
	}
	return nil
}

// judgeFn joins the output of signFirst with the signatures and emits the
// candidate pairs not far below Threshold.
type judgeFn struct {
	Threshold float64
	Densified bool
}

func (fn *judgeFn) ProcessElement(ctx context.Context, b string, firsts func(*halfJudged) bool, sigs func(*bitSig) bool, emit func(string)) error {
	sig, n := onlySig(sigs)
	var c bbit.Counts
	var h halfJudged
	var pair []byte
	for firsts(&h) {
		if n != 1 {
			return sigError(b, n)
		}
		c.Pairs++
		if c.Judge(h.Sig.Bits, sig.Bits, h.Sig.Size, sig.Size, fn.Threshold, false, fn.Densified) {
			continue
		}
		pair = record.AppendPair(pair[:0], h.A, b)
		emit(string(pair[:len(pair)-1]))
	}
	for name, v := range map[string]int64{"tried": c.Pairs, "by-size": c.BySize, "by-signature": c.BySignature} {
		if v > 0 {
			beam.NewCounter("neardup", "pairs-bbit-"+name).Inc(ctx, v)
		}
	}
	return nil
}

// judged returns the candidate pairs (PCollection<string>) that the b-bit
// filter keeps, the signatures made from sketches.
func judged(s beam.Scope, opt Options, candidates, sketches beam.PCollection) beam.PCollection {
	s = s.Scope("bbit")
	sigs := beam.ParDo(s, &bitSigFn{}, sketches)
	firsts := beam.ParDo(s, signFirst, beam.CoGroupByKey(s, beam.ParDo(s, splitPair, candidates), sigs))
	fn := &judgeFn{Threshold: opt.Threshold, Densified: opt.Method == sketch.OPH}
	return beam.ParDo(s, fn, beam.CoGroupByKey(s, firsts, sigs))
}

// bbitName stands for band's file of b-bit signatures in the pairs
// options: the signatures are the pipeline's.
const bbitName = "(pipeline signatures)"
