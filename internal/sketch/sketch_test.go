package sketch

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// shingleRecords returns shingle records of docs random sets of up to
// maxSize hashes (some empty), and the sets.
func shingleRecords(docs, maxSize int) (string, [][]uint64) {
	rng := rand.New(rand.NewPCG(uint64(docs), uint64(maxSize)))
	var b strings.Builder
	var sets [][]uint64
	for d := range docs {
		set := make([]uint64, rng.IntN(maxSize+1))
		for i := range set {
			set[i] = rng.Uint64()
		}
		slices.Sort(set)
		set = slices.Compact(set)
		sets = append(sets, set)
		fmt.Fprintf(&b, "doc%d\t%s\n", d, record.AppendHexList(nil, set))
	}
	return b.String(), sets
}

// TestMethods: each method writes "id TAB size TAB values" with the values
// of the minhash package for the record's set, after the headers.
func TestMethods(t *testing.T) {
	in, sets := shingleRecords(50, 40)
	path := testutil.WriteFile(t, "s.tsv", "#neardup stage=shingle unit=word k=5 hash=tok64 seed=0 counts=no\n"+in)
	for _, opt := range []Options{
		{Method: MinHash, N: 16, Seed: 3},
		{Method: OPH, N: 16, Seed: 3},
		{Method: BottomK, S: 8, Seed: 3},
		{Method: ModM, M: 4, Seed: 3},
	} {
		t.Run(opt.Method, func(t *testing.T) {
			out, stderr, err := testutil.Run(t, Run, opt, path)
			if err != nil || stderr != "" {
				t.Fatalf("Run: %v, stderr %q", err, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			want := []string{"#neardup stage=shingle unit=word k=5 hash=tok64 seed=0 counts=no", opt.Header().String()}
			if !slices.Equal(lines[:2], want) {
				t.Fatalf("headers %q, want %q", lines[:2], want)
			}
			if len(lines) != 2+len(sets) {
				t.Fatalf("%d records, want %d", len(lines)-2, len(sets))
			}
			for d, set := range sets {
				var want []uint64
				switch opt.Method {
				case MinHash:
					want = make([]uint64, opt.N)
					minhash.NewFamily(opt.N, opt.Seed).Signature(want, set)
				case OPH:
					want = make([]uint64, opt.N)
					minhash.NewOPH(opt.N, opt.Seed).Signature(want, set)
				case BottomK:
					want = minhash.NewBottomK(opt.S, opt.Seed).Sample(nil, set)
				case ModM:
					want = minhash.NewModM(opt.M, opt.Seed).Sample(nil, set)
				}
				wantLine := string(record.AppendSketch(nil, fmt.Appendf(nil, "doc%d", d), uint64(len(set)), want))
				if got := lines[2+d] + "\n"; got != wantLine {
					t.Fatalf("doc%d: got %q, want %q", d, got, wantLine)
				}
			}
		})
	}
}

// TestEmptyDocument: a document without shingles has size 0 and, for
// signatures, Empty at every position.
func TestEmptyDocument(t *testing.T) {
	out, _, err := testutil.Run(t, Run, Options{Method: MinHash, N: 3, Common: stream.Common{NoHeader: true}}, testutil.WriteFile(t, "s.tsv", "empty\t\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "empty\t0\tffffffffffffffff ffffffffffffffff ffffffffffffffff\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// TestJobsDeterministic: the output is byte-identical for any number of
// workers, over inputs of several chunks.
func TestJobsDeterministic(t *testing.T) {
	in, _ := shingleRecords(6000, 150)
	path := testutil.WriteFile(t, "s.tsv", in)
	var first string
	for _, jobs := range []int{1, 2, 5} {
		out, _, err := testutil.Run(t, Run, Options{Method: MinHash, N: 32, Seed: 1, Common: stream.Common{Jobs: jobs}}, path)
		if err != nil {
			t.Fatal(err)
		}
		if jobs == 1 {
			first = out
		} else if out != first {
			t.Errorf("-j %d output differs from -j 1", jobs)
		}
	}
	if len(first) < 2<<20 {
		t.Errorf("the input should span several chunks: output only %d bytes", len(first))
	}
}

// TestBadInput: errors name the file and line.
func TestBadInput(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\t0000000000000001\nb\t0000000000000002 0000000000000001\n", "s.tsv:2: hash 2 (0000000000000001) is not above"},
		{"a\t0000000000000001\nno tab here\n", "s.tsv:2: want id TAB shingle hashes"},
		{"a\t00000000000000zz\n", "s.tsv:1: hash 1: want 16 hex digits"},
	} {
		_, _, err := testutil.Run(t, Run, Options{Method: MinHash, N: 4}, testutil.WriteFile(t, "s.tsv", c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("input %q: error %v, want %q", c.in, err, c.want)
		}
	}
	out, stderr, err := testutil.Run(t, Run, Options{Method: MinHash, N: 2, Common: stream.Common{SkipBad: true, NoHeader: true}},
		testutil.WriteFile(t, "s.tsv", "a\tzz\nb\t0000000000000001\n"))
	if err != nil || !strings.HasPrefix(out, "b\t1\t") || !strings.Contains(stderr, "s.tsv:1:") {
		t.Errorf("--skip-bad: out %q, stderr %q, err %v; want b's record and the skipped line named", out, stderr, err)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Method: MinHash, N: 0}, "-n 0"},
		{Options{Method: OPH, N: 1<<16 + 1}, "-n 65537"},
		{Options{Method: BottomK, S: 0}, "-s 0"},
		{Options{Method: ModM, M: 0}, "-m 0"},
		{Options{Method: "lsh"}, "unknown method"},
		{Options{Method: MinHash, N: 128}, ""},
	} {
		err := c.opt.Resolve()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: Resolve() = %v, want %q", c.opt, err, c.want)
		}
	}
}

// One-hash records make sketches a hundred times their size: a chunk's
// output is passed on as it grows, not held whole (issue 16: 844 MB on a
// million one-word documents), and is the same for any -j.
func TestShortRecordsStream(t *testing.T) {
	var b strings.Builder
	b.WriteString("#neardup stage=shingle unit=word k=5 hash=tok64 seed=0 counts=no\n")
	for d := range 40000 {
		fmt.Fprintf(&b, "d%d\t%016x\n", d, uint64(d)*0x9e3779b97f4a7c15)
	}
	path := testutil.WriteFile(t, "s.tsv", b.String())
	var want string
	for _, jobs := range []int{1, 2} {
		var out testutil.LargestWrite
		opt := Options{N: 128, Method: MinHash, Common: stream.Common{Jobs: jobs}}
		if err := Run(t.Context(), opt, []string{path}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if jobs == 1 {
			want = out.String()
		} else if out.String() != want {
			t.Errorf("-j %d: output differs from -j 1", jobs)
		}
		if out.Largest > stream.FlushSize+4096 {
			t.Errorf("-j %d: one write of %d bytes: a chunk's sketches were held whole", jobs, out.Largest)
		}
	}
}
