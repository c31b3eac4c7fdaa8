package pipeline

import (
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/neardup/neardup/internal/synth"
)

// The whole pipeline on Prism and on the command line (the stages run in
// process one after another, files between them) over the same corpus:
//
//	go test -run '^$' -bench . -benchtime 3x ./pipeline/

const benchDocs = 5000

func BenchmarkPrism(b *testing.B) {
	dir := b.TempDir()
	inputs := writeCorpus(b, dir, benchDocs, 1, synth.TSV)
	opt := Defaults()
	opt.Inputs = inputs
	opt.Output = filepath.Join(dir, "out")
	for b.Loop() {
		p, s := beam.NewPipelineWithRoot()
		if _, err := Build(s, opt); err != nil {
			b.Fatal(err)
		}
		if err := ptest.Run(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCommandLine(b *testing.B) {
	dir := b.TempDir()
	inputs := writeCorpus(b, dir, benchDocs, 1, synth.TSV)
	for b.Loop() {
		commandLine(b, dir, inputs, nil)
	}
}
