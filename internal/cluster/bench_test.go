package cluster

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/internal/synthsketch"
)

// benchInput writes a synthetic sketch file of docs documents (30% planted
// copies) and, for components, the pairs of copies and originals.
func benchInput(b *testing.B, docs int) (sketches, pairs string) {
	b.Helper()
	dir := b.TempDir()
	o := synthsketch.Options{Docs: docs, N: 128, CopyFraction: 0.3, MinSimilarity: 0.8, MaxSimilarity: 1, Seed: 1}
	var sk, pr bytes.Buffer
	if err := synthsketch.Write(&sk, o); err != nil {
		b.Fatal(err)
	}
	synthsketch.Generate(o, func(d *synthsketch.Doc) {
		if d.Original >= 0 {
			pr.WriteString(synthsketch.ID(d.Original) + "\t" + d.ID + "\t0.900000\n")
		}
	})
	sketches, pairs = filepath.Join(dir, "sk.tsv"), filepath.Join(dir, "pairs.tsv")
	os.WriteFile(sketches, sk.Bytes(), 0o644)
	os.WriteFile(pairs, pr.Bytes(), 0o644)
	return sketches, pairs
}

// benchMethod reports documents per second of a method over docs
// documents.
func benchMethod(b *testing.B, opt Options, docs int) {
	sketches, pairs := benchInput(b, docs)
	in := sketches
	if opt.Method == Components {
		in = pairs
		opt.Singletons, opt.IDs = true, sketches
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := Run(context.Background(), opt, []string{in}, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(docs)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

func BenchmarkComponents(b *testing.B) { benchMethod(b, defaults(Components), 100000) }
func BenchmarkLeader(b *testing.B)     { benchMethod(b, defaults(Leader), 100000) }
func BenchmarkGreedy(b *testing.B)     { benchMethod(b, defaults(Greedy), 100000) }

func BenchmarkGreedyPopular(b *testing.B) {
	opt := defaults(Greedy)
	opt.Represent = RepresentPopular
	benchMethod(b, opt, 100000)
}
