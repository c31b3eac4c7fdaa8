package estimate

import (
	"math"
	"slices"
)

// A Histogram is what the job made of one sample: its documents, drawn
// each with chance F, and its clusters (a kept document and the documents
// dropped for it) by size.
type Histogram struct {
	F    float64
	Docs int64
	// Sizes counts the clusters of each size from 2 up; the documents in
	// none are clusters of size 1.
	Sizes map[int]int64
}

// count returns the number of clusters of size j (j ≥ 1).
func (h Histogram) count(j int) int64 {
	if j > 1 {
		return h.Sizes[j]
	}
	n := h.Docs
	for s, c := range h.Sizes {
		n -= int64(s) * c
	}
	return n
}

// Share is an estimate with its interval.
type Share struct {
	Estimate, Low, High float64
	// Chi2 and DOF are the fit's: χ² of the samples' histograms against
	// the fitted ones, and their degrees of freedom.
	Chi2 float64
	DOF  int
	// Clustered is the share of the documents in clusters of two or more
	// at the best fit: those the job verifies pairs of.
	Clustered float64
}

// deltaChi2 is the rise in χ² that bounds the interval: the 95% point of
// χ² with one degree of freedom (a profile likelihood interval).
const deltaChi2 = 3.84

// DroppedShare estimates the share of the n documents of the corpus the job
// drops, from the clusters of samples of it. A cluster of s documents of
// the corpus is in a sample drawn with chance f as a cluster of
// Binomial(s, f) (the sample's job finds the cluster's documents that
// were drawn together, as the whole corpus's job did): the sizes of the
// clusters of the corpus, as the shares x_s of its documents in clusters
// of s, are fitted (non-negative least squares, each count weighted by its
// Poisson spread) to the samples' histograms, with Σ x_s = 1. The corpus
// has n·Σ x_s/s clusters, one document of each kept; the share dropped
// is 1 − Σ x_s/s. The interval holds the shares whose best fit is within
// deltaChi2 of the best (times χ²/DOF when the fit is worse than chance
// would make it): large clusters that a sample holds one document of look
// like documents in none, and the interval says how much that leaves
// open.
func DroppedShare(n int64, hs []Histogram) Share {
	m := newClusterModel(n, hs)
	// Weighted first by the observed counts, then by the counts the first
	// fit expects (a count of 0 observed may well be 3 expected).
	m.reweight(m.fit(-1))
	x := m.fit(-1)
	chi2 := m.chi2(x)
	kappa := m.kappa(x)
	dof := max(1, len(m.rows)-nonzero(x))
	level := chi2 + deltaChi2*math.Max(1, chi2/float64(dof))
	lo := m.bound(kappa, 1/m.sizes[len(m.sizes)-1], level)
	hi := m.bound(kappa, 1, level)
	return Share{Estimate: 1 - kappa, Low: 1 - hi, High: 1 - lo, Chi2: chi2, DOF: dof, Clustered: 1 - x[0]}
}

// clusterModel is the least-squares problem of DroppedShare.
type clusterModel struct {
	sizes []float64 // the cluster sizes fitted
	// rows are the weighted expected counts of each size class of each
	// sample per unit of x_s; obs the weighted observed counts.
	rows [][]float64
	obs  []float64
	// raw are the rows and observed counts unweighted.
	raw    [][]float64
	rawObs []float64
	// weight makes the constraints rows hold.
	weight float64
}

func newClusterModel(n int64, hs []Histogram) *clusterModel {
	largest, fmin := 1, 1.0
	for _, h := range hs {
		for s := range h.Sizes {
			largest = max(largest, s)
		}
		fmin = math.Min(fmin, h.F)
	}
	m := &clusterModel{sizes: sizeGrid(n, max(64, 4*float64(largest)/fmin))}
	// The counts of the sizes 1 to largest, in classes as the sizes
	// fitted are (1 to 16, then growing by a quarter: a row a size would
	// make thousands for a cluster of thousands), and of all sizes above.
	top := largest + 1
	starts := sizeGrid(int64(top), float64(top))
	for _, h := range hs {
		for c, from := range starts {
			to := top - 1 // the class's last size
			if c+1 < len(starts) {
				to = int(starts[c+1]) - 1
			}
			var obs float64
			for j := int(from); j <= to; j++ {
				obs += float64(h.count(j))
			}
			row := make([]float64, len(m.sizes))
			for k, s := range m.sizes {
				var p float64
				if int(from) == top {
					p = binomialTail(s, top, h.F)
				} else {
					for j := int(from); j <= to; j++ {
						p += binomialPMF(s, j, h.F)
					}
				}
				row[k] = float64(n) / s * p
			}
			m.raw = append(m.raw, row)
			m.rawObs = append(m.rawObs, obs)
		}
	}
	m.weigh(m.rawObs)
	return m
}

