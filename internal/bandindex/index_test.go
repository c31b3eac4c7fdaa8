package bandindex

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
)

const testHeaders = "#neardup stage=shingle unit=word k=5 hash=tok64 seed=0 counts=no\n" +
	"#neardup stage=sketch method=minhash n=128 seed=0 family=mixmuladd64\n" +
	"#neardup stage=band scheme=minhash b=20 r=5 key=xxh64\n"

// batch returns band records of docs documents d<first>… with bands keys
// each, drawn so that documents share keys (a few keys are shared by many),
// with the test headers, and the records as "key TAB id" lines.
func batch(rng *rand.Rand, first, docs, bands int) (string, []string) {
	var b strings.Builder
	b.WriteString(testHeaders)
	var recs []string
	for d := first; d < first+docs; d++ {
		for band := range bands {
			k := rng.IntN(docs)
			if rng.IntN(50) == 0 {
				k = 7 // a crowded bucket
			}
			line := fmt.Sprintf("%04x%016x\tdoc%06d", band, uint64(k)*0x9e3779b97f4a7c15, d)
			recs = append(recs, line)
			b.WriteString(line + "\n")
		}
	}
	return b.String(), recs
}

// dump returns the records of the index at dir of fsys, without headers.
func dump(t *testing.T, fsys fileSystem, dir string) string {
	t.Helper()
	ix, err := open(fsys, dir, fileBudget())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var out bytes.Buffer
	if err := Dump(context.Background(), ix, true, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// sortedUnique returns the lines, sorted by key then id, each once.
func sortedUnique(lines ...[]string) string {
	var all []string
	for _, l := range lines {
		all = append(all, l...)
	}
	slices.SortFunc(all, func(a, b string) int {
		ka, ia, _ := strings.Cut(a, "\t")
		kb, ib, _ := strings.Cut(b, "\t")
		return compareEntry([]byte(ka), []byte(ia), []byte(kb), []byte(ib))
	})
	all = slices.Compact(all)
	if len(all) == 0 {
		return ""
	}
	return strings.Join(all, "\n") + "\n"
}

func mustBuild(t *testing.T, opt Options, dir string, content string) {
	t.Helper()
	var stderr bytes.Buffer
	if err := RunBuild(context.Background(), opt, dir, []string{testutil.WriteFile(t, "b.tsv", content)}, &stderr); err != nil {
		t.Fatalf("build: %v (%s)", err, stderr.String())
	}
}

func mustAdd(t *testing.T, opt Options, dir string, content string) {
	t.Helper()
	var stderr bytes.Buffer
	if err := RunAdd(context.Background(), opt, dir, []string{testutil.WriteFile(t, "a.tsv", content)}, &stderr); err != nil {
		t.Fatalf("add: %v (%s)", err, stderr.String())
	}
}

// TestBuildAddMergeDump: the records of every batch come out of dump once
// each, in order, after build, adds (one of them larger than the memory
// given, so written as several runs) and merges; stats --check passes.
func TestBuildAddMergeDump(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	dir := filepath.Join(t.TempDir(), "idx")
	b0, r0 := batch(rng, 0, 3000, 20)
	b1, r1 := batch(rng, 3000, 500, 20)
	b2, r2 := batch(rng, 3500, 2000, 20)
	mustBuild(t, Options{}, dir, b0)
	mustAdd(t, Options{}, dir, b1)
	mustAdd(t, Options{MemoryBytes: 300 << 10}, dir, b2+b1) // b1 again: stored twice, counted once
	want := sortedUnique(r0, r1, r2)
	if got := dump(t, osFS{}, dir); got != want {
		t.Fatalf("dump after adds: %d bytes, want %d", len(got), len(want))
	}
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs := ix.Runs()
	var stats bytes.Buffer
	if err := Stats(ix, true, &stats); err != nil {
		t.Fatalf("stats --check: %v", err)
	}
	ix.Close()
	if runs < 4 {
		t.Fatalf("%d runs: the large batch should have made several", runs)
	}
	if !strings.Contains(stats.String(), "check:       every block read") || !strings.Contains(stats.String(), "parameters:  #neardup stage=band scheme=minhash b=20 r=5 key=xxh64") {
		t.Errorf("stats:\n%s", stats.String())
	}
	for _, maxRuns := range []int{3, 1} {
		if err := RunMerge(context.Background(), Options{MaxRuns: maxRuns}, dir, os.Stderr); err != nil {
			t.Fatal(err)
		}
		if got := dump(t, osFS{}, dir); got != want {
			t.Fatalf("dump after merge to %d runs differs", maxRuns)
		}
		ix, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Runs() != maxRuns || ix.Records() != uint64(strings.Count(want, "\n")) && maxRuns == 1 {
			t.Errorf("merge to %d: %d runs, %d records", maxRuns, ix.Runs(), ix.Records())
		}
		if err := ix.Check(); err != nil {
			t.Errorf("merge to %d: %v", maxRuns, err)
		}
		ix.Close()
		names, _ := osFS{}.ReadDir(dir)
		if len(names) != maxRuns+2 {
			t.Errorf("merge to %d left %v", maxRuns, names)
		}
	}
}

// TestLookup: the ids of every key asked for, in ascending order, present
// or not, equal those of the records, over several runs holding some
// records twice; with a limit, the smallest.
func TestLookup(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 1))
	dir := filepath.Join(t.TempDir(), "idx")
	b0, r0 := batch(rng, 0, 2000, 10)
	b1, r1 := batch(rng, 1500, 1000, 10) // ids 1500..1999 twice, other keys
	mustBuild(t, Options{}, dir, b0)
	mustAdd(t, Options{MemoryBytes: 100 << 10}, dir, b1+strings.Join(r0[:300], "\n")+"\n")
	byKey := map[string][]string{}
	for _, l := range append(r0, r1...) {
		k, id, _ := strings.Cut(l, "\t")
		byKey[k] = append(byKey[k], id)
	}
	var keys []string
	for k := range byKey {
		keys = append(keys, k)
		// A key just past it, which no record has.
		keys = append(keys, k+"0")
	}
	keys = append(keys, "", "0", "ffff")
	slices.Sort(keys)
	keys = slices.Compact(keys)
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, limit := range []int{0, 3} {
		l := ix.NewLookup()
		for i, k := range keys {
			if limit > 0 && i%5 != 0 {
				continue // skip keys, so that blocks are passed over
			}
			want := slices.Clone(byKey[k])
			slices.Sort(want)
			want = slices.Compact(want)
			if limit > 0 && len(want) > limit {
				want = want[:limit]
			}
			ids, err := l.IDs([]byte(k), limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, id := range ids {
				got = append(got, string(id))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("limit %d, key %q: %q, want %q", limit, k, got, want)
			}
		}
	}
}

// TestParameters: a batch made under other parameters, without its header
// lines, or of a Hamming scheme is refused, with the places of both
// headers; build refuses to overwrite an index.
func TestParameters(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	dir := filepath.Join(t.TempDir(), "idx")
	b0, _ := batch(rng, 0, 100, 4)
	mustBuild(t, Options{}, dir, b0)
	before := dump(t, osFS{}, dir)
	for _, c := range []struct{ content, want string }{
		{strings.Replace(b0, "b=20", "b=18", 1), "a.tsv:3: band records made with b=18 can't be combined with those made with b=20 (" + dir + "/MANIFEST:4)"},
		{strings.Replace(b0, "k=5", "k=9", 1), "a.tsv:1: shingle records made with k=9 can't be combined with those made with k=5 (" + dir + "/MANIFEST:2)"},
		{b0[strings.Index(b0, "0000"):], "a.tsv:1: no shingle header line before this record, but the index's records were made with"},
		{strings.Replace(b0, "scheme=minhash", "scheme=hamming", 1), "a.tsv:3: a band index holds MinHash band keys; these band records are of the hamming scheme"},
		{testHeaders + "#neardup stage=docfreq docs=3\n0000aaaaaaaaaaaaaaaa\tx\n", "a.tsv:4: " + dir + ": the index was built from records that went through no docfreq stage"},
		{testHeaders + "0000aaaaaaaaaaaaaaaa\tx\tffffffffffffffff\n", "a.tsv:4: want key TAB id, found 3 fields (Hamming band records"},
	} {
		err := RunAdd(context.Background(), Options{}, dir, []string{testutil.WriteFile(t, "a.tsv", c.content)}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v\nwant %q", err, c.want)
		}
	}
	if after := dump(t, osFS{}, dir); after != before {
		t.Errorf("a refused batch changed the index")
	}
	names, _ := osFS{}.ReadDir(dir)
	if len(names) != 3 {
		t.Errorf("refused batches left files: %v", names)
	}
	err := RunBuild(context.Background(), Options{}, dir, []string{testutil.WriteFile(t, "b.tsv", b0)}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "already a band index") {
		t.Errorf("build over an index: %v", err)
	}
	_, err = Open(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not a band index (no MANIFEST") {
		t.Errorf("open of an empty directory: %v", err)
	}
}

// TestDamage: a changed byte anywhere in a run or the manifest, or a
// truncated file, is found when the index is opened or the block read
// (stats --check reads them all), never silently.
func TestDamage(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	dir := filepath.Join(t.TempDir(), "idx")
	b0, _ := batch(rng, 0, 2000, 10)
	mustBuild(t, Options{}, dir, b0)
	run := filepath.Join(dir, runName(1))
	good, _ := os.ReadFile(run)
	manifestPath := filepath.Join(dir, manifestName)
	goodManifest, _ := os.ReadFile(manifestPath)
	check := func(what string) {
		t.Helper()
		ix, err := Open(dir)
		if err == nil {
			err = ix.Check()
			ix.Close()
		}
		if err == nil {
			t.Errorf("%s: not found", what)
		}
	}
	for _, off := range []int{3, 10, 100, len(good) / 2, len(good) - 100, len(good) - 40, len(good) - 20, len(good) - 1} {
		bad := bytes.Clone(good)
		bad[off] ^= 0x40
		os.WriteFile(run, bad, 0o644)
		check(fmt.Sprintf("run byte %d of %d changed", off, len(good)))
	}
	os.WriteFile(run, good[:len(good)-7], 0o644)
	check("run truncated")
	os.WriteFile(run, good, 0o644)
	for _, off := range []int{5, len(goodManifest) / 2, len(goodManifest) - 3} {
		bad := bytes.Clone(goodManifest)
		bad[off] ^= 0x01
		os.WriteFile(manifestPath, bad, 0o644)
		check(fmt.Sprintf("manifest byte %d changed", off))
	}
	os.WriteFile(manifestPath, goodManifest[:len(goodManifest)-10], 0o644)
	check("manifest truncated")
	os.WriteFile(manifestPath, goodManifest, 0o644)
	// Another index's run under the same name.
	other := filepath.Join(t.TempDir(), "other")
	b1, _ := batch(rng, 0, 2000, 10)
	mustBuild(t, Options{}, other, b1)
	theirs, _ := os.ReadFile(filepath.Join(other, runName(1)))
	os.WriteFile(run, theirs, 0o644)
	ix, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), "not the run it names") {
		t.Errorf("a foreign run: %v", err)
		ix.Close()
	}
}

// TestLock: a second writer is refused while one holds the index.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	unlock, err := osFS{}.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (osFS{}).Lock(dir); err == nil || !strings.Contains(err.Error(), "another bandindex command is changing this index") {
		t.Errorf("second lock: %v", err)
	}
	unlock()
	unlock2, err := osFS{}.Lock(dir)
	if err != nil {
		t.Errorf("lock after unlock: %v", err)
	} else {
		unlock2()
	}
}
