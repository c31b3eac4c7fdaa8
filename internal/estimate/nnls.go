package estimate

import "math"

// nnls returns the x ≥ 0 that minimises ‖Ax − b‖ (Lawson and Hanson's
// active-set method), A given by its rows. The columns are scaled to unit
// length while it works, so that a tolerance means the same for each.
func nnls(a [][]float64, b []float64) []float64 {
	m := len(a)
	if m == 0 {
		return nil
	}
	n := len(a[0])
	scale := make([]float64, n)
	for j := range n {
		var s float64
		for i := range m {
			s = math.Hypot(s, a[i][j])
		}
		if s == 0 {
			s = 1
		}
		scale[j] = s
	}
	as := make([][]float64, m)
	for i := range m {
		as[i] = make([]float64, n)
		for j := range n {
			as[i][j] = a[i][j] / scale[j]
		}
	}
	x := make([]float64, n)
	passive := make([]bool, n)
	w := make([]float64, n)
	// rejected holds the columns that, freed, made no progress (by
	// rounding) since x last changed: not tried again until it does.
	rejected := make([]bool, n)
	const tol = 1e-12
	for iter := 0; iter < 10*n+10; iter++ {
		gradient(as, b, x, w)
		t, best := -1, 0.0
		for j := range n {
			if !passive[j] && !rejected[j] && w[j] > best {
				t, best = j, w[j]
			}
		}
		if t < 0 || best <= tol*norm(b) {
			break
		}
		passive[t] = true
		z := solvePassive(as, b, passive)
		if z[t] <= 0 {
			passive[t], rejected[t] = false, true
			continue
		}
		clear(rejected)
		for inner := 0; inner < 3*n+10; inner++ {
			if inner > 0 {
				z = solvePassive(as, b, passive)
			}
			alpha, bounded := 1.0, false
			for j := range n {
				if passive[j] && z[j] <= 0 {
					if r := x[j] / (x[j] - z[j]); r < alpha {
						alpha = r
					}
					bounded = true
				}
			}
			if !bounded {
				copy(x, z)
				break
			}
			for j := range n {
				x[j] += alpha * (z[j] - x[j])
				if passive[j] && x[j] <= tol {
					passive[j], x[j] = false, 0
				}
			}
		}
	}
	return unscale(x, scale)
}

func unscale(x, scale []float64) []float64 {
	out := make([]float64, len(x))
	for j := range x {
		out[j] = x[j] / scale[j]
	}
	return out
}

func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s = math.Hypot(s, x)
	}
	return s
}

// gradient sets w to Aᵀ(b − Ax).
func gradient(a [][]float64, b, x, w []float64) {
	clear(w)
	for i, row := range a {
		r := b[i]
		for j, v := range row {
			r -= v * x[j]
		}
		for j, v := range row {
			w[j] += v * r
		}
	}
}

// solvePassive solves the least-squares problem on the passive columns
// alone (the others held at 0) by Householder QR.
func solvePassive(a [][]float64, b []float64, passive []bool) []float64 {
	var cols []int
	for j, p := range passive {
		if p {
			cols = append(cols, j)
		}
	}
	z := make([]float64, len(passive))
	sub := make([][]float64, len(a))
	for i, row := range a {
		sub[i] = make([]float64, len(cols))
		for k, j := range cols {
			sub[i][k] = row[j]
		}
	}
	for k, v := range leastSquares(sub, b) {
		z[cols[k]] = v
	}
	return z
}

// leastSquares returns the x that minimises ‖Ax − b‖ by Householder QR; a
// column dependent on those before it gets 0.
func leastSquares(a [][]float64, b []float64) []float64 {
	m := len(a)
	p := 0
	if m > 0 {
		p = len(a[0])
	}
	r := make([][]float64, m)
	for i := range a {
		r[i] = append([]float64(nil), a[i]...)
	}
	y := append([]float64(nil), b...)
	for k := 0; k < p && k < m; k++ {
		var nrm float64
		for i := k; i < m; i++ {
			nrm = math.Hypot(nrm, r[i][k])
		}
		if nrm == 0 {
			continue
		}
		alpha := -nrm
		if r[k][k] < 0 {
			alpha = nrm
		}
		v := make([]float64, m)
		for i := k; i < m; i++ {
			v[i] = r[i][k]
		}
		v[k] -= alpha
		var vv float64
		for i := k; i < m; i++ {
			vv += v[i] * v[i]
		}
		if vv == 0 {
			continue
		}
		for j := k; j < p; j++ {
			var s float64
			for i := k; i < m; i++ {
				s += v[i] * r[i][j]
			}
			s *= 2 / vv
			for i := k; i < m; i++ {
				r[i][j] -= s * v[i]
			}
		}
		var s float64
		for i := k; i < m; i++ {
			s += v[i] * y[i]
		}
		s *= 2 / vv
		for i := k; i < m; i++ {
			y[i] -= s * v[i]
		}
	}
	x := make([]float64, p)
	var big float64
	for k := 0; k < p && k < m; k++ {
		big = math.Max(big, math.Abs(r[k][k]))
	}
	for k := min(p, m) - 1; k >= 0; k-- {
		if math.Abs(r[k][k]) <= 1e-12*big {
			continue
		}
		s := y[k]
		for j := k + 1; j < p; j++ {
			s -= r[k][j] * x[j]
		}
		x[k] = s / r[k][k]
	}
	return x
}
