package band

import (
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
)

// planeHeader is the header of 256-bit hyperplane fingerprints.
const planeHeader = "#neardup stage=sketch method=hyperplane f=256 seed=1 dim=8 vectors=splitmix64-boxmuller\n"

// band -b -r keys a hyperplane fingerprint on bands of its bits: two
// fingerprints that differ only in bit 100 share every key but that of
// the band holding it (with 12-bit bands, band 8); a fingerprint of
// another length is bad input.
func TestHyperplaneBitBands(t *testing.T) {
	a := strings.Repeat("0123456789abcdef", 4)
	b := a[:25] + "d" + a[26:] // hex digit 25 holds bits 100-103: c → d flips bit 103
	in := planeHeader + "a\t8\t" + a + "\nb\t8\t" + b + "\nz\t0\t" + strings.Repeat("0", 64) + "\n"
	out, stderr, err := testutil.Run(t, Run, Options{B: 21, R: 12}, testutil.WriteFile(t, "k.tsv", in))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "#neardup stage=band scheme=minhash b=21 r=12 key=xxh64\n") {
		t.Errorf("header: %q", out)
	}
	keys := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[2:] {
		k, id, _ := strings.Cut(line, "\t")
		keys[k] = append(keys[k], id)
	}
	shared := 0
	for k, ids := range keys {
		if len(ids) == 2 {
			shared++
			if k[:4] == fmt.Sprintf("%04x", 103/12) {
				t.Errorf("band %d, which holds the bit that differs, is shared", 103/12)
			}
		}
	}
	if shared != 20 || len(keys) != 22 {
		t.Errorf("%d keys shared of %d, want 20 of 22:\n%s", shared, len(keys), out)
	}
	if !strings.Contains(stderr, "1 document(s) without shingles got no keys") {
		t.Errorf("the zero vector's fingerprint is not counted: %q", stderr)
	}
	for _, c := range []struct {
		opt      Options
		in, want string
	}{
		{Options{B: 21, R: 12}, planeHeader + "a\t8\t" + a[:32] + "\n", "k.tsv:2: a 128-bit fingerprint among 256-bit ones"},
		{Options{B: 22, R: 12}, planeHeader, "k.tsv:1: 22 bands of 12 rows need 264 signature values, the signature has 256 (the sketch has 256 bits)"},
		{Options{Threshold: 0.8, FPWeight: 1, FNWeight: 1}, planeHeader, "k.tsv:1: hyperplane fingerprints are banded for a cosine: give --cosine C, or -b and -r"},
		{Options{B: 4, R: 4, Threshold: 0.8}, planeHeader, "k.tsv:1: --threshold is a Jaccard similarity, and the input holds hyperplane sketches of vectors"},
		{Options{Cosine: 0.8}, "#neardup stage=sketch method=minhash n=4 seed=0\n", "k.tsv:1: --cosine C bands hyperplane fingerprints (sketch --method hyperplane), the input holds minhash sketches"},
		{Options{Distance: 1}, planeHeader, "k.tsv:1: --distance R bands p-stable hashes (sketch --method pstable), the input holds hyperplane sketches"},
		{Options{Cosine: 0.8}, "a\t1\t0000000000000001\n", "k.tsv:1: --cosine and --distance choose the banding from the sketch header"},
		{Options{Cosine: 0.8}, planeHeader + "a\t8\t" + a + "\n#neardup stage=sketch method=hyperplane f=128 seed=1 dim=8 vectors=splitmix64-boxmuller\n", "the input holds 256-bit hyperplane fingerprints, then hyperplane sketches (f=128)"},
	} {
		_, _, err := testutil.Run(t, Run, c.opt, testutil.WriteFile(t, "k.tsv", c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v on %q: error %v, want %q", c.opt, c.in, err, c.want)
		}
	}
}

// --cosine C chooses the most bits a band that make a pair at C a
// candidate with probability at least the floor, says so, prints the
// S-curve with -v, and puts C in the header as the threshold verify
// --cosine takes.
func TestCosineBanding(t *testing.T) {
	in := strings.Replace(planeHeader, "f=256", "f=1024", 1) + "a\t8\t" + strings.Repeat("0123456789abcdef", 16) + "\n"
	out, stderr, err := testutil.Run(t, Run, Options{Cosine: 0.8, Floor: DefaultFloor, Verbose: true}, testutil.WriteFile(t, "k.tsv", in))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"band: cosine 0.8, 1024 bits: 85 bands of 12 bits (1020 bits); a pair at 0.8 agrees on a row with probability 0.7952 and becomes a candidate with probability 0.9963\n",
		"band: b=85 r=12: candidate probability at cosine 0 0.0205, 0.5 0.4819, 0.7 0.9256, 0.8 0.9963, 0.9 1.0000, 0.95 1.0000\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	if !strings.Contains(out, "#neardup stage=band scheme=minhash b=85 r=12 key=xxh64 threshold=0.8\n") || strings.Count(out, "\ta\n") != 85 {
		t.Errorf("output: %q", out)
	}
}

// --distance R chooses the banding of p-stable hashes from the width in
// the sketch header and puts R in band's header.
func TestDistanceBanding(t *testing.T) {
	in := "#neardup stage=sketch method=pstable n=64 width=4 seed=0 dim=3 vectors=splitmix64-boxmuller\n" +
		"d\t3\t" + strings.TrimSpace(strings.Repeat("0000000000000001 ", 64)) + "\n"
	out, stderr, err := testutil.Run(t, Run, Options{Distance: 1, Floor: DefaultFloor}, testutil.WriteFile(t, "k.tsv", in))
	if err != nil {
		t.Fatal(err)
	}
	if want := "band: distance 1, 64 hashes: 16 bands of 4 hashes (64 hashes); a pair at 1 agrees on a row with probability 0.8005 and becomes a candidate with probability 0.9998\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
	if !strings.Contains(out, "#neardup stage=band scheme=minhash b=16 r=4 key=xxh64 distance=1\n") || strings.Count(out, "\td\n") != 16 {
		t.Errorf("output: %q", out)
	}
	_, _, err = testutil.Run(t, Run, Options{Distance: 1, Floor: DefaultFloor}, testutil.WriteFile(t, "k.tsv", strings.Replace(in, "width=4", "width=x", 1)))
	if err == nil || !strings.Contains(err.Error(), "k.tsv:1: the pstable sketch header has width=x") {
		t.Errorf("bad width: %v", err)
	}
}
