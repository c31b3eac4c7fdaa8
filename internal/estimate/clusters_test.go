package estimate

import (
	"math/rand/v2"
	"testing"
)

// thinned draws a sample of the clusters given by their sizes, each
// document with chance f, and returns the histogram the job would make of
// it.
func thinned(rng *rand.Rand, sizes []int, f float64) Histogram {
	h := Histogram{F: f, Sizes: map[int]int64{}}
	for _, s := range sizes {
		drawn := 0
		for range s {
			if rng.Float64() < f {
				drawn++
			}
		}
		h.Docs += int64(drawn)
		if drawn > 1 {
			h.Sizes[drawn]++
		}
	}
	return h
}

// corpusClusters returns cluster sizes of a corpus of about n documents:
// a share of them alone, the rest in clusters of sizes drawn from sizes.
func corpusClusters(rng *rand.Rand, n int, alone float64, sizes []int) (clusters []int, docs int64, dropped int64) {
	for docs < int64(n) {
		s := 1
		if rng.Float64() > alone {
			s = sizes[rng.IntN(len(sizes))]
		}
		clusters = append(clusters, s)
		docs += int64(s)
		dropped += int64(s - 1)
	}
	return clusters, docs, dropped
}

// The interval of the dropped share is a 95% one: over corpora drawn with
// 20 seeds, each sampled 6 times (twice at each of three fractions), it
// holds the true share at least 17 times, and the estimate is inside it.
func TestDroppedShareRecoversThinnedClusters(t *testing.T) {
	for _, tc := range []struct {
		name  string
		alone float64
		sizes []int
		fracs []float64
	}{
		{"pairs and triples", 0.7, []int{2, 2, 3}, []float64{0.02, 0.04, 0.08}},
		{"copies up to 8", 0.5, []int{2, 3, 4, 5, 8}, []float64{0.02, 0.04, 0.08}},
		{"large clusters", 0.8, []int{2, 50, 400}, []float64{0.01, 0.02, 0.04}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			covered := 0
			for seed := range uint64(20) {
				rng := rand.New(rand.NewPCG(seed, 2))
				clusters, n, dropped := corpusClusters(rng, 200000, tc.alone, tc.sizes)
				var hs []Histogram
				for _, f := range tc.fracs {
					for range 2 {
						hs = append(hs, thinned(rng, clusters, f))
					}
				}
				got := DroppedShare(n, hs)
				want := float64(dropped) / float64(n)
				if want >= got.Low && want <= got.High {
					covered++
				}
				if got.Low > got.Estimate || got.Estimate > got.High {
					t.Errorf("seed %d: estimate %.4f outside its own interval [%.4f, %.4f]", seed, got.Estimate, got.Low, got.High)
				}
			}
			if covered < 17 {
				t.Errorf("the interval held the true dropped share for %d of 20 corpora, want at least 17", covered)
			}
		})
	}
}
