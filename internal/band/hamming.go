package band

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/simhash"
	"github.com/neardup/neardup/internal/stream"
)

// A Hamming band record is
//
//	key TAB id TAB fingerprint
//
// where the key is the table number (4 hex digits) and the table's key bits
// (the permuted fingerprint's leading bits, the rest zero) in f/4 hex
// digits, so that byte order groups a table's keys together. The fingerprint
// rides along so that pairs can drop the pairs beyond K bits and report
// each pair from its first table only.

// AppendHammingKey appends the key of table t with key bits key, for f-bit
// fingerprints.
func AppendHammingKey(dst []byte, t int, key simhash.Fingerprint, f int) []byte {
	dst = AppendKey(dst, t, key.Hi)
	if f == 128 {
		dst = record.AppendHex64(dst, key.Lo)
	}
	return dst
}

// checkSimHashSketch refuses sketch headers of another method or length.
func checkSimHashSketch(h record.Header, pos record.Pos, f int) error {
	if h.Stage != "sketch" {
		return nil
	}
	if m, _ := h.Get("method"); !record.IsFingerprints(m) {
		return record.Errorf(pos, "band --hamming needs simhash fingerprints (sketch --method simhash), the input holds %s sketches", m)
	}
	if err := record.CheckHammingBits(h, pos, "band --hamming"); err != nil {
		return err
	}
	if f > 0 && h.Int("f", 64) != f {
		return record.Errorf(pos, "the input holds %d-bit fingerprints, the scheme is for %d bits", h.Int("f", 64), f)
	}
	return nil
}

func runHamming(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	src := stream.NewLines(inputs)
	defer src.Close()
	headers, first, err := src.Peek()
	if err != nil {
		return err
	}
	f := 0
	for _, h := range headers {
		if err := checkSimHashSketch(h.Header, h.Pos, 0); err != nil {
			return err
		}
		if h.Header.Stage == "sketch" {
			f = h.Header.Int("f", 64)
		}
	}
	if f == 0 && first != nil {
		var s record.SimSketch
		if err := record.ParseSimSketch(&s, first); err == nil {
			f = s.F
		}
	}
	if f == 0 {
		f = 64 // empty input: nothing to key
	}
	scheme, err := opt.Hamming.Scheme(f)
	if err != nil {
		return err
	}
	if opt.Verbose {
		fmt.Fprintf(stderr, "band: %s", scheme.Describe())
	}
	out := stream.NewOutput("band", opt.Common, stdout, stderr, record.HammingHeader(scheme.Params()))
	out.RecordsOf = "sketch"
	out.CheckHeader = func(h record.Header, pos record.Pos) error { return checkSimHashSketch(h, pos, f) }
	var empty atomic.Int64
	out.Summary = func(stderr io.Writer) { reportEmpty(stderr, "band", &empty) }
	return out.RunPool(ctx, src, func() stream.Worker {
		return &hammingWorker{scheme: scheme, skipBad: opt.SkipBad, empty: &empty}
	})
}

type hammingWorker struct {
	scheme  *lsh.Hamming
	skipBad bool
	empty   *atomic.Int64
	sk      record.SimSketch
	key     []byte
}

func (w *hammingWorker) Process(c *stream.Chunk, r *stream.Result) {
	f := w.scheme.F
	c.Lines(r, w.skipBad, func(line []byte, _ int64) error {
		if err := record.ParseSimSketch(&w.sk, line); err != nil {
			return err
		}
		if w.sk.F != f {
			return record.Bad("a %d-bit fingerprint among %d-bit ones", w.sk.F, f)
		}
		if w.sk.Size == 0 {
			w.empty.Add(1)
			return nil
		}
		fp := simhash.Fingerprint{Hi: w.sk.Hi, Lo: w.sk.Lo}
		for t := range w.scheme.Tables {
			w.key = AppendHammingKey(w.key[:0], t, w.scheme.Key(t, fp), f)
			r.Out = record.AppendHammingBand(r.Out, w.key, w.sk.ID, fp.Hi, fp.Lo, f)
		}
		return nil
	})
}
