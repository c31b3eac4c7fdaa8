package vector

import (
	"fmt"
	"math"
	"testing"
)

// knownFingerprints are known-answer vectors: the fingerprints of
// sketch method=hyperplane of fixed vectors (knownVector) under seed 42,
// for each length, with the random vectors of vectors=splitmix64-boxmuller. Fingerprints are kept (sketch
// files, indexes, cluster state) and compared with those made later, so
// these values never change: a changed value is a new scheme with a new
// name, never a silent one.
var knownFingerprints = []struct {
	bits, dim int
	hi, lo    string
}{
	{64, 3, "db524fcd4425ab2f", "0000000000000000"},
	{64, 256, "78a2068589aea448", "0000000000000000"},
	{128, 3, "db524fcd4425ab2f", "cda7c5bb146ef481"},
	{128, 256, "78a2068589aea448", "ed3c7f97fdeeb7ab"},
}

// knownGaussians are the first Gaussians of seed 42 (also computed, to
// these digits, by a Python transcription of the package comment).
var knownGaussians = []string{"0.10459599247239679", "-0.071824578486373414", "-1.0935536654284612", "-0.34776500086182721", "-0.41161066593141143", "-0.84238026589018877"}

// knownVector returns the known vector of dim components.
func knownVector(dim int) []float64 {
	v := make([]float64, dim)
	for i := range v {
		v[i] = math.Sin(float64(i+1)) * float64(i%7+1)
	}
	return v
}

func TestKnownFingerprints(t *testing.T) {
	for _, k := range knownFingerprints {
		fp := fingerprint(NewHyperplanes(k.bits, k.dim, 42), knownVector(k.dim))
		if hi, lo := fmt.Sprintf("%016x", fp.Hi), fmt.Sprintf("%016x", fp.Lo); hi != k.hi || lo != k.lo {
			t.Errorf("bits=%d dim=%d vectors=%s: got %s %s, want %s %s\na changed value needs a new scheme name", k.bits, k.dim, Scheme, hi, lo, k.hi, k.lo)
		}
	}
	for n, want := range knownGaussians {
		if got := fmt.Sprintf("%.17g", Gaussian(42, uint64(n))); got != want {
			t.Errorf("Gaussian(42, %d) = %s, want %s", n, got, want)
		}
	}
}

// knownPStable are known answers of sketch method=pstable: the hashes, as
// signed integers, of the known vector under seed 42. Like the
// fingerprints, they never change.
var knownPStable = []struct {
	n, dim int
	width  float64
	want   string
}{
	{4, 3, 1, "[3 0 -1 -1]"},
	{4, 256, 4, "[6 -11 0 17]"},
}

func TestKnownPStable(t *testing.T) {
	for _, k := range knownPStable {
		var got []int64
		for _, h := range NewPStable(k.n, k.dim, k.width, 42).Hashes(nil, knownVector(k.dim)) {
			got = append(got, int64(h))
		}
		if s := fmt.Sprint(got); s != k.want {
			t.Errorf("n=%d dim=%d width=%g: got %s, want %s\na changed value needs a new scheme name", k.n, k.dim, k.width, s, k.want)
		}
	}
}

// knownLong are known answers of fingerprints longer than 128 bits (for
// band --cosine), the words in hex as the sketch record writes them.
var knownLong = []struct {
	bits, dim int
	want      string
}{
	{256, 256, "78a2068589aea448ed3c7f97fdeeb7ab406efdb8cc6d0aa8de45acf576c78b37"},
}

func TestKnownLongFingerprints(t *testing.T) {
	for _, k := range knownLong {
		w, _ := NewHyperplanes(k.bits, k.dim, 42).Words(nil, nil, knownVector(k.dim))
		got := ""
		for _, x := range w {
			got += fmt.Sprintf("%016x", x)
		}
		if got != k.want {
			t.Errorf("bits=%d dim=%d vectors=%s: got %s, want %s\na changed value needs a new scheme name", k.bits, k.dim, Scheme, got, k.want)
		}
	}
}
