package sketch

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
	"github.com/neardup/neardup/internal/vector"
)

func hyperplaneOptions(format string, jobs, bits int) Options {
	return Options{Method: Hyperplane, Seed: 9, Bits: bits, VectorField: "emb",
		Vectors: input.Reading{Format: format, IDField: "id"}, Common: stream.Common{Jobs: jobs}}
}

// sketch --method hyperplane writes, for the vectors of JSON Lines and of
// TSV alike and for any number of workers, the header and the fingerprint
// records of package vector, the size being the components that are not
// zero; the zero vector has size 0.
func TestHyperplaneRecords(t *testing.T) {
	const dim = 7
	var jsonl, tsv, want strings.Builder
	for i := range 300 {
		v := make([]float64, dim)
		for j := range v {
			if i != 17 && (i+j)%5 != 0 {
				v[j] = math.Sin(float64(i*dim+j)) * 3
			}
		}
		nums := make([]string, dim)
		for j, x := range v {
			nums[j] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		fmt.Fprintf(&jsonl, `{"id":"v%03d","emb":[%s],"text":"ignored"}`+"\n", i, strings.Join(nums, ", "))
		fmt.Fprintf(&tsv, "v%03d\t%s\n", i, strings.Join(nums, " "))
		fp, _ := vector.NewHyperplanes(128, dim, 9).Words(nil, nil, v)
		want.Write(record.AppendSimSketch(nil, fmt.Appendf(nil, "v%03d", i), uint64(vector.NonZero(v)), fp[0], fp[1], 128))
	}
	if !strings.Contains(want.String(), "v017\t0\t00000000000000000000000000000000\n") {
		t.Fatal("the zero vector's record is not in the expected output")
	}
	header := "#neardup stage=sketch method=hyperplane f=128 seed=9 dim=7 vectors=splitmix64-boxmuller\n"
	for _, in := range []struct{ name, content, format string }{
		{"v.jsonl", jsonl.String(), input.FormatAuto},
		{"v.tsv", tsv.String(), input.FormatTSV},
	} {
		path := testutil.WriteFile(t, in.name, in.content)
		for _, jobs := range []int{1, 3} {
			var out strings.Builder
			if err := Run(context.Background(), hyperplaneOptions(in.format, jobs, 128), []string{path}, &out, io.Discard); err != nil {
				t.Fatal(err)
			}
			if out.String() != header+want.String() {
				t.Errorf("%s -j%d: got\n%.300s\nwant\n%.300s", in.name, jobs, out.String(), header+want.String())
			}
		}
	}
}

// Bad vectors stop the stage with their place: a length other than the
// first vector's or --dim's, a component that is not a finite number, a
// field that is not an array; --skip-bad counts them instead.
func TestHyperplaneBadVectors(t *testing.T) {
	for _, c := range []struct {
		content string
		dim     int
		err     string
	}{
		{"{\"id\":\"a\",\"emb\":[1,2,3]}\n{\"id\":\"b\",\"emb\":[1,2]}\n", 0, "v.jsonl:2: the vector has 2 components, want 3 (the dimension of the first vector, at v.jsonl:1)"},
		{"{\"id\":\"a\",\"emb\":[1,2,3]}\n", 2, "v.jsonl:1: the vector has 3 components, want 2 (the dimension of --dim)"},
		{"{\"id\":\"a\",\"emb\":[1,2]}\n{\"id\":\"b\",\"emb\":[1,1e400]}\n", 0, `v.jsonl:2: component 2 of the vector is "1e400", want a finite number`},
		{"{\"id\":\"a\",\"emb\":[1,2]}\n{\"id\":\"b\",\"emb\":[1,\"x\"]}\n", 0, `v.jsonl:2: component 2 of the vector is "\"x\"", want a number`},
		{"{\"id\":\"a\",\"emb\":[1,2]}\n{\"id\":\"b\",\"emb\":\"1 2\"}\n", 0, `v.jsonl:2: field "emb" is a string, want an array of numbers`},
		{"{\"id\":\"a\",\"emb\":[1,2]}\n{\"id\":\"b\",\"vec\":[1,2]}\n", 0, `v.jsonl:2: no "emb" field; the line has "id", "vec": give --vector-field NAME`},
		{"{\"id\":\"a\",\"emb\":{}}\n", 0, `v.jsonl:1: field "emb" is an object, want an array of numbers`},
	} {
		path := testutil.WriteFile(t, "v.jsonl", c.content)
		opt := hyperplaneOptions(input.FormatAuto, 2, 64)
		opt.Dim = c.dim
		err := Run(context.Background(), opt, []string{path}, io.Discard, io.Discard)
		if err == nil || !strings.HasSuffix(strings.ReplaceAll(err.Error(), path, "v.jsonl"), c.err) {
			t.Errorf("%q: error %v, want one ending %q", c.content, err, c.err)
		}
	}
	path := testutil.WriteFile(t, "v.tsv", "a\t1 2\nb\t1 NaN\nc\t3,4\n")
	opt := hyperplaneOptions(input.FormatTSV, 1, 64)
	opt.SkipBad = true
	var out, stderr strings.Builder
	if err := Run(context.Background(), opt, []string{path}, &out, &stderr); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 3 || !strings.Contains(stderr.String(), "skipped 1 bad line") {
		t.Errorf("--skip-bad: %d lines out, stderr %q", n, stderr.String())
	}
}

// The options refuse what makes no hyperplane sketch, as usage errors.
func TestHyperplaneOptions(t *testing.T) {
	for _, c := range []struct {
		opt Options
		err string
	}{
		{Options{Method: Hyperplane, Bits: 96, VectorField: "v"}, "--bits 96: want 64 or 128 (for band --hamming), or a multiple of 64 up to 8192"},
		{Options{Method: Hyperplane, Bits: 8256, VectorField: "v"}, "--bits 8256: want"},
		{Options{Method: Hyperplane, Bits: 8192, Dim: 65536, VectorField: "v"}, "--bits 8192 --dim 65536: 8192-bit fingerprints of 65536 components need 4096 MiB of random vectors, more than the 1024 MiB allowed"},
		{Options{Method: Hyperplane, Dim: -1, VectorField: "v"}, "--dim -1"},
		{Options{Method: Hyperplane, Cosine: 1.5, VectorField: "v"}, "--cosine 1.5"},
		{Options{Method: Hyperplane, VectorField: "v", Vectors: input.Reading{Format: input.FormatParquet}}, "vectors are read from TSV, JSON Lines and --lines"},
		{Options{Method: Hyperplane}, "--vector-field"},
	} {
		err := c.opt.Resolve()
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: error %v, want %q", c.opt, err, c.err)
		}
	}
}

