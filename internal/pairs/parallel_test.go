package pairs

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

func TestParallelSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 10, minParallelSort, 3 * minParallelSort} {
		for _, spread := range []uint64{3, 1000, 1 << 62} { // many equal values, or few
			a := make([]uint64, n)
			for i := range a {
				a[i] = rng.Uint64N(spread)
			}
			want := slices.Clone(a)
			slices.Sort(want)
			for _, jobs := range []int{1, 2, 3, 8, 100} {
				got := slices.Clone(a)
				parallelSort(got, jobs, cmp.Compare[uint64], slices.Sort[[]uint64])
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d spread=%d jobs=%d: not sorted as slices.Sort sorts", n, spread, jobs)
				}
			}
		}
	}
}

func TestSortEntriesJobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// Keys whose low words share their leading bits (one part), and
	// uniform ones drawn from a pool, so that keys repeat (every part).
	pool := make([]uint64, 20000)
	for i := range pool {
		pool[i] = rng.Uint64()
	}
	for _, uniform := range []bool{false, true} {
		a := make([]entry, 100000)
		for i := range a {
			lo := rng.Uint64N(5000) << 40
			if uniform {
				lo = pool[rng.IntN(len(pool))]
			}
			a[i] = entry{key: key128{rng.Uint64N(4), lo}, doc: rng.Uint32N(1000)}
		}
		want := slices.Clone(a)
		slices.SortFunc(want, compareEntries)
		for _, jobs := range []int{1, 2, 4, 7} {
			got := slices.Clone(a)
			sortEntries(got, jobs)
			if !slices.Equal(got, want) {
				t.Fatalf("uniform=%v: sortEntries(%d) differs from slices.SortFunc", uniform, jobs)
			}
		}
	}
}

// TestJobsSameOutput runs the stage with -j 1 and more, in memory and
// sorted with a buffer that spills, on buckets large enough to be paired and
// sorted in parallel, one of them capped: the output, and what it says on
// stderr, is byte for byte the same.
func TestJobsSameOutput(t *testing.T) {
	var b strings.Builder
	b.WriteString("#neardup stage=band scheme=minhash b=3 r=2 key=xxh64\n")
	rng := rand.New(rand.NewPCG(5, 6))
	var lines []string
	for band := range 3 {
		for k := range 40 {
			for range 60 {
				lines = append(lines, fmt.Sprintf("%04x%016x\tdoc%d\n", band, k, rng.IntN(2000)))
			}
		}
	}
	// A bucket past --max-bucket: its pairs left out are counted.
	for d := range 600 {
		lines = append(lines, fmt.Sprintf("%04x%016x\tdoc%d\n", 0, 1<<40, d))
	}
	slices.Sort(lines) // key-sorted for --sorted
	b.WriteString(strings.Join(lines, ""))
	dir := t.TempDir()
	in := testutil.WriteFileIn(t, dir, "bands.tsv", b.String())
	for _, mode := range []struct {
		sorted bool
		memory int64
	}{{false, 0}, {true, 64 << 20}, {true, 1 << 20}} {
		sorted := mode.sorted
		var want, wantErrs []byte
		for _, j := range []int{1, 2, 4} {
			opt := Options{Sorted: sorted, MaxBucket: 512, MemoryBytes: mode.memory, TempDir: dir, Common: stream.Common{Jobs: j}}
			var out, errs bytes.Buffer
			if err := Run(context.Background(), opt, []string{in}, &out, &errs); err != nil {
				t.Fatal(err)
			}
			if j == 1 {
				want, wantErrs = out.Bytes(), errs.Bytes()
				if n := bytes.Count(want, []byte{'\n'}); n < minParallelSort {
					t.Fatalf("only %d pairs: too few to sort in parallel", n)
				}
				continue
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("sorted=%v memory=%d: -j %d writes other pairs than -j 1", sorted, mode.memory, j)
			}
			if !bytes.Equal(errs.Bytes(), wantErrs) {
				t.Errorf("sorted=%v memory=%d: -j %d says\n%s\n-j 1 says\n%s", sorted, mode.memory, j, errs.Bytes(), wantErrs)
			}
		}
	}
}
