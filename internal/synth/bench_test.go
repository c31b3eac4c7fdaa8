package synth

import (
	"io"
	"testing"
)

// BenchmarkWrite measures the generator's throughput in bytes of corpus.
func BenchmarkWrite(b *testing.B) {
	for _, format := range []Format{TSV, JSONL} {
		b.Run([]string{"tsv", "jsonl"}[format], func(b *testing.B) {
			opt := DefaultOptions()
			opt.Docs = 5000
			opt.Format = format
			st, err := Write(io.Discard, nil, opt)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Bytes)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Write(io.Discard, io.Discard, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(opt.Docs)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}