// weigh weights each count by its Poisson spread, the square root of
// expected (at least 1).
func (m *clusterModel) weigh(expected []float64) {
	m.rows, m.obs = m.rows[:0], m.obs[:0]
	var big float64
	for i, raw := range m.raw {
		w := 1 / math.Sqrt(math.Max(expected[i], 1))
		row := make([]float64, len(raw))
		for k, v := range raw {
			row[k] = w * v
			big = math.Max(big, row[k])
		}
		m.rows = append(m.rows, row)
		m.obs = append(m.obs, w*m.rawObs[i])
	}
	m.weight = 100 * math.Max(big, 1)
}

// reweight weights the counts by those x expects.
func (m *clusterModel) reweight(x []float64) {
	expected := make([]float64, len(m.raw))
	for i, raw := range m.raw {
		for k, v := range raw {
			expected[i] += v * x[k]
		}
	}
	m.weigh(expected)
}

// sizeGrid returns the cluster sizes fitted: 1 to 16, then growing by a
// quarter, up to top (at most n).
func sizeGrid(n int64, top float64) []float64 {
	top = math.Min(top, float64(n))
	var sizes []float64
	for s := 1.0; s <= top; {
		sizes = append(sizes, s)
		if s < 16 {
			s++
		} else {
			s = math.Ceil(s * 1.25)
		}
	}
	if len(sizes) == 0 || sizes[len(sizes)-1] < top {
		sizes = append(sizes, math.Floor(top))
	}
	return slices.Compact(sizes)
}

// fit returns the shares x_s that fit best with Σ x_s = 1 and, when kappa
// is not negative, Σ x_s/s = kappa.
func (m *clusterModel) fit(kappa float64) []float64 {
	a := slices.Clone(m.rows)
	b := slices.Clone(m.obs)
	sum := make([]float64, len(m.sizes))
	for k := range sum {
		sum[k] = m.weight
	}
	a, b = append(a, sum), append(b, m.weight)
	if kappa >= 0 {
		per := make([]float64, len(m.sizes))
		for k, s := range m.sizes {
			per[k] = m.weight / s
		}
		a, b = append(a, per), append(b, m.weight*kappa)
	}
	return nnls(a, b)
}

// chi2 returns the weighted squared misfit of x to the samples.
func (m *clusterModel) chi2(x []float64) float64 {
	var c float64
	for i, row := range m.rows {
		r := m.obs[i]
		for k, v := range row {
			r -= v * x[k]
		}
		c += r * r
	}
	return c
}

// kappa returns Σ x_s/s: the clusters per document.
func (m *clusterModel) kappa(x []float64) float64 {
	var k float64
	for i, s := range m.sizes {
		k += x[i] / s
	}
	return k
}

// bound returns the kappa between from and to, as far from from as χ²
// stays within level (χ² of the best fit at kappa grows with the distance
// from the best kappa, from).
func (m *clusterModel) bound(from, to, level float64) float64 {
	if m.chi2(m.fit(to)) <= level {
		return to
	}
	in, out := from, to
	for range 40 {
		mid := (in + out) / 2
		if m.chi2(m.fit(mid)) <= level {
			in = mid
		} else {
			out = mid
		}
	}
	return in
}

func nonzero(x []float64) int {
	n := 0
	for _, v := range x {
		if v > 0 {
			n++
		}
	}
	return n
}

// binomialPMF returns P(Binomial(s, f) = j).
func binomialPMF(s float64, j int, f float64) float64 {
	k := float64(j)
	if k > s {
		return 0
	}
	ls, _ := math.Lgamma(s + 1)
	lk, _ := math.Lgamma(k + 1)
	lr, _ := math.Lgamma(s - k + 1)
	return math.Exp(ls - lk - lr + k*math.Log(f) + (s-k)*math.Log1p(-f))
}

// binomialTail returns P(Binomial(s, f) ≥ j).
func binomialTail(s float64, j int, f float64) float64 {
	p := 1.0
	for k := 0; k < j; k++ {
		p -= binomialPMF(s, k, f)
	}
	return math.Max(p, 0)
}
