package verify

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// hexSet writes a shingle field of small values.
func hexSet(vals ...uint64) string { return string(record.AppendHexList(nil, vals)) }

// Hand-checked sets:
//
//	a = {1,2,3,4}, b = {3,4,5}, c = {1..8}, e = {}
//	J(a,b) = 2/5 = 0.4    c(a,b) = 2/4 = 0.5  c(b,a) = 2/3
//	J(a,c) = 4/8 = 0.5    c(a,c) = 1          c(c,a) = 0.5
//	J(b,c) = 3/8 = 0.375  c(b,c) = 1          c(c,b) = 0.375
//	J(a,e) = 0 (e empty: union 4)
var handShingles = "a\t" + hexSet(1, 2, 3, 4) + "\n" +
	"b\t" + hexSet(3, 4, 5) + "\n" +
	"c\t" + hexSet(1, 2, 3, 4, 5, 6, 7, 8) + "\n" +
	"e\t\n"

func TestExactScores(t *testing.T) {
	shingles := testutil.WriteFile(t, "s.tsv", handShingles)
	pairs := testutil.WriteFile(t, "p.tsv", "a\tb\nc\ta\nb\tc\na\te\n")
	out, _, err := testutil.Run(t, Run, Options{Shingles: shingles, Threshold: 0, Containment: true, Common: stream.Common{NoHeader: true}}, pairs)
	if err != nil {
		t.Fatal(err)
	}
	want := "a\tb\t0.400000\t0.500000\t0.666667\n" +
		"a\tc\t0.500000\t1.000000\t0.500000\n" +
		"b\tc\t0.375000\t1.000000\t0.375000\n" +
		"a\te\t0.000000\t0.000000\t0.000000\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestThresholdEdges: a pair exactly at the threshold is kept; with
// containment, a pair is kept when either containment reaches it.
func TestThresholdEdges(t *testing.T) {
	shingles := testutil.WriteFile(t, "s.tsv", handShingles)
	pairs := testutil.WriteFile(t, "p.tsv", "a\tb\na\tc\nb\tc\n")
	for _, c := range []struct {
		threshold   float64
		containment bool
		want        string
	}{
		{0.4, false, "a\tb\na\tc\n"},
		{0.375, false, "a\tb\na\tc\nb\tc\n"},
		{0.3750001, false, "a\tb\na\tc\n"},
		{0.5, false, "a\tc\n"},
		{0.5000001, false, ""},
		{1, true, "a\tc\nb\tc\n"},
		{2.0 / 3, true, "a\tb\na\tc\nb\tc\n"},
	} {
		out, _, err := testutil.Run(t, Run, Options{Shingles: shingles, Threshold: c.threshold, Containment: c.containment, Common: stream.Common{NoHeader: true}}, pairs)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range strings.SplitAfter(out, "\n") {
			if f := strings.Split(l, "\t"); len(f) > 2 {
				got = append(got, f[0]+"\t"+f[1]+"\n")
			}
		}
		if strings.Join(got, "") != c.want {
			t.Errorf("threshold %g containment %v: kept %q, want %q", c.threshold, c.containment, got, c.want)
		}
	}
}

func TestSketchEstimates(t *testing.T) {
	for _, c := range []struct {
		header, a, b string
		opt          Options
		want         string
	}{
		{"method=minhash n=4 seed=0 family=mixmuladd64", hexSet(1, 2, 3, 4), hexSet(1, 2, 0, 0), Options{}, "x\ty\t0.500000\n"},
		{"method=oph n=4 seed=0 densify=optimal", hexSet(1, 2, 3, 4), hexSet(1, 9, 3, 4), Options{}, "x\ty\t0.750000\n"},
		// MIN_4 of the union of {1,2,5,6} and {1,3,5,7}: 1 2 3 5, of
		// which 1 and 5 are in both samples.
		{"method=bottomk s=4 seed=0", hexSet(1, 2, 5, 6), hexSet(1, 3, 5, 7), Options{}, "x\ty\t0.500000\n"},
		// MOD samples {1,2,3,4} and {3,4,5}: 2 of 5, 2 of 4, 2 of 3.
		{"method=modm m=2 seed=0", hexSet(1, 2, 3, 4), hexSet(3, 4, 5), Options{Containment: true}, "x\ty\t0.400000\t0.500000\t0.666667\n"},
	} {
		sketches := testutil.WriteFile(t, "k.tsv", "#neardup stage=sketch "+c.header+"\nx\t9\t"+c.a+"\ny\t9\t"+c.b+"\n")
		c.opt.Sketches = sketches
		c.opt.NoHeader = true
		out, _, err := testutil.Run(t, Run, c.opt, testutil.WriteFile(t, "p.tsv", "y\tx\n"))
		if err != nil || out != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.header, out, err, c.want)
		}
	}
	// Containment needs shingles or MOD_m samples.
	sketches := testutil.WriteFile(t, "k.tsv", "#neardup stage=sketch method=minhash n=1 seed=0 family=mixmuladd64\nx\t1\t"+hexSet(1)+"\n")
	_, _, err := testutil.Run(t, Run, Options{Sketches: sketches, Containment: true}, testutil.WriteFile(t, "p.tsv", "x\ty\n"))
	if err == nil || !strings.Contains(err.Error(), "--containment needs --shingles") {
		t.Errorf("containment from minhash sketches: %v", err)
	}
}