// --cosine says the radius of band --hamming for that cosine.
func TestHyperplaneCosineRadius(t *testing.T) {
	path := testutil.WriteFile(t, "v.tsv", "a\t1 2\n")
	opt := hyperplaneOptions(input.FormatTSV, 1, 64)
	opt.Cosine = 0.9
	var stderr strings.Builder
	if err := Run(context.Background(), opt, []string{path}, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	if want := "sketch: pairs at cosine 0.9 are within 16 of 64 bits with probability 0.99: band --hamming 16\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

// A fingerprint of more than 128 bits is written in bits/4 hex digits, its
// first 128 bits the 128-bit fingerprint; --cosine then says the banding
// band --cosine chooses.
func TestHyperplaneLong(t *testing.T) {
	path := testutil.WriteFile(t, "v.tsv", "a\t1 2 -3\nb\t0 0 0\n")
	run := func(bits int, cosine float64) (string, string) {
		opt := hyperplaneOptions(input.FormatTSV, 1, bits)
		opt.Cosine = cosine
		var out, stderr strings.Builder
		if err := Run(context.Background(), opt, []string{path}, &out, &stderr); err != nil {
			t.Fatal(err)
		}
		return out.String(), stderr.String()
	}
	short, _ := run(128, 0)
	long, stderr := run(1024, 0.8)
	if !strings.Contains(long, "method=hyperplane f=1024 ") || !strings.Contains(long, "\nb\t0\t"+strings.Repeat("0", 256)+"\n") {
		t.Errorf("1024 bits: %q", long)
	}
	_, a128, _ := strings.Cut(strings.Split(short, "\n")[1], "\t")
	_, a1024, _ := strings.Cut(strings.Split(long, "\n")[1], "\t")
	if len(a1024) != len("3\t")+256 || !strings.HasPrefix(a1024, a128) {
		t.Errorf("a: 128 bits %q, 1024 bits %q: want 256 hex digits beginning with the 128-bit fingerprint", a128, a1024)
	}
	if want := "sketch: pairs at cosine 0.8 agree on a bit with probability 0.7952; 85 bands of 12 of the 1024 bits make them candidates with probability 0.9963: band --cosine 0.8\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}
