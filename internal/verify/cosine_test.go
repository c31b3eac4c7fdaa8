package verify

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/testutil"
)

func cosineOptions(paths []string, format string, threshold float64) Options {
	return Options{Cosine: true, Threshold: threshold, Documents: &DocumentOptions{Paths: paths, VectorField: "emb",
		Given: input.ReadingFlags{Reading: input.Reading{Format: format, IDField: "id"}}}}
}

// verify --cosine writes the pairs whose vectors' exact cosine reaches the
// threshold, with the cosine, in the records of Jaccard, for vectors of
// JSON Lines and of TSV; a zero vector scores 0.
func TestCosineScores(t *testing.T) {
	jsonl := testutil.WriteFile(t, "v.jsonl", `{"id":"a","emb":[3,4,0]}
{"id":"b","emb":[4,3,0]}
{"id":"c","emb":[0,0,1]}
{"id":"d","emb":[6,8,0]}
{"id":"z","emb":[0,0,0]}
{"id":"e","emb":[1,1,1]}
`)
	tsv := testutil.WriteFile(t, "v.tsv", "a\t3 4 0\nb\t4,3,0\nc\t0 0 1\nd\t6 8 0\nz\t0 0 0\ne\t1 1 1\n")
	pairs := testutil.WriteFile(t, "pairs.tsv", "#neardup stage=pairs max-bucket=512 reps=32\nb\ta\na\tc\nd\ta\nz\ta\nz\tz2\n")
	want := "#neardup stage=pairs max-bucket=512 reps=32\n#neardup stage=verify measure=cosine threshold=0.9 containment=no\na\tb\t0.960000\na\td\t1.000000\n"
	for _, docs := range []struct{ path, format string }{{jsonl, input.FormatJSONL}, {tsv, input.FormatTSV}} {
		// z2 is in no document: drop that line.
		in := testutil.WriteFile(t, "p.tsv", strings.Replace(readFile(t, pairs), "z\tz2\n", "", 1))
		for _, jobs := range []int{1, 3} {
			opt := cosineOptions([]string{docs.path}, docs.format, 0.9)
			opt.Jobs = jobs
			var out strings.Builder
			if err := Run(context.Background(), opt, []string{in}, &out, io.Discard); err != nil {
				t.Fatal(err)
			}
			if out.String() != want {
				t.Errorf("%s -j%d: got\n%s\nwant\n%s", docs.format, jobs, out.String(), want)
			}
		}
		var out strings.Builder
		if err := Run(context.Background(), cosineOptions([]string{docs.path}, docs.format, 0), []string{in}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "a\tc\t0.000000\n") || !strings.Contains(out.String(), "a\tz\t0.000000\n") {
			t.Errorf("%s threshold 0: got\n%s", docs.format, out.String())
		}
		err := Run(context.Background(), cosineOptions([]string{docs.path}, docs.format, 0.9), []string{pairs}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "pairs.tsv:6: id z2 is not in the documents") {
			t.Errorf("%s: a pair of an id not in the documents: error %v", docs.format, err)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A bad vector in the documents stops verify --cosine with its place.
func TestCosineBadVector(t *testing.T) {
	docs := testutil.WriteFile(t, "v.jsonl", "{\"id\":\"a\",\"emb\":[1,2]}\n{\"id\":\"b\",\"emb\":[1,2,3]}\n")
	pairs := testutil.WriteFile(t, "pairs.tsv", "a\tb\n")
	err := Run(context.Background(), cosineOptions([]string{docs}, input.FormatJSONL, 0.9), []string{pairs}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "v.jsonl:2: the vector has 3 components, want 2") {
		t.Errorf("error %v", err)
	}
}

// verify --cosine takes documents, and none of the other sources.
func TestCosineOptions(t *testing.T) {
	for _, o := range []Options{
		{Cosine: true, Threshold: 0.9, Shingles: "s.tsv"},
		{Cosine: true, Threshold: 0.9, Sketches: "s.tsv", Documents: &DocumentOptions{VectorField: "emb"}},
		{Cosine: true, Threshold: 0.9, Containment: true, Documents: &DocumentOptions{VectorField: "emb"}},
		{Threshold: 0.9, Documents: &DocumentOptions{VectorField: "emb"}},
		{Cosine: true, Threshold: 0.9, Documents: &DocumentOptions{VectorField: "emb", Given: input.ReadingFlags{NumberSet: true}}},
		{Cosine: true, Threshold: 0.9, Documents: &DocumentOptions{VectorField: "emb", Given: input.ReadingFlags{TextFieldSet: true}}},
		{Cosine: true, Threshold: 0.9, Documents: &DocumentOptions{VectorField: "emb", Given: input.ReadingFlags{Reading: input.Reading{Format: input.FormatFiles}}}},
	} {
		if err := o.Resolve(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// With --skip-bad the bad vectors of the documents are passed over, and
// said on stderr with their places and count.
func TestCosineSkipBadSaysSo(t *testing.T) {
	docs := testutil.WriteFile(t, "v.tsv", "a\t1 2\nb\t1 2.1\nc\tx y\nd\t1 2 3\n")
	pairs := testutil.WriteFile(t, "pairs.tsv", "a\tb\n")
	opt := cosineOptions([]string{docs}, input.FormatTSV, 0.9)
	opt.SkipBad = true
	var out, stderr strings.Builder
	if err := Run(context.Background(), opt, []string{pairs}, &out, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "a\tb\t0.999815\n") {
		t.Errorf("output %q", out.String())
	}
	for _, want := range []string{"v.tsv:3: component 1 of the vector is \"x\"", "v.tsv:4: the vector has 3 components", "skipped 2 bad line(s)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q: no %q", stderr.String(), want)
		}
	}
}

// The vectors must have the dimension of the hyperplane sketch header of
// the pairs (documents read with another --vector-field, or other
// documents, are not those sketched); --dim that disagrees is refused.
func TestCosineDimOfSketchHeader(t *testing.T) {
	docs := testutil.WriteFile(t, "v.tsv", "a\t1 2 0\nb\t1 2.1 0\n")
	pairs := testutil.WriteFile(t, "pairs.tsv", "#neardup stage=sketch method=hyperplane f=64 seed=0 dim=2 vectors=splitmix64-boxmuller\na\tb\n")
	opt := cosineOptions([]string{docs}, input.FormatTSV, 0.9)
	err := Run(context.Background(), opt, []string{pairs}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "v.tsv:1: the vector has 3 components, want 2 (the dimension of the hyperplane sketch header of the pairs, at ") {
		t.Errorf("error %v", err)
	}
	opt.Documents.Dim = 3
	err = Run(context.Background(), opt, []string{pairs}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--dim 3, but the pairs were found among vectors of 2 components") {
		t.Errorf("--dim 3: error %v", err)
	}
}
