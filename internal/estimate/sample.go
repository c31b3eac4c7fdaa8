package estimate

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// sample is one sample of the corpus: its documents, each drawn with
// chance F by its own hash of the document's arrival number.
type sample struct {
	F     float64
	Index int // among the samples, from 0
	Path  string
	seed  uint64
	Docs  int64
}

// corpus is what reading the whole corpus counted.
type corpus struct {
	Docs, Bytes int64
}

// mix is splitmix64's finaliser: a bijection of 64-bit values whose
// output bits each depend on every input bit.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// drawn says whether a document whose id hashes to h is in the sample.
func (s *sample) drawn(h uint64) bool {
	return float64(mix(h^s.seed)>>11)*0x1p-53 < s.F
}

// chunkOut is what a worker makes of a chunk: each sample's TSV lines.
type chunkOut struct {
	lines      [][]byte
	docs       []int64
	all, bytes int64
}

// zstdCorpus says whether every input is zstd-compressed (named .zst or
// .zstd): the samples are then compressed too, so that the job reads them
// as it reads the corpus (at 10 million documents keep's CPU was 120 s
// against 19 estimated from TSV samples, the decompression left out).
func zstdCorpus(inputs []string) bool {
	for _, in := range inputs {
		if !strings.HasSuffix(in, ".zst") && !strings.HasSuffix(in, ".zstd") {
			return false
		}
	}
	return len(inputs) > 0
}

// drawSamples reads the corpus once and writes each sample as TSV (id TAB
// text, escaped as records are) in dir, in arrival order; zstd-compressed
// when the corpus is (zstdCorpus).
func drawSamples(ctx context.Context, opt *Options, inputs []string, dir string, stderr io.Writer) (corpus, []*sample, error) {
	compress := zstdCorpus(inputs)
	ext := ".tsv"
	if compress {
		ext = ".tsv.zst"
		fmt.Fprintf(stderr, "estimate: the samples are zstd-compressed, as the corpus is, so that the job reads them as it reads the corpus\n")
	}
	var samples []*sample
	for r := range opt.Replicates {
		for _, f := range opt.Fractions {
			i := len(samples)
			samples = append(samples, &sample{F: f, Index: i, seed: mix(opt.Seed + uint64(i)),
				Path: filepath.Join(dir, fmt.Sprintf("sample-%d-%g%s", r+1, f, ext))})
		}
	}
	files := make([]*os.File, len(samples))
	encoders := make([]*zstd.Encoder, len(samples))
	writers := make([]*bufio.Writer, len(samples))
	defer func() {
		for i, f := range files {
			if f != nil {
				if encoders[i] != nil {
					encoders[i].Close()
				}
				f.Close()
			}
		}
	}()
	for i, s := range samples {
		f, err := os.Create(s.Path)
		if err != nil {
			return corpus{}, nil, err
		}
		files[i] = f
		var w io.Writer = f
		if compress {
			if encoders[i], err = zstd.NewWriter(f, zstd.WithEncoderConcurrency(1)); err != nil {
				return corpus{}, nil, err
			}
			w = encoders[i]
		}
		writers[i] = bufio.NewWriterSize(w, 1<<16)
	}
	rd := opt.reading()
	noID := new(atomic.Int64)
	src, unit := document.Source(rd, inputs, opt.SkipBad)
	defer src.Close()
	out := stream.NewOutput("estimate", opt.Common, nil, stderr)
	out.Unit = unit
	out.Summary = func(stderr io.Writer) { document.Report(src, stderr, "estimate") }
	var c corpus
	sink := func(r *stream.Result) error {
		if err := out.Sink(r); err != nil {
			return err
		}
		o, _ := r.Value.(*chunkOut)
		if o == nil {
			return nil
		}
		c.Docs += o.all
		c.Bytes += o.bytes
		for i, lines := range o.lines {
			samples[i].Docs += o.docs[i]
			if _, err := writers[i].Write(lines); err != nil {
				return err
			}
		}
		return nil
	}
	stop := out.Watch(src)
	err := stream.Run(ctx, src, opt.Common, func() stream.Worker {
		return &sampler{samples: samples, docs: document.NewReader(rd, noID, nil, opt.SkipBad)}
	}, sink)
	stop()
	if err == nil {
		err = out.Finish()
	}
	document.ReportNoID(stderr, "estimate", opt.IDField, noID)
	if err != nil {
		return c, nil, err
	}
	for i, w := range writers {
		if err := w.Flush(); err != nil {
			return c, nil, err
		}
		if encoders[i] != nil {
			err := encoders[i].Close()
			encoders[i] = nil
			if err != nil {
				return c, nil, err
			}
		}
		if err := files[i].Close(); err != nil {
			return c, nil, err
		}
		files[i] = nil
	}
	return c, samples, nil
}

// sampler is a worker that draws the samples' documents from chunks.
type sampler struct {
	samples []*sample
	docs    *document.Reader
}

func (w *sampler) Process(c *stream.Chunk, r *stream.Result) {
	o := &chunkOut{lines: make([][]byte, len(w.samples)), docs: make([]int64, len(w.samples))}
	w.docs.Documents(c, r, func(id, text []byte) error {
		o.all++
		o.bytes += int64(len(text))
		h := xxhash.Sum64(id)
		for i, s := range w.samples {
			if !s.drawn(h) {
				continue
			}
			o.docs[i]++
			l := append(o.lines[i], id...)
			l = append(l, '\t')
			l = record.Escape(l, text)
			o.lines[i] = append(l, '\n')
		}
		return nil
	})
	r.Value = o
}
