package vector

import "math"

// Radius returns the least Hamming distance k such that a pair of vectors
// at cosine c has fingerprints of bits bits within k bits with probability
// at least recall: each bit differs with probability p = arccos(c)/π, so
// the distance is Binomial(bits, p), and k is the recall quantile of it.
// A pair at a cosine above c has a smaller p and is found more often. It
// is bits when no smaller radius will do.
func Radius(bits int, c, recall float64) int {
	p := math.Acos(max(-1, min(1, c))) / math.Pi
	sum := 0.0
	for k := range bits {
		sum += binomialPMF(bits, k, p)
		if sum >= recall {
			return k
		}
	}
	return bits
}

// BitAgreement returns the probability that the fingerprints of two
// vectors at cosine c agree on a bit: 1 − θ/π, θ = arccos(c).
func BitAgreement(c float64) float64 {
	return 1 - math.Acos(max(-1, min(1, c)))/math.Pi
}

// binomialPMF returns P(X = k) for X ~ Binomial(n, p).
func binomialPMF(n, k int, p float64) float64 {
	switch {
	case p == 0:
		if k == 0 {
			return 1
		}
		return 0
	case p == 1:
		if k == n {
			return 1
		}
		return 0
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}
