package estimate

import "math"

// linearFit is a quantity fitted over the samples as a non-negative
// combination of what each sample was (1, documents, pairs), with the
// fits that leave one sample out (the jackknife), for its spread.
type linearFit struct {
	coef []float64
	// without holds the coefficients fitted without each sample in turn.
	without [][]float64
}

// linear fits ys, one value a run, to the runs' terms.
func linear(runs []*run, terms func(*run) []float64, ys []float64) linearFit {
	rows := make([][]float64, len(runs))
	for i, r := range runs {
		rows[i] = terms(r)
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

// predict returns the fitted value for the whole corpus at its estimated
// pairs, and the least and greatest of the fits (the whole and the
// jackknife's) at the low and the high pairs.
func (f linearFit) predict(full func(pairs float64) []float64, pairs, low, high float64) (est, lo, hi float64) {
	est = dot(f.coef, full(pairs))
	lo, hi = math.Min(est, dot(f.coef, full(low))), math.Max(est, dot(f.coef, full(high)))
	for _, c := range f.without {
		lo = math.Min(lo, dot(c, full(low)))
		hi = math.Max(hi, dot(c, full(high)))
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
