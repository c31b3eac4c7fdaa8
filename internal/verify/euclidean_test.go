package verify

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/testutil"
)

func euclideanOptions(path string, r float64) Options {
	o := cosineOptions([]string{path}, input.FormatJSONL, r)
	o.Cosine, o.Euclidean = false, true
	return o
}

// verify --euclidean keeps the pairs whose vectors are within the
// threshold distance (the one at the threshold too), scored 1/(1 + d), and
// says the distance in its header.
func TestEuclideanScores(t *testing.T) {
	docs := testutil.WriteFile(t, "v.jsonl", `{"id":"a","emb":[0,0,0]}
{"id":"b","emb":[3,4,0]}
{"id":"c","emb":[0,0,1]}
{"id":"d","emb":[6,8,1]}
`)
	pairs := testutil.WriteFile(t, "pairs.tsv", "#neardup stage=pairs max-bucket=512 reps=32\nb\ta\na\tc\nd\ta\nb\tc\n")
	want := "#neardup stage=pairs max-bucket=512 reps=32\n#neardup stage=verify measure=euclidean threshold=0.166667 containment=no distance=5\n" +
		"a\tb\t0.166667\na\tc\t0.500000\n"
	for _, jobs := range []int{1, 3} {
		opt := euclideanOptions(docs, 5)
		opt.Jobs = jobs
		var out strings.Builder
		if err := Run(context.Background(), opt, []string{pairs}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("-j%d: got\n%s\nwant\n%s", jobs, out.String(), want)
		}
	}
}

// --euclidean wants a distance above 0, and one measure.
func TestEuclideanOptions(t *testing.T) {
	o := euclideanOptions("v.jsonl", 0)
	if err := o.Resolve(); err == nil || !strings.Contains(err.Error(), "--threshold R, a distance") {
		t.Errorf("threshold 0: error %v", err)
	}
	o = euclideanOptions("v.jsonl", 3)
	o.Cosine = true
	if err := o.Resolve(); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Errorf("--cosine --euclidean: error %v", err)
	}
}

// Without --threshold, verify --euclidean takes the distance band
// --distance R wrote in its header, and says so; pairs whose band header
// names no distance are a usage error.
func TestEuclideanDistanceFromBand(t *testing.T) {
	docs := testutil.WriteFile(t, "v.jsonl", `{"id":"a","emb":[0,0,0]}
{"id":"b","emb":[3,4,0]}
{"id":"c","emb":[0,0,1]}
`)
	band := "#neardup stage=band scheme=minhash b=16 r=4 key=xxh64 distance=5\n"
	opt := euclideanOptions(docs, 0.8)
	opt.ThresholdFromBand = true
	var out, stderr strings.Builder
	if err := Run(context.Background(), opt, []string{testutil.WriteFile(t, "p.tsv", band+"a\tb\na\tc\n")}, &out, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "distance=5\na\tb\t0.166667\na\tc\t0.500000\n") || stderr.String() != "verify: distance 5 from band's header\n" {
		t.Errorf("out %q, stderr %q", out.String(), stderr.String())
	}
	for _, c := range []struct{ band, want string }{
		{"", "band's header names none: band --distance R would"},
		{strings.Replace(band, "distance=5", "distance=-2", 1), "p.tsv:1: band's header has distance=-2: want a distance above 0"},
	} {
		err := Run(context.Background(), opt, []string{testutil.WriteFile(t, "p.tsv", c.band+"a\tb\n")}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("band header %q: error %v, want %q", c.band, err, c.want)
		}
	}
}
