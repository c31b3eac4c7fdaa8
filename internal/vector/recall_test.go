package vector_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/mix"
	"github.com/neardup/neardup/internal/pairs"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/sketch"
	"github.com/neardup/neardup/internal/vector"
	"github.com/neardup/neardup/internal/verify"
)

// recallDim is the dimension of the embeddings of the recall test.
const recallDim = 256

// realTexts returns up to n Go source files of the Go tree this test runs
// under (real text, found on every machine that runs it), every k-th in
// the order of their paths.
func realTexts(t *testing.T, n int) [][]byte {
	root := filepath.Join(runtime.GOROOT(), "src")
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil || len(paths) < n {
		t.Skipf("the Go source tree (%s) has %d files (%v): want %d", root, len(paths), err, n)
	}
	slices.Sort(paths)
	step := len(paths) / n
	var texts [][]byte
	for i := 0; i < len(paths) && len(texts) < n; i += step {
		b, err := os.ReadFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, b)
	}
	return texts
}

// words returns the words of text, lowercased, with their counts.
func words(text []byte) map[string]int {
	m := map[string]int{}
	for _, w := range bytes.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
	}) {
		m[strings.ToLower(string(w))]++
	}
	return m
}

// embed returns the tf-idf vectors of texts randomly projected to
// recallDim components: word w adds its weight times ±1 (the bits of
// SplitMix64 of its hash) to each component (Achlioptas).
func embed(texts [][]byte) [][]float64 {
	counts := make([]map[string]int, len(texts))
	df := map[string]int{}
	for i, t := range texts {
		counts[i] = words(t)
		for w := range counts[i] {
			df[w]++
		}
	}
	vecs := make([][]float64, len(texts))
	for i, c := range counts {
		v := make([]float64, recallDim)
		for w, n := range c {
			x := float64(n) * math.Log(float64(len(texts))/float64(df[w]))
			h := fnv(w)
			for j := range recallDim / 64 {
				bits := mix.SplitMix(h + uint64(j))
				for b := range 64 {
					if bits>>b&1 == 1 {
						v[j*64+b] += x
					} else {
						v[j*64+b] -= x
					}
				}
			}
		}
		vecs[i] = v
	}
	return vecs
}

func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(s) {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// plant appends near-copies of every fifth vector: the vector plus
// Gaussian noise of s times its norm, s from 0.05 to 0.55, so their
// cosines with the original spread across 0.9 (1/√(1+s²)).
func plant(vecs [][]float64, rng *rand.Rand) [][]float64 {
	n := len(vecs)
	for i := 0; i < n; i += 5 {
		v := vecs[i]
		var norm float64
		for _, x := range v {
			norm += x * x
		}
		s := (0.05 + 0.5*rng.Float64()) * math.Sqrt(norm/float64(len(v)))
		c := make([]float64, len(v))
		for j, x := range v {
			c[j] = x + s*rng.NormFloat64()
		}
		vecs = append(vecs, c)
	}
	return vecs
}

type pair struct{ a, b string }

// The pipeline sketch --method hyperplane | band --hamming K | pairs |
// verify --cosine, K from vector.Radius for cosine 0.9, finds at least 99%
// of the pairs at cosine 0.9 or more that brute force finds among the
// tf-idf embeddings of real documents and their planted near-copies, and
// nothing else.
func TestPipelineRecallAgainstBruteForce(t *testing.T) {
	const threshold, bits = 0.9, 64
	k := vector.Radius(bits, threshold, sketch.RecallTarget)
	cosineRecall(t, threshold, bits, fmt.Sprintf("band --hamming %d", k), band.Options{Hamming: &lsh.HammingOptions{K: k}})
}

// The pipeline sketch --method hyperplane --bits 1024 | band --cosine C |
// pairs | verify --cosine, whose memory is bounded where a Hamming radius's
// is not, finds at least 99% of the pairs at cosine C or more that brute
// force finds, and nothing else, at C = 0.8 and 0.9.
func TestBandedRecallAgainstBruteForce(t *testing.T) {
	for _, c := range []float64{0.8, 0.9} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			cosineRecall(t, c, 1024, fmt.Sprintf("band --cosine %g", c), band.Options{Cosine: c, Floor: band.DefaultFloor})
		})
	}
}

