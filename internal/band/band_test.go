package band

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

const sketchHeader = "#neardup stage=sketch method=minhash n=32 seed=0 family=mixmuladd64\n"

// sketches returns sketch records of docs random sets (every fifth one
// empty) under a 32-value minhash signature, and the signatures.
func sketches(docs int) (string, [][]uint64) {
	rng := rand.New(rand.NewPCG(1, uint64(docs)))
	f := minhash.NewFamily(32, 0)
	var b strings.Builder
	b.WriteString(sketchHeader)
	var sigs [][]uint64
	for d := range docs {
		set := make([]uint64, 20)
		for i := range set {
			set[i] = rng.Uint64()
		}
		if d%5 == 4 {
			set = nil
		}
		sig := make([]uint64, 32)
		f.Signature(sig, set)
		sigs = append(sigs, sig)
		b.Write(record.AppendSketch(nil, fmt.Appendf(nil, "d%d", d), uint64(len(set)), sig))
	}
	return b.String(), sigs
}

var keyLine = regexp.MustCompile(`^([0-9a-f]{4})([0-9a-f]{16})\t(d[0-9]+)$`)

// TestKeys: with -b and -r, b keys per non-empty document, the band number
// and XXH64 of the band's rows; documents without shingles get none and are
// counted on stderr.
func TestKeys(t *testing.T) {
	in, sigs := sketches(20)
	bd := lsh.Banding{B: 6, R: 5}
	out, stderr, err := testutil.Run(t, Run, Options{B: bd.B, R: bd.R}, testutil.WriteFile(t, "k.tsv", in))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if want := []string{strings.TrimSuffix(sketchHeader, "\n"), "#neardup stage=band scheme=minhash b=6 r=5 key=xxh64"}; lines[0] != want[0] || lines[1] != want[1] {
		t.Fatalf("headers %q, want %q", lines[:2], want)
	}
	var want []string
	for d, sig := range sigs {
		if d%5 == 4 {
			continue
		}
		for i := range bd.B {
			h, _ := bd.BandHash(nil, sig, i)
			want = append(want, fmt.Sprintf("%04x%016x\td%d", i, h, d))
		}
	}
	if got := lines[2:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d key lines, want %d; first %q, want %q", len(got), len(want), got[0], want[0])
	}
	for _, l := range lines[2:] {
		if !keyLine.MatchString(l) {
			t.Fatalf("key line %q: want 4 hex digits of band, 16 of hash, TAB, id", l)
		}
	}
	if !strings.Contains(stderr, "band: 4 document(s) without shingles got no keys") {
		t.Errorf("stderr %q: want the 4 empty documents counted", stderr)
	}
}

// TestThresholdChoice: without -b and -r the banding is chosen for the
// signature length in the header, printed on stderr, and used.
func TestThresholdChoice(t *testing.T) {
	in, _ := sketches(10)
	opt := Options{Threshold: 0.8, FPWeight: 0.5, FNWeight: 0.5, Floor: 0.995}
	out, stderr, err := testutil.Run(t, Run, opt, testutil.WriteFile(t, "k.tsv", in))
	if err != nil {
		t.Fatal(err)
	}
	c := lsh.ChooseBanding(32, 0.8, 0.5, 0.5, 0.995)
	wantMsg := fmt.Sprintf("band: threshold 0.8, 32-value signatures: %d bands of %d rows (%d values)", c.B, c.R, c.B*c.R)
	if !strings.Contains(stderr, wantMsg) || !strings.Contains(stderr, fmt.Sprintf("probability %.4f", c.AtThreshold)) {
		t.Errorf("stderr %q: want %q and the probability at the threshold", stderr, wantMsg)
	}
	if !strings.Contains(out, fmt.Sprintf("b=%d r=%d", c.B, c.R)) {
		t.Errorf("output header does not name the chosen banding b=%d r=%d", c.B, c.R)
	}
	if keys := strings.Count(out, "\td"); keys != 8*c.B {
		t.Errorf("%d keys, want %d bands × 8 non-empty documents", keys, c.B)
	}
	// A floor no banding of 32 values reaches is reported.
	_, stderr, err = testutil.Run(t, Run, Options{Threshold: 0.1, FPWeight: 0.5, FNWeight: 0.5, Floor: 0.999}, testutil.WriteFile(t, "k.tsv", in))
	if err != nil || !strings.Contains(stderr, "warning: no banding of 32 values reaches probability 0.999") {
		t.Errorf("unreachable floor: err %v, stderr %q; want a warning", err, stderr)
	}
}

