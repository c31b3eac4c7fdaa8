package docfreq

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// shingleRecords makes n shingle records whose hashes are drawn from a pool
// of vocab (some hashes in many documents, most in few, and some sharing
// their top bits), and the table they make, counted with a map.
func shingleRecords(rng *rand.Rand, n, vocab int) (string, string) {
	pool := make([]uint64, vocab)
	for i := range pool {
		pool[i] = rng.Uint64()
		if i%5 == 0 {
			pool[i] >>= 8 // crowd the first bucket
		}
	}
	want := map[uint64]int{}
	var b strings.Builder
	b.WriteString("#neardup stage=shingle unit=word k=1 hash=tok64 seed=0 counts=no\n")
	for d := range n {
		set := map[uint64]bool{}
		for range 1 + rng.IntN(60) {
			// Zipf-like: a few hashes are in most documents.
			set[pool[int(float64(vocab)*rng.Float64()*rng.Float64()*rng.Float64())]] = true
		}
		hs := make([]uint64, 0, len(set))
		for h := range set {
			hs = append(hs, h)
			want[h]++
		}
		slices.Sort(hs)
		fmt.Fprintf(&b, "d%d\t", d)
		for i, h := range hs {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%016x", h)
		}
		b.WriteByte('\n')
	}
	keys := make([]uint64, 0, len(want))
	for h := range want {
		keys = append(keys, h)
	}
	slices.Sort(keys)
	var t strings.Builder
	fmt.Fprintf(&t, "#neardup stage=shingle unit=word k=1 hash=tok64 seed=0 counts=no\n#neardup stage=docfreq docs=%d\n", n)
	for _, h := range keys {
		fmt.Fprintf(&t, "%016x\t%d\n", h, want[h])
	}
	return b.String(), t.String()
}

// Counting gives the same table whether it fits in memory or spills runs,
// and when there are so many runs that they are merged on the way (more
// than maxOpenRuns), for any number of jobs; and it leaves no run behind.
func TestCountSpills(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	in, want := shingleRecords(rng, 18000, 20000)
	file := testutil.WriteFile(t, "shingles.tsv", in)
	for _, mem := range []int64{0, 1 << 20, 1} {
		for _, jobs := range []int{1, 3} {
			tmp := t.TempDir()
			opt := Options{MemoryBytes: mem, TempDir: tmp, Common: stream.Common{Jobs: jobs}}
			got, stderr, err := testutil.Run(t, Run, opt, file)
			if err != nil || stderr != "" {
				t.Fatalf("--memory %d -j %d: %v %s", mem, jobs, err, stderr)
			}
			if got != want {
				t.Errorf("--memory %d -j %d: the table differs from a map's count", mem, jobs)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
				t.Errorf("--memory %d: runs left behind: %v", mem, left)
			}
		}
	}
	if n := strings.Count(in, " ") / slotsFor(1); n <= maxOpenRuns {
		t.Fatalf("the smallest memory spills about %d runs: the test needs more than %d", n, maxOpenRuns)
	}
}

// The input holds nothing: the table is the headers alone.
func TestCountEmpty(t *testing.T) {
	file := testutil.WriteFile(t, "empty.tsv", "#neardup stage=shingle unit=word k=1 hash=tok64 seed=0 counts=no\n")
	got, _, err := testutil.Run(t, Run, Options{}, file)
	if err != nil {
		t.Fatal(err)
	}
	if want := "#neardup stage=shingle unit=word k=1 hash=tok64 seed=0 counts=no\n#neardup stage=docfreq docs=0\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
}

// The buffer's regions are laid out again when the hashes crowd some of
// them: a skewed input spills when the buffer is about full, as a uniform
// one does, not when its fullest region is; and what the regions hold
// survives their moves.
func TestCountRegions(t *testing.T) {
	for _, skew := range []int{0, 2, 10} {
		rng := rand.New(rand.NewPCG(5, uint64(skew)))
		c := newCounter(&Options{MemoryBytes: 9 << 16, TempDir: t.TempDir()}, 2)
		defer c.runs.Remove()
		want := map[uint64]uint64{}
		added, layouts := 0, 0
		var ends [buckets]int
		var part []uint64
		for c.runs.Len() == 0 {
			hs := make([]uint64, 500)
			for i := range hs {
				hs[i] = rng.Uint64()
				if skew > 0 && i%skew == 0 {
					hs[i] >>= 10 // in the first bucket
				}
			}
			before := c.n
			part = partition(part, hs, &ends)
			if err := c.add(part, &ends); err != nil {
				t.Fatal(err)
			}
			if c.runs.Len() > 0 {
				if before < len(c.buf)*7/8 {
					t.Errorf("skew %d: spilled with %d of %d slots full", skew, before, len(c.buf))
				}
				break
			}
			added += len(hs)
			layouts = c.laidOut
			for _, h := range hs {
				want[h]++
			}
		}
		// The first run holds at least what was counted before the chunk
		// that spilled it.
		r := c.runs.Readers()
		got := map[uint64]uint64{}
		if err := mergeSum(context.Background(), runSources(r), func(h, n uint64) error {
			if n > 0 {
				got[h] = n
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for h, n := range want {
			if got[h] < n {
				t.Fatalf("skew %d: hash %016x counted %d times in the run, added %d", skew, h, got[h], n)
			}
		}
		t.Logf("skew %d: spilled after %d hashes, %d slots, %d layouts", skew, added, len(c.buf), layouts)
	}
}
