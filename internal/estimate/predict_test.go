package estimate

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// predicted returns the estimate, low and high of a quantity.
func predicted(t *testing.T, p *prediction, name string) (est, low, high float64) {
	t.Helper()
	for _, q := range p.lines {
		if q.name == name {
			return q.estimate, q.low, q.high
		}
	}
	t.Fatalf("no %s in the prediction", name)
	return
}

// Samples whose pairs are f² of the corpus's and whose stages take time
// in a straight line in their documents give back the corpus's pairs and
// the line's time at its documents; a streaming stage's peak (one a
// --dedup script of its own may run: band) is the largest sample's, a
// bounded stage's at most its --memory.
func TestPredictPairsTimesPeaks(t *testing.T) {
	const n, pairs = 1_000_000, 50_000
	var runs []*run
	for i, f := range []float64{0.01, 0.02, 0.04, 0.01, 0.02, 0.04} {
		docs := int64(f * n)
		// The samples' pairs off f² by a few, as sampling makes them.
		p := int64(pairs*f*f) + int64(i%3) - 1
		wall := 0.05 + 2e-5*float64(docs)
		r := &run{sample: &sample{F: f, Docs: docs}, Pairs: p, Wall: wall,
			Clusters: Histogram{F: f, Docs: docs, Sizes: map[int]int64{2: p}},
			Stages: []stageTimes{
				{Name: "band", Wall: wall, CPU: 2 * wall, Peak: 20000 + float64(i)},
				{Name: "keep", Wall: 0.01, CPU: 0.01, Peak: 20000 + float64(docs)},
			}}
		runs = append(runs, r)
	}
	p := predict(corpus{Docs: n, Bytes: 1e9}, runs, 64<<20)
	est, low, high := predicted(t, p, "verified-pairs")
	if math.Abs(est-pairs) > 0.05*pairs || low > pairs || high < pairs {
		t.Errorf("verified pairs %.0f [%.0f, %.0f], want about %d within", est, low, high, pairs)
	}
	want := 0.05 + 2e-5*n
	if est, low, high := predicted(t, p, "band-wall-seconds"); math.Abs(est-want) > 0.01*want || low > want || high < want {
		t.Errorf("band wall %.2f s [%.2f, %.2f], want %.2f", est, low, high, want)
	}
	if est, _, _ := predicted(t, p, "band-peak-mib"); math.Abs(est-20005.0/1024) > 1e-9 {
		t.Errorf("band peak %.3f MiB, want the largest sample's, %.3f", est, 20005.0/1024)
	}
	limit := 64 + (20000+0.01*n)/1024
	if est, _, high := predicted(t, p, "keep-peak-mib"); est > limit+1e-9 || math.Abs(high-limit) > 1e-9 {
		t.Errorf("keep peak %.1f MiB, high %.1f: want at most --memory 64 MiB and the smallest sample's peak, %.1f", est, high, limit)
	}
	var b strings.Builder
	if err := p.write(&b, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "# quantity\testimate\tlow\thigh" {
		t.Errorf("header %q", lines[0])
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 4 {
			t.Errorf("%q: %d fields, want 4", l, len(f))
			continue
		}
		for _, v := range f[1:] {
			if _, err := strconv.ParseFloat(v, 64); err != nil && v != "-" {
				t.Errorf("%q: %q is not a number", l, v)
			}
		}
	}
}

// When a sample held a bucket above --max-bucket, whose pairs grow slower
// than f² scales them, the pairs are bounded, not estimated: at least the
// most a sample verified, at most the samples' scaled up; the largest
// bucket is a sample's over its fraction.
func TestPredictCappedBuckets(t *testing.T) {
	var runs []*run
	for _, f := range []float64{0.2, 0.3, 0.5} {
		docs := int64(f * 4000)
		p := int64(131_000 + 32*(3000*f-512))
		runs = append(runs, &run{sample: &sample{F: f, Docs: docs}, Pairs: p, Capped: 1, Largest: int64(3000 * f),
			Clusters: Histogram{F: f, Docs: docs, Sizes: map[int]int64{int(3000 * f): 1}},
			Stages:   []stageTimes{{Name: "shingle", Wall: 0.1, CPU: 0.1, Peak: 20000}}})
	}
	p := predict(corpus{Docs: 4000, Bytes: 1e6}, runs, 64<<20)
	est, low, high := predicted(t, p, "verified-pairs")
	if !math.IsNaN(est) || low != float64(runs[2].Pairs) || high < 0.999*float64(runs[0].Pairs)/0.04 {
		t.Errorf("verified pairs %v [%v, %v]: want - between the most a sample verified, %d, and the samples' scaled by 1/f², at least %.0f", est, low, high, runs[2].Pairs, float64(runs[0].Pairs)/0.04)
	}
	if est, low, high := predicted(t, p, "largest-bucket"); est != 3000 || low != 3000 || high != 3000 {
		t.Errorf("largest bucket %v [%v, %v], want 3000", est, low, high)
	}
}

// A wide interval of the dropped share says, on standard error, that a
// larger fraction narrows it; a narrow one says nothing of it.
func TestNotesWideDroppedShare(t *testing.T) {
	for _, tc := range []struct {
		fit  Share
		wide bool
	}{
		{Share{Estimate: 0.19, Low: 0.13, High: 0.33, DOF: 20}, true},
		{Share{Estimate: 0.258, Low: 0.249, High: 0.270, DOF: 20}, false},
	} {
		var b strings.Builder
		(&prediction{fit: tc.fit, buckets: true}).notes(&b)
		if got := strings.Contains(b.String(), "a larger --fraction narrows it"); got != tc.wide {
			t.Errorf("interval [%g, %g]: notes %q, want the advice %v", tc.fit.Low, tc.fit.High, b.String(), tc.wide)
		}
	}
}
