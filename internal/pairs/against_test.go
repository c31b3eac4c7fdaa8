package pairs

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/bandindex"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

const againstHeaders = "#neardup stage=sketch method=minhash n=8 seed=0 family=mixmuladd64\n" +
	"#neardup stage=band scheme=minhash b=4 r=2 key=xxh64\n"

// againstRecords returns band records of the ids, keys drawn from a small
// set so that buckets mix ids, and one crowded key.
func againstRecords(rng *rand.Rand, ids []string) string {
	var b strings.Builder
	for _, id := range ids {
		for band := range 4 {
			k := rng.IntN(40)
			if rng.IntN(8) == 0 {
				k = 0
			}
			fmt.Fprintf(&b, "%04x%016x\t%s\n", band, k, id)
		}
	}
	return b.String()
}

// againstBrute returns the expected pairs: those of every bucket of old and
// new records together (with maxBucket > 0 and a larger bucket, those with
// one of its maxBucket smallest ids) that hold an
// id the batch has in that bucket, each once, sorted.
func againstBrute(old, batch string, c bucketCap) string {
	isNew := map[string]bool{} // key TAB id of the batch
	buckets := map[string][]string{}
	for _, in := range []string{old, batch} {
		for _, l := range strings.Split(strings.TrimSuffix(in, "\n"), "\n") {
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			k, id, _ := strings.Cut(l, "\t")
			buckets[k] = append(buckets[k], id)
			if in == batch {
				isNew[l] = true
			}
		}
	}
	set := map[string]bool{}
	for k, ids := range buckets {
		slices.Sort(ids)
		ids = slices.Compact(ids)
		for i := range ids {
			for j := i + 1; j < len(ids); j++ {
				if !capKeeps(c, len(ids), i, j) {
					continue
				}
				if isNew[k+"\t"+ids[i]] || isNew[k+"\t"+ids[j]] {
					set[ids[i]+"\t"+ids[j]+"\n"] = true
				}
			}
		}
	}
	var pairs []string
	for p := range set {
		pairs = append(pairs, p)
	}
	slices.Sort(pairs)
	return strings.Join(pairs, "")
}

