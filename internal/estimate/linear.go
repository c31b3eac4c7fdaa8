package estimate

import "math"

// linearFit is a quantity fitted over the samples as c + a·documents (c
// and a not negative), with the fits that leave one sample out (the
// jackknife), for its spread.
type linearFit struct {
	coef []float64 // c, a
	// without holds the coefficients fitted without each sample in turn.
	without [][]float64
}

// linear fits ys, one value a sample, to the samples' documents.
func linear(docs, ys []float64) linearFit {
	rows := make([][]float64, len(docs))
	for i, d := range docs {
		rows[i] = []float64{1, d}
	}
	f := linearFit{coef: nnls(rows, ys)}
	for i := range rows {
		var a [][]float64
		var b []float64
		for j := range rows {
			if j != i {
				a, b = append(a, rows[j]), append(b, ys[j])
			}
		}
		f.without = append(f.without, nnls(a, b))
	}
	return f
}

// perDoc returns the fitted cost of a document.
func (f linearFit) perDoc() float64 { return f.coef[1] }

// predict returns the fitted value at n documents, and the least and the
// greatest of the fits (the whole and the jackknife's) there.
func (f linearFit) predict(n float64) (est, lo, hi float64) {
	at := []float64{1, n}
	est = dot(f.coef, at)
	lo, hi = est, est
	for _, c := range f.without {
		lo = math.Min(lo, dot(c, at))
		hi = math.Max(hi, dot(c, at))
	}
	return est, lo, hi
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