// TestBadInput: every problem with a line names its file and line.
func TestBadInput(t *testing.T) {
	shingles := testutil.WriteFile(t, "s.tsv", handShingles)
	for _, c := range []struct{ pairs, want string }{
		{"a\tb\na\tzz\n", "p.tsv:2: id zz is not in " + shingles},
		{"a\tb\nzz\ta\n", "p.tsv:2: id zz is not in"},
		{"a\ta\n", "p.tsv:1: a pair of a with itself"},
		{"a\n", "p.tsv:1: want idA TAB idB, found no TAB"},
		{"a\tb\tc\n", "p.tsv:1: want idA TAB idB, found more fields"},
	} {
		_, _, err := testutil.Run(t, Run, Options{Shingles: shingles}, testutil.WriteFile(t, "p.tsv", c.pairs))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("pairs %q: error %v, want %q", c.pairs, err, c.want)
		}
	}
	// Both modes of loading (only the named documents, or all of them
	// when the pairs exceed the read-ahead) find unknown ids.
	_, _, err := testutil.Run(t, Run, Options{Shingles: shingles, MemoryBytes: 1}, testutil.WriteFile(t, "p.tsv", "a\tb\n"+strings.Repeat("a\tc\n", 1000)+"a\tzz\n"))
	if err == nil || !strings.Contains(err.Error(), "p.tsv:1002: id zz is not in") {
		t.Errorf("unknown id past the read-ahead: %v", err)
	}
	dup := testutil.WriteFile(t, "s.tsv", handShingles+"a\t"+hexSet(7)+"\n")
	_, _, err = testutil.Run(t, Run, Options{Shingles: dup}, testutil.WriteFile(t, "p.tsv", "a\tb\n"))
	if err == nil || !strings.Contains(err.Error(), "s.tsv:5: id a appears more than once") {
		t.Errorf("repeated id in the shingle file: %v", err)
	}
	for _, opt := range []Options{{}, {Shingles: shingles, Sketches: shingles}} {
		if _, _, err := testutil.Run(t, Run, opt, testutil.WriteFile(t, "p.tsv", "a\tb\n")); err == nil {
			t.Errorf("%+v: want an error asking for exactly one of --shingles and --sketches", opt)
		}
	}
}

// TestHeaders: the shingle file's headers and the pairs' are checked
// against each other; a conflict is refused with both places.
func TestHeaders(t *testing.T) {
	const k5 = "#neardup stage=shingle unit=word k=5 hash=tok64 seed=0 counts=no\n"
	const k9 = "#neardup stage=shingle unit=word k=9 hash=tok64 seed=0 counts=no\n"
	shingles := testutil.WriteFile(t, "s.tsv", k5+handShingles)
	out, _, err := testutil.Run(t, Run, Options{Shingles: shingles, Threshold: 0.4}, testutil.WriteFile(t, "p.tsv", k5+"#neardup stage=pairs max-bucket=0\na\tb\n"))
	want := k5 + "#neardup stage=pairs max-bucket=0\n#neardup stage=verify measure=jaccard threshold=0.4 containment=no\na\tb\t0.400000\n"
	if err != nil || out != want {
		t.Errorf("matching headers: got %q, %v; want %q", out, err, want)
	}
	_, _, err = testutil.Run(t, Run, Options{Shingles: shingles}, testutil.WriteFile(t, "p.tsv", k9+"a\tb\n"))
	if err == nil || !strings.Contains(err.Error(), "p.tsv:1: shingle records made with k=9 can't be combined with those made with k=5") {
		t.Errorf("conflicting headers: %v", err)
	}
}

