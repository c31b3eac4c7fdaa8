package vector_test

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/pairs"
	"github.com/neardup/neardup/internal/sketch"
	"github.com/neardup/neardup/internal/vector"
	"github.com/neardup/neardup/internal/verify"
)

// The Euclidean pipeline (sketch --method pstable, band --distance, pairs,
// verify --euclidean)
// finds at least 99% of the pairs within the distance that brute force
// finds, and nothing else: 2,000 centres in 64 dimensions, 3 points about
// each, the noise making pairs on both sides of the distance.
func TestEuclideanRecallAgainstBruteForce(t *testing.T) {
	const (
		centres, per, dim = 2000, 3, 64
		distance, width   = 1.0, 4.0
		n                 = 128
	)
	rng := rand.New(rand.NewPCG(3, 4))
	var vecs [][]float64
	for range centres {
		c := make([]float64, dim)
		for j := range c {
			c[j] = rng.NormFloat64() * 10
		}
		for range per {
			v := make([]float64, dim)
			for j := range v {
				v[j] = c[j] + rng.NormFloat64()*0.088
			}
			vecs = append(vecs, v)
		}
	}
	dir := t.TempDir()
	path, ids := writeVectors(t, dir, vecs)
	truth := map[pair]bool{}
	beyond := 0 // pairs of a centre farther than the distance
	for i := range vecs {
		for j := i + 1; j < len(vecs); j++ {
			if d := vector.Distance(vecs[i], vecs[j]); d <= distance {
				truth[pair{ids[i], ids[j]}] = true
			} else if i/per == j/per {
				beyond++
			}
		}
	}

	ctx := context.Background()
	banding, prob, ok := lsh.Amplify(n, vector.Collision(distance, width), band.DefaultFloor)
	if !ok {
		t.Fatalf("no banding of %d hashes reaches %g", n, band.DefaultFloor)
	}
	b, r := banding.B, banding.R
	run := func(name string, f func(in []string, out io.Writer) error, in []string) string {
		out := filepath.Join(dir, name)
		fh, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(fh)
		if err := f(in, w); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		return out
	}
	reading := input.Reading{Format: input.FormatJSONL, IDField: "id"}
	sk := run("sk.tsv", func(in []string, out io.Writer) error {
		return sketch.Run(ctx, sketch.Options{Method: sketch.PStable, N: n, Width: width, Seed: 1, VectorField: "emb", Vectors: reading}, in, out, io.Discard)
	}, []string{path})
	keys := run("keys.tsv", func(in []string, out io.Writer) error {
		return band.Run(ctx, band.Options{Distance: distance, Floor: band.DefaultFloor}, in, out, io.Discard)
	}, []string{sk})
	cands := run("pairs.tsv", func(in []string, out io.Writer) error {
		return pairs.Run(ctx, pairs.Options{MaxBucket: 512, Reps: 32}, in, out, io.Discard)
	}, []string{keys})
	verified := run("verified.tsv", func(in []string, out io.Writer) error {
		return verify.Run(ctx, verify.Options{Euclidean: true, Threshold: distance,
			Documents: &verify.DocumentOptions{Paths: []string{path}, VectorField: "emb",
				Given: input.ReadingFlags{Reading: reading}}}, in, out, io.Discard)
	}, []string{cands})

	found, recall, precision := againstTruth(t, verified, truth)
	t.Logf("%d vectors, %d pairs within %g (%d pairs of a centre beyond it); %d bands of %d rows of %d hashes of width %g (%.4f at %g): %d candidate pairs, %d verified; recall %.4f, precision %.4f",
		len(vecs), len(truth), distance, beyond, b, r, n, width, prob, distance, countLines(t, cands), found, recall, precision)
	if len(truth) < 1000 || beyond < 1000 {
		t.Fatalf("%d pairs within, %d of a centre beyond: the test measures too few", len(truth), beyond)
	}
	if recall < 0.99 || precision != 1 {
		t.Errorf("recall %.4f (want >= 0.99), precision %.4f (want 1)", recall, precision)
	}
}