// cosineRecall runs sketch --method hyperplane --bits bits, band with
// bandOpt (named so in the log), pairs and verify --cosine at threshold
// over the tf-idf embeddings of 2,000 real documents and their planted
// near-copies, and checks the verified pairs against brute force: recall
// at least 0.99, precision 1.
func cosineRecall(t *testing.T, threshold float64, bits int, banded string, bandOpt band.Options) {
	const docs = 2000
	vecs := plant(embed(realTexts(t, docs)), rand.New(rand.NewPCG(1, 2)))
	dir := t.TempDir()
	path, ids := writeVectors(t, dir, vecs)

	truth := map[pair]bool{}
	near := 0 // the pairs less than 0.05 above the threshold, the hardest to find
	for i := range vecs {
		for j := i + 1; j < len(vecs); j++ {
			if c := vector.Cosine(vecs[i], vecs[j]); c >= threshold {
				truth[pair{ids[i], ids[j]}] = true
				if c < threshold+0.05 {
					near++
				}
			}
		}
	}

	ctx := context.Background()
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
	fp := run("fp.tsv", func(in []string, out io.Writer) error {
		return sketch.Run(ctx, sketch.Options{Method: sketch.Hyperplane, Bits: bits, Seed: 1, VectorField: "emb",
			Vectors: input.Reading{Format: input.FormatJSONL, IDField: "id"}}, in, out, io.Discard)
	}, []string{path})
	keys := run("keys.tsv", func(in []string, out io.Writer) error {
		return band.Run(ctx, bandOpt, in, out, io.Discard)
	}, []string{fp})
	cands := run("pairs.tsv", func(in []string, out io.Writer) error {
		return pairs.Run(ctx, pairs.Options{MaxBucket: 512, Reps: 32}, in, out, io.Discard)
	}, []string{keys})
	verified := run("verified.tsv", func(in []string, out io.Writer) error {
		return verify.Run(ctx, verify.Options{Cosine: true, Threshold: threshold,
			Documents: &verify.DocumentOptions{Paths: []string{path}, VectorField: "emb",
				Given: input.ReadingFlags{Reading: input.Reading{Format: input.FormatJSONL, IDField: "id"}}}}, in, out, io.Discard)
	}, []string{cands})

	candidates := countLines(t, cands)
	found, recall, precision := againstTruth(t, verified, truth)
	t.Logf("%d vectors (%d real, %d planted), %d pairs at cosine >= %g (%d below %.2f); %s of %d bits: %d candidate pairs, %d verified; recall %.4f, precision %.4f",
		len(vecs), docs, len(vecs)-docs, len(truth), threshold, near, threshold+0.05, banded, bits, candidates, found, recall, precision)
	if len(truth) < 300 {
		t.Fatalf("only %d pairs at cosine >= %g: the test measures too few", len(truth), threshold)
	}
	if recall < 0.99 || precision != 1 {
		t.Errorf("recall %.4f (want >= 0.99), precision %.4f (want 1)", recall, precision)
	}
}

// writeVectors writes vecs as JSON Lines to dir/corpus.jsonl, each with
// the id d00000, d00001, … and its vector in the field emb, and returns
// the file's path and the ids.
func writeVectors(t *testing.T, dir string, vecs [][]float64) (string, []string) {
	t.Helper()
	ids := make([]string, len(vecs))
	var corpus bytes.Buffer
	for i, v := range vecs {
		ids[i] = fmt.Sprintf("d%05d", i)
		corpus.WriteString(`{"id":"` + ids[i] + `","emb":[`)
		for j, x := range v {
			if j > 0 {
				corpus.WriteByte(',')
			}
			corpus.Write(strconv.AppendFloat(nil, x, 'g', -1, 64))
		}
		corpus.WriteString("]}\n")
	}
	path := filepath.Join(dir, "corpus.jsonl")
	if err := os.WriteFile(path, corpus.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, ids
}

// againstTruth reads the verified pairs of file and returns how many there
// are, and their recall and precision against truth.
func againstTruth(t *testing.T, file string, truth map[pair]bool) (found int, recall, precision float64) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	hit := 0
	for line := range strings.Lines(string(data)) {
		if record.IsHeader([]byte(line)) {
			continue
		}
		var s record.Scored
		if err := record.ParseScored(&s, []byte(strings.TrimSuffix(line, "\n"))); err != nil {
			t.Fatal(err)
		}
		found++
		if truth[pair{string(s.A), string(s.B)}] {
			hit++
		}
	}
	return found, float64(hit) / float64(len(truth)), float64(hit) / float64(max(found, 1))
}

func countLines(t *testing.T, name string) int {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.Lines(string(b)) {
		if !record.IsHeader([]byte(line)) {
			n++
		}
	}
	return n
}