// TestJobsDeterministic: byte-identical output for any number of workers.
func TestJobsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var s, p strings.Builder
	const docs = 400
	for d := range docs {
		var set []uint64
		for v := range uint64(300) {
			if rng.IntN(3) > 0 {
				set = append(set, v*0x9e3779b97f4a7c15)
			}
		}
		slices.Sort(set)
		fmt.Fprintf(&s, "d%d\t%s\n", d, hexSet(set...))
	}
	for range 60000 {
		a, b := rng.IntN(docs), rng.IntN(docs)
		if a != b {
			fmt.Fprintf(&p, "d%d\td%d\n", a, b)
		}
	}
	shingles, pairs := testutil.WriteFile(t, "s.tsv", s.String()), testutil.WriteFile(t, "p.tsv", p.String())
	var first string
	for _, jobs := range []int{1, 3} {
		out, _, err := testutil.Run(t, Run, Options{Shingles: shingles, Threshold: 0.3, Common: stream.Common{Jobs: jobs}}, pairs)
		if err != nil {
			t.Fatal(err)
		}
		if jobs == 1 {
			first = out
		} else if out != first {
			t.Errorf("-j %d output differs from -j 1", jobs)
		}
	}
	if strings.Count(first, "\n") < 1000 {
		t.Errorf("only %d lines kept: the test should keep many", strings.Count(first, "\n"))
	}
}

func TestIntersect(t *testing.T) {
	for _, c := range []struct {
		a, b []uint64
		want int
	}{
		{nil, nil, 0},
		{[]uint64{1, 2, 3}, nil, 0},
		{[]uint64{1, 2, 3}, []uint64{2, 3, 4}, 2},
		{[]uint64{1, 5, 9}, []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 3},
		{[]uint64{0, ^uint64(0)}, []uint64{^uint64(0)}, 1},
	} {
		if got := intersect(c.a, c.b); got != c.want {
			t.Errorf("intersect(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := intersect(c.b, c.a); got != c.want {
			t.Errorf("intersect(%v, %v) = %d, want %d", c.b, c.a, got, c.want)
		}
	}
}

func BenchmarkIntersect(b *testing.B) {
	// Lists sharing a third of their values, and near-duplicates: 2,400
	// values that differ in 1 % (a one-word edit of a page of char
	// 5-shingles), 10 % or 30 % of them (Jaccard 0.7: most of what
	// verify is left with after pairs --bbit), with AVX-512's loop and
	// AVX2's.
	for _, c := range []struct {
		size    int
		differ  float64
		similar bool
	}{{100, 0, false}, {1000, 0, false}, {10000, 0, false}, {2400, 0.01, true}, {2400, 0.1, true}, {2400, 0.3, true}} {
		name := fmt.Sprintf("size=%d", c.size)
		if c.similar {
			name = fmt.Sprintf("size=%d/differ=%g", c.size, c.differ)
		}
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(c.size)))
			var x, y []uint64
			for range 3 * c.size / 2 {
				v := rng.Uint64()
				k := rng.IntN(3)
				if c.similar {
					k = 2
					if rng.Float64() < c.differ {
						k = rng.IntN(2)
					}
				}
				switch k {
				case 0:
					x = append(x, v)
				case 1:
					y = append(y, v)
				default:
					x, y = append(x, v), append(y, v)
				}
			}
			slices.Sort(x)
			slices.Sort(y)
			had := hasAVX512
			defer func() { hasAVX512 = had }()
			for _, avx512 := range []bool{false, true} {
				if avx512 && !had {
					continue
				}
				b.Run(fmt.Sprintf("avx512=%v", avx512), func(b *testing.B) {
					hasAVX512 = avx512
					b.ReportAllocs()
					b.SetBytes(8 * int64(len(x)+len(y)))
					for b.Loop() {
						intersect(x, y)
					}
				})
			}
		})
	}
}

// TestZeroHash: a document whose smallest hash is 0 loads after other
// documents (the shingle parser once compared it with the previous
// document's values), and a bad hash is numbered within its own record.
func TestZeroHash(t *testing.T) {
	shingles := testutil.WriteFile(t, "s.tsv", "a\t"+hexSet(0, 1)+"\nb\t"+hexSet(0, 2)+"\n")
	out, _, err := testutil.Run(t, Run, Options{Shingles: shingles, Threshold: 1.0 / 3, Common: stream.Common{NoHeader: true}}, testutil.WriteFile(t, "p.tsv", "a\tb\n"))
	if err != nil || out != "a\tb\t0.333333\n" {
		t.Errorf("got %q, %v; want a\\tb\\t0.333333", out, err)
	}
	bad := testutil.WriteFile(t, "s.tsv", "a\t"+hexSet(0, 1)+"\nb\t"+hexSet(3, 1)+"\n")
	_, _, err = testutil.Run(t, Run, Options{Shingles: bad}, testutil.WriteFile(t, "p.tsv", "a\tb\n"))
	if err == nil || !strings.Contains(err.Error(), "s.tsv:2: hash 2 (0000000000000001) is not above") {
		t.Errorf("unsorted hashes in the second record: %v, want s.tsv:2: hash 2", err)
	}
}