// TestJobsDeterministic: byte-identical output for any number of workers.
func TestJobsDeterministic(t *testing.T) {
	in, _ := sketches(30000)
	path := testutil.WriteFile(t, "k.tsv", in)
	var first string
	for _, jobs := range []int{1, 3} {
		out, _, err := testutil.Run(t, Run, Options{B: 8, R: 4, Common: stream.Common{Jobs: jobs}}, path)
		if err != nil {
			t.Fatal(err)
		}
		if jobs == 1 {
			first = out
		} else if out != first {
			t.Errorf("-j %d output differs from -j 1", jobs)
		}
	}
}

func TestBadInput(t *testing.T) {
	in, _ := sketches(3)
	for _, c := range []struct {
		opt  Options
		in   string
		want string
	}{
		{Options{B: 10, R: 4}, in, "10 bands of 4 rows need 40 signature values, the signature has 32"},
		{Options{B: 2, R: 2}, "#neardup stage=sketch method=bottomk s=4 seed=0\nd\t1\t0000000000000001\n", "k.tsv:1: band needs minhash, oph or pstable signatures or hyperplane fingerprints, the input holds bottomk sketches"},
		{Options{Threshold: 0.8, FPWeight: 1, FNWeight: 1}, "#neardup stage=sketch method=pstable n=4 width=2 seed=0 dim=3 vectors=splitmix64-boxmuller\nd\t3\t0000000000000001 ffffffffffffffff 0 0\n", "k.tsv:1: pstable sketches are banded for a distance, not a similarity: give --distance R, or -b and -r"},
		{Options{B: 2, R: 2}, "a\t1\t0000000000000001 0000000000000002 0000000000000003 0000000000000004\nb\t1\t0000000000000001\n", "k.tsv:2: signature has 1 values, 2 bands of 2 rows need 4"},
		{Options{B: 1, R: 1}, "a\t1\t0000000000000001\nb\tx\t0000000000000001\n", `k.tsv:2: size "x" is not a number`},
	} {
		_, _, err := testutil.Run(t, Run, c.opt, testutil.WriteFile(t, "k.tsv", c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v on %q: error %v, want %q", c.opt, c.in, err, c.want)
		}
	}
}

// band keys the p-stable hashes of vectors as it keys minhash values:
// two documents that share a band's rows share its key.
func TestPStableKeys(t *testing.T) {
	in := "#neardup stage=sketch method=pstable n=4 width=2 seed=0 dim=3 vectors=splitmix64-boxmuller\n" +
		"a\t3\t0000000000000001 ffffffffffffffff 0000000000000005 0000000000000006\n" +
		"b\t3\t0000000000000001 ffffffffffffffff 0000000000000007 0000000000000006\n"
	out, _, err := testutil.Run(t, Run, Options{B: 2, R: 2}, testutil.WriteFile(t, "p.tsv", in))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Split(line, "\t"); !strings.HasPrefix(line, "#") {
			keys[f[0]] = append(keys[f[0]], f[1])
		}
	}
	if len(keys) != 3 {
		t.Errorf("got keys %v, want one shared (band 0) and two apart (band 1)", keys)
	}
}

func BenchmarkKeys(b *testing.B) {
	sig := make([]uint64, 128)
	for i := range sig {
		sig[i] = minhash.Mix64(uint64(i))
	}
	bd := lsh.Banding{B: 20, R: 5}
	var buf, out []byte
	b.ReportAllocs()
	b.SetBytes(8 * int64(bd.Rows()))
	for b.Loop() {
		out = out[:0]
		for i := range bd.B {
			var h uint64
			h, buf = bd.BandHash(buf, sig, i)
			out = AppendKey(out, i, h)
			out = append(out, "\tdoc-1\n"...)
		}
	}
}
