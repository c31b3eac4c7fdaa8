package sketch

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/neardup/neardup/internal/docfreq"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/simhash"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// The simhash method writes "id TAB size TAB fingerprint": size is the
// number of distinct features (shingles) and the fingerprint is 16 hex
// digits for f = 64, 32 for f = 128 (record.AppendFingerprint). Each
// distinct shingle is one feature, weighed from its count (shingle
// --counts; 1 without counts) as --weight says; see package simhash.

func (o *Options) fingerprintBits() int {
	if o.F == 0 {
		return 64
	}
	return o.F
}

func (o *Options) weight() (simhash.Weight, error) {
	if o.Weight == "" {
		return simhash.TF, nil
	}
	return simhash.ParseWeight(o.Weight)
}

func (o *Options) checkSimHash() error {
	if f := o.fingerprintBits(); f != 64 && f != 128 {
		return status.Usagef("-f %d: want 64 or 128", f)
	}
	w, err := o.weight()
	if err != nil {
		return status.Usagef("--weight: %v", err)
	}
	if (w == simhash.IDF) != (o.DF != "") {
		return status.Usagef("--weight idf reads a document-frequency table (--df FILE, written by docfreq), and only idf does")
	}
	return nil
}

// simHashHeader returns the stage's header for simhash, naming the table of
// idf weights by its content.
func (o *Options) simHashHeader(df *docfreq.Table) record.Header {
	w, _ := o.weight()
	h := record.NewHeader("sketch", "method", SimHash, "f", strconv.Itoa(o.fingerprintBits()),
		"weight", w.String(), "seed", strconv.FormatUint(o.Seed, 10), "bits", "splitmix64")
	if df != nil {
		h.Params = append(h.Params,
			record.Param{Key: "df", Value: df.ID},
			record.Param{Key: "df-docs", Value: strconv.FormatUint(df.Docs, 10)})
	}
	return h
}

func runSimHash(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	weight, _ := opt.weight()
	var df *docfreq.Table
	if weight == simhash.IDF {
		var err error
		df, err = docfreq.Load(ctx, opt.DF, opt.Jobs)
		if err != nil {
			return err
		}
	}
	src := stream.NewLines(inputs)
	defer src.Close()
	var noCounts sync.Once
	out := stream.NewOutput("sketch", opt.Common, stdout, stderr, opt.simHashHeader(df))
	out.RecordsOf = "shingle"
	out.CheckHeader = func(h record.Header, pos record.Pos) error {
		if h.Stage != "shingle" {
			return nil
		}
		if c, _ := h.Get("counts"); c == "no" && weight != simhash.Binary {
			noCounts.Do(func() {
				fmt.Fprintf(stderr, "sketch: %s: the shingles have no counts (shingle --counts): every feature weighs as if it occurred once\n", pos)
			})
		}
		if df != nil {
			return df.CheckShingles(opt.DF, h, pos)
		}
		return nil
	}
	f := opt.fingerprintBits()
	return out.RunPool(ctx, src, func() stream.Worker {
		s, _ := simhash.New(f, opt.Seed, weight)
		return &simWorker{skipBad: opt.SkipBad, s: s, df: df, counts: make([]uint32, 0, 256)}
	})
}

type simWorker struct {
	skipBad bool
	s       *simhash.Sketcher
	df      *docfreq.Table
	hashes  []uint64
	counts  []uint32
}

func (w *simWorker) Process(c *stream.Chunk, r *stream.Result) {
	c.Lines(r, w.skipBad, func(line []byte, _ int64) error {
		id, field, err := record.SplitShingles(line)
		if err != nil {
			return err
		}
		w.hashes, w.counts, err = record.ParseShingles(w.hashes[:0], w.counts[:0], field)
		if err != nil {
			return err
		}
		w.s.Reset()
		if w.df != nil {
			for i, h := range w.hashes {
				w.s.Add(h, simhash.IDFWeight(w.counts[i], w.df.DF(h), w.df.Docs))
			}
		} else {
			for i, h := range w.hashes {
				w.s.AddCount(h, w.counts[i])
			}
		}
		fp := w.s.Fingerprint()
		r.Out = record.AppendSimSketch(r.Out, id, uint64(len(w.hashes)), fp.Hi, fp.Lo, w.s.Bits())
		return r.Flush()
	})
}