// Pairs that went through a Hadoop Streaming job keyed on both ids carry
// an empty last field; every way of scoring reads them like plain pairs,
// and a third field with something in it is still refused.
func TestHadoopEmptyLastField(t *testing.T) {
	shingles := testutil.WriteFile(t, "s.tsv", handShingles)
	fps := testutil.WriteFile(t, "f.tsv", "#neardup stage=sketch method=simhash f=64 weight=tf seed=0 bits=splitmix64\n"+
		"a\t4\t000000000000000f\nb\t3\t0000000000000007\n")
	for name, opt := range map[string]Options{
		"shingles": {Shingles: shingles, Common: stream.Common{NoHeader: true}},
		"hamming":  {Sketches: fps, Hamming: true, MaxDistance: 3, Common: stream.Common{NoHeader: true}},
	} {
		plain, _, err := testutil.Run(t, Run, opt, testutil.WriteFile(t, "p.tsv", "a\tb\n"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		hadoop, _, err := testutil.Run(t, Run, opt, testutil.WriteFile(t, "h.tsv", "a\tb\t\n"))
		if err != nil || hadoop != plain || plain == "" {
			t.Errorf("%s: with the empty last field %q (%v), without %q", name, hadoop, err, plain)
		}
		if _, _, err := testutil.Run(t, Run, opt, testutil.WriteFile(t, "x.tsv", "a\tb\tx\n")); err == nil || !strings.Contains(err.Error(), "found more fields") {
			t.Errorf("%s: a third field: err = %v", name, err)
		}
	}
}

// TestIntersectVector: intersectAtLeast's count is exact when it reaches
// need and below need when it does not, against a count by binary search,
// with each vector loop and without, for lists of
// every length to a few blocks, sharing from none to all of their values
// (large values too: the comparisons are unsigned), and long ones that
// differ in a few values or runs of them (the lockstep way), and every
// need.
func TestIntersectVector(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	// The vector loops: AVX-512's, AVX2's, none.
	type loops struct{ avx512, avx2 bool }
	for _, vector := range []loops{{true, true}, {false, true}, {false, false}} {
		if vector.avx512 && !hasAVX512 || vector.avx2 && !hasAVX2 {
			continue
		}
		had, had512 := hasAVX2, hasAVX512
		hasAVX2, hasAVX512 = vector.avx2, vector.avx512
		for trial := range 6000 {
			var x, y []uint64
			shared := r.IntN(5) // in fourths
			values := r.IntN(40)
			if trial >= 3000 {
				// Near-duplicates: long lists that differ in a few
				// values here and there, or in runs.
				shared, values = 4, r.IntN(400)
			}
			for v := range values {
				if trial >= 3000 && r.IntN(40) == 0 {
					// a run of values in one list alone
					for range 1 + r.IntN(9) {
						if w := r.Uint64(); v%2 == 0 {
							x = append(x, w)
						} else {
							y = append(y, w)
						}
					}
				}
				v := r.Uint64()
				if trial%2 == 0 && trial < 3000 {
					v = r.Uint64N(200) << 56 // equal last values are common
				}
				switch k := r.IntN(4); {
				case k < shared:
					x, y = append(x, v), append(y, v)
				case k%2 == 0:
					x = append(x, v)
				default:
					y = append(y, v)
				}
			}
			slices.Sort(x)
			slices.Sort(y)
			x, y = slices.Compact(x), slices.Compact(y)
			want := 0
			for _, v := range x {
				if _, ok := slices.BinarySearch(y, v); ok {
					want++
				}
			}
			needs := []int{-1, want - 1, want, want + 1, min(len(x), len(y)) + 1}
			if trial < 3000 {
				needs = needs[:0]
				for need := -1; need <= min(len(x), len(y))+1; need++ {
					needs = append(needs, need)
				}
			}
			for _, need := range needs {
				got := intersectAtLeast(x, y, need)
				if want >= need && got != want || want < need && got >= need {
					t.Fatalf("vector loops %+v: %d and %d values, %d common, need %d: got %d", vector, len(x), len(y), want, need, got)
				}
			}
		}
		hasAVX2, hasAVX512 = had, had512
	}
}