// TestAgainst: pairs --against writes the pairs of the batch with itself
// and with the index, never old with old, each once; both modes the same
// bytes; with a cap on buckets; an index of several runs; ids of the batch
// that the index holds too; repeated records.
func TestAgainst(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	var oldIDs, newIDs []string
	for i := range 300 {
		oldIDs = append(oldIDs, fmt.Sprintf("old%03d", i))
	}
	for i := range 60 {
		newIDs = append(newIDs, fmt.Sprintf("new%02d", i))
	}
	newIDs = append(newIDs, "old007", "old123") // seen before, sent again
	old1 := againstRecords(rng, oldIDs[:200])
	old2 := againstRecords(rng, oldIDs[200:])
	batch := againstRecords(rng, newIDs)
	batch += strings.SplitAfter(batch, "\n")[0] // a repeated record
	dir := filepath.Join(t.TempDir(), "idx")
	ctx := context.Background()
	if err := bandindex.RunBuild(ctx, bandindex.Options{}, dir, []string{testutil.WriteFile(t, "o1.tsv", againstHeaders+old1)}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := bandindex.RunAdd(ctx, bandindex.Options{}, dir, []string{testutil.WriteFile(t, "o2.tsv", againstHeaders+old2)}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, maxBucket := range []int{0, 10} {
		want := againstBrute(old1+old2, batch, bucketCap{max: maxBucket, reps: maxBucket})
		opt := Options{Against: dir, MaxBucket: maxBucket, Common: stream.Common{NoHeader: true}}
		mem, sorted := modes(t, opt, againstHeaders+batch)
		if mem != want {
			t.Errorf("max-bucket %d: memory mode: %d lines, want %d", maxBucket, strings.Count(mem, "\n"), strings.Count(want, "\n"))
		}
		if sorted != mem {
			t.Errorf("max-bucket %d: the sorted mode differs from the memory mode", maxBucket)
		}
		if strings.Contains(mem, "old001\told002\n") || strings.Count(want, "\n") < 100 {
			t.Errorf("max-bucket %d: %d pairs, old with old among them?", maxBucket, strings.Count(want, "\n"))
		}
		// The pairs of everything equal the pairs of the old documents
		// and those of the batch with everything.
		if maxBucket == 0 {
			all, _, err := runStage(t, Options{Common: stream.Common{NoHeader: true}}, testutil.WriteFile(t, "all.tsv", old1+old2+batch))
			if err != nil {
				t.Fatal(err)
			}
			oldOnly, _, err := runStage(t, Options{Common: stream.Common{NoHeader: true}}, testutil.WriteFile(t, "old.tsv", old1+old2))
			if err != nil {
				t.Fatal(err)
			}
			union := strings.SplitAfter(oldOnly+mem, "\n")
			slices.Sort(union)
			union = slices.Compact(union)
			if strings.Join(union, "") != all {
				t.Errorf("old pairs and --against pairs together are not the pairs of everything")
			}
		}
	}
	out, stderr, err := runStage(t, Options{Against: dir}, testutil.WriteFile(t, "b.tsv", againstHeaders+batch))
	if err != nil || !strings.HasPrefix(out, againstHeaders+"#neardup stage=pairs max-bucket=0\n") || !strings.Contains(stderr, "1 repeated (key, id) record(s) ignored") {
		t.Errorf("headers %q, stderr %q, %v", out[:min(len(out), 300)], stderr, err)
	}
}

// TestAgainstRefused: a batch made under other parameters, or without
// its header lines, or Hamming band records, is refused; so is a missing
// index.
func TestAgainstRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	if err := bandindex.RunBuild(context.Background(), bandindex.Options{}, dir, []string{testutil.WriteFile(t, "o.tsv", againstHeaders+"0000aa\tx\n")}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{strings.Replace(againstHeaders, "r=2", "r=3", 1) + "0000aa\ty\n", "b.tsv:2: band records made with r=3 can't be combined with those made with r=2 (" + dir + "/MANIFEST:3)"},
		{"0000aa\ty\n", "b.tsv:1: no sketch header line before this record"},
		{againstHeaders + "0000aa\ty\tffffffffffffffff\n", "b.tsv:3: want key TAB id, found 3 fields"},
		{"#neardup stage=band scheme=hamming f=64 k=3 blocks=6 widths=11,11,11,11,10,10 tables=20\n0000aa\ty\tffffffffffffffff\n", "--against pairs MinHash band keys"},
	} {
		_, _, err := runStage(t, Options{Against: dir}, testutil.WriteFile(t, "b.tsv", c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v\nwant %q", c.in, err, c.want)
		}
	}
	_, _, err := runStage(t, Options{Against: t.TempDir()}, testutil.WriteFile(t, "b.tsv", againstHeaders+"0000aa\ty\n"))
	if err == nil || !strings.Contains(err.Error(), "not a band index") {
		t.Errorf("no index: %v", err)
	}
}

// TestAgainstCapArrivalOrder: with ids that are arrival numbers (the new
// documents' greater than the old ones'), the representatives of a capped
// bucket are its earliest documents, which later batches do not change:
// the pairs of the old documents and those of a batch --against them are
// exactly the pairs of a one-shot run over both, in every mode.
func TestAgainstCapArrivalOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	number := func(from, n int) (ids []string) {
		for i := range n {
			ids = append(ids, fmt.Sprintf("%012d", from+i))
		}
		return ids
	}
	old, batch := againstRecords(rng, number(0, 300)), againstRecords(rng, number(300, 80))
	dir := filepath.Join(t.TempDir(), "idx")
	if err := bandindex.RunBuild(context.Background(), bandindex.Options{}, dir, []string{testutil.WriteFile(t, "o.tsv", againstHeaders+old)}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	const maxBucket = 7
	opt := Options{MaxBucket: maxBucket, Reps: 3, Common: stream.Common{NoHeader: true}, TempDir: t.TempDir()}
	all, allSorted := modes(t, opt, old+batch)
	if all != allSorted || all != bruteForce(old+batch, opt.cap()) {
		t.Fatalf("one shot: the memory and sorted modes or the brute force differ")
	}
	oldOnly, _ := modes(t, opt, old)
	opt.Against = dir
	against, againstSorted := modes(t, opt, againstHeaders+batch)
	if against != againstSorted {
		t.Fatalf("--against: the sorted mode differs from the memory mode")
	}
	union := strings.SplitAfter(oldOnly+against, "\n")
	slices.Sort(union)
	union = slices.Compact(union)
	if got := strings.Join(union, ""); got != all {
		t.Errorf("old pairs and --against pairs: %d lines, the one-shot run's %d", strings.Count(got, "\n"), strings.Count(all, "\n"))
	}
	_, stderr, err := runStage(t, opt, testutil.WriteFile(t, "b.tsv", againstHeaders+batch))
	if err != nil || !strings.Contains(stderr, "--max-bucket 7 ids") {
		t.Errorf("--against with a cap: stderr %q, %v", stderr, err)
	}
}
