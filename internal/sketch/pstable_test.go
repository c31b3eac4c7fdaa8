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

func pstableOptions(jobs int) Options {
	return Options{Method: PStable, Seed: 9, N: 12, Width: 2.5, VectorField: "emb",
		Vectors: input.Reading{Format: input.FormatAuto, IDField: "id"}, Common: stream.Common{Jobs: jobs}}
}

// sketch --method pstable writes the header and, for any number of
// workers, the n p-stable hashes of package vector of each vector as
// sketch values (negative ones as their two's complement), the size being
// the dimension, the zero vector's too.
func TestPStableRecords(t *testing.T) {
	const dim = 5
	var jsonl, want strings.Builder
	for i := range 200 {
		v := make([]float64, dim)
		for j := range v {
			if i != 17 {
				v[j] = math.Sin(float64(i*dim+j)) * 4
			}
		}
		nums := make([]string, dim)
		for j, x := range v {
			nums[j] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		fmt.Fprintf(&jsonl, `{"id":"v%03d","emb":[%s]}`+"\n", i, strings.Join(nums, ","))
		want.Write(record.AppendSketch(nil, fmt.Appendf(nil, "v%03d", i), dim, vector.NewPStable(12, dim, 2.5, 9).Hashes(nil, v)))
	}
	if !strings.Contains(want.String(), "\tffffffffffffffff") {
		t.Fatal("no negative hash value in the expected output")
	}
	header := "#neardup stage=sketch method=pstable n=12 width=2.5 seed=9 dim=5 vectors=splitmix64-boxmuller\n"
	path := testutil.WriteFile(t, "v.jsonl", jsonl.String())
	for _, jobs := range []int{1, 3} {
		var out strings.Builder
		if err := Run(context.Background(), pstableOptions(jobs), []string{path}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if out.String() != header+want.String() {
			t.Errorf("-j%d: got\n%.300s\nwant\n%.300s", jobs, out.String(), header+want.String())
		}
	}
}

// The options refuse what makes no p-stable sketch, as usage errors.
func TestPStableOptions(t *testing.T) {
	ok := pstableOptions(1)
	for _, c := range []struct {
		edit func(*Options)
		err  string
	}{
		{func(o *Options) { o.N = 0 }, "-n 0"},
		{func(o *Options) { o.Width = 0 }, "--width 0"},
		{func(o *Options) { o.Width = math.Inf(1) }, "--width +Inf"},
		{func(o *Options) { o.Dim = -1 }, "--dim -1"},
		{func(o *Options) { o.Distance = -2 }, "--distance -2"},
		{func(o *Options) { o.VectorField = "" }, "--vector-field"},
	} {
		o := ok
		c.edit(&o)
		err := o.Resolve()
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: error %v, want %q", o, err, c.err)
		}
	}
}

// --distance says the banding band --distance chooses, which makes pairs
// within it candidates with probability 0.995 (band's
// --recall-at-threshold), and warns when no banding of the hashes does.
func TestPStableDistanceBanding(t *testing.T) {
	path := testutil.WriteFile(t, "v.jsonl", `{"id":"a","emb":[1,2]}`+"\n")
	opt := pstableOptions(1)
	opt.N, opt.Width, opt.Distance = 64, 4, 1
	var stderr strings.Builder
	if err := Run(context.Background(), opt, []string{path}, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	if want := "sketch: pairs within distance 1 share one of 64 hashes of width 4 with probability 0.8005; 16 bands of 4 rows make them candidates with probability 0.9998: band --distance 1 (band -b 16 -r 4)\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	opt.N, opt.Width, opt.Distance = 2, 1, 10
	stderr.Reset()
	if err := Run(context.Background(), opt, []string{path}, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "warning: no banding of 2 hashes reaches probability 0.995 at distance 10") {
		t.Errorf("stderr %q, want the warning", stderr.String())
	}
}
