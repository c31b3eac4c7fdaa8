package cli

import (
	"bytes"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/testutil"
)

// run runs a stage in-process and returns its output, messages and status.
func run(t *testing.T, s Stage, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	return testutil.Command(t, func(args []string, stdout, stderr io.Writer) int { return Run(s, args, stdout, stderr) }, append([]string{s.Name}, args...)...)
}

// mustRun runs a stage and fails the test unless it succeeds.
func mustRun(t *testing.T, s Stage, args ...string) string {
	t.Helper()
	out, errs, code := run(t, s, args...)
	if code != 0 {
		t.Fatalf("%s %s: status %d: %s", s.Name, strings.Join(args, " "), code, errs)
	}
	return out
}

// records returns the non-header lines of a stage's output.
func records(out string) []string {
	var rs []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l != "" && !record.IsHeader([]byte(l)) {
			rs = append(rs, l)
		}
	}
	return rs
}

// nearDupCorpus writes documents: bases of 150 words from a vocabulary of
// 3000 (Zipf-like), each with copies that have a few words replaced.
func nearDupCorpus(t *testing.T, dir string) string {
	rng := rand.New(rand.NewPCG(11, 12))
	z := rand.NewZipf(rng, 1.1, 5, 2999)
	word := func() string { return "w" + strconv.FormatUint(z.Uint64(), 36) }
	var b strings.Builder
	for d := range 120 {
		words := make([]string, 150)
		for i := range words {
			words[i] = word()
		}
		fmt.Fprintf(&b, "doc%03d\t%s\n", d, strings.Join(words, " "))
		for c := range d % 4 {
			cp := slices.Clone(words)
			for range 1 + c*2 {
				cp[rng.IntN(len(cp))] = word()
			}
			fmt.Fprintf(&b, "doc%03d.%d\t%s\n", d, c, strings.Join(cp, " "))
		}
	}
	fmt.Fprintf(&b, "empty\t...\n")
	return testutil.WriteFileIn(t, dir, "docs.tsv", b.String())
}

// fingerprints reads simhash sketch records.
func fingerprints(t *testing.T, out string) (ids []string, fps []record.SimSketch) {
	t.Helper()
	for _, l := range records(out) {
		var s record.SimSketch
		if err := record.ParseSimSketch(&s, []byte(l)); err != nil {
			t.Fatal(err)
		}
		s.ID = bytes.Clone(s.ID)
		ids = append(ids, string(s.ID))
		fps = append(fps, s)
	}
	return ids, fps
}

// brutePairs lists "idA TAB idB" of the fingerprints within k bits, sorted.
func brutePairs(ids []string, fps []record.SimSketch, k int, withDistance bool) []string {
	var ps []string
	for i := range fps {
		for j := range fps {
			a, b := fps[i], fps[j]
			if ids[i] >= ids[j] || a.Size == 0 || b.Size == 0 {
				continue
			}
			d := bits.OnesCount64(a.Hi^b.Hi) + bits.OnesCount64(a.Lo^b.Lo)
			if d <= k {
				p := ids[i] + "\t" + ids[j]
				if withDistance {
					p += "\t" + strconv.Itoa(d)
				}
				ps = append(ps, p)
			}
		}
	}
	slices.Sort(ps)
	return ps
}

// TestHammingPipeline runs shingle | sketch --method simhash | band
// --hamming | pairs | verify --hamming, as a user types it, and checks the
// pairs against a brute-force scan of the fingerprints, for several
// schemes, f = 64 and 128, both pairs modes and any -j.
func TestHammingPipeline(t *testing.T) {
	dir := t.TempDir()
	docs := nearDupCorpus(t, dir)
	shingles := testutil.WriteFileIn(t, dir, "shingles.tsv", mustRun(t, Shingle(), "--unit", "word", "-k", "1", "--counts", docs))
	for _, f := range []string{"64", "128"} {
		fp1 := mustRun(t, Sketch(), "--method", "simhash", "-f", f, "-j", "1", shingles)
		fp := mustRun(t, Sketch(), "--method", "simhash", "-f", f, "-j", "3", shingles)
		if fp != fp1 {
			t.Fatalf("f=%s: sketch -j 1 and -j 3 differ", f)
		}
		fpFile := testutil.WriteFileIn(t, dir, "fp"+f+".tsv", fp)
		ids, fps := fingerprints(t, fp)
		for _, c := range []struct {
			k      int
			scheme []string
		}{
			{3, nil}, {3, []string{"--tables", "pigeonhole"}}, {4, []string{"--blocks", "9"}}, {1, nil}, {0, nil},
		} {
			name := fmt.Sprintf("f%s-k%d-%s", f, c.k, strings.Join(c.scheme, ""))
			args := append([]string{"--hamming", strconv.Itoa(c.k)}, c.scheme...)
			keys := mustRun(t, Band(), append(append(args, "-j", "2"), fpFile)...)
			if k1 := mustRun(t, Band(), append(append(args, "-j", "1"), fpFile)...); k1 != keys {
				t.Fatalf("%s: band -j 1 and -j 2 differ", name)
			}
			keysFile := testutil.WriteFileIn(t, dir, "keys.tsv", keys)
			want := brutePairs(ids, fps, c.k, false)
			got := records(mustRun(t, Pairs(), keysFile))
			if !slices.Equal(got, want) {
				t.Fatalf("%s: pairs found %d pairs, brute force %d:\n%v\n%v", name, len(got), len(want), got, want)
			}
			// Key-sorted input, streamed.
			sorted := records(keys)
			slices.Sort(sorted)
			sortedFile := testutil.WriteFileIn(t, dir, "sorted.tsv", strings.Join(sorted, "\n")+"\n")
			if got := records(mustRun(t, Pairs(), append([]string{"--sorted"}, append(args, sortedFile)...)...)); !slices.Equal(got, want) {
				t.Fatalf("%s: pairs --sorted found %d pairs, brute force %d", name, len(got), len(want))
			}
			candidates := testutil.WriteFileIn(t, dir, "cand.tsv", mustRun(t, Pairs(), keysFile))
			scored := records(mustRun(t, Verify(), "--hamming", strconv.Itoa(c.k), "--sketches", fpFile, candidates))
			if wantD := brutePairs(ids, fps, c.k, true); !slices.Equal(scored, wantD) {
				t.Fatalf("%s: verify --hamming gave %v, want %v", name, scored, wantD)
			}
			if c.k == 3 && f == "64" && c.scheme == nil && len(want) < 20 {
				t.Fatalf("only %d pairs within 3 bits: the corpus plants too few near-duplicates", len(want))
			}
		}
	}
}

func TestBandHammingHeaderAndLayout(t *testing.T) {
	dir := t.TempDir()
	fp := testutil.WriteFileIn(t, dir, "fp.tsv", "#neardup stage=sketch method=simhash f=64 weight=tf seed=0 bits=splitmix64\na\t3\t0123456789abcdef\n")
	out, errs, code := run(t, Band(), "--hamming", "3", "-v", fp)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, "#neardup stage=band scheme=hamming f=64 k=3 blocks=6 widths=11,11,11,11,10,10 tables=20\n") {
		t.Errorf("header missing:\n%s", out)
	}
	if n := len(records(out)); n != 20 {
		t.Errorf("%d keys, want 20", n)
	}
	if !strings.Contains(errs, "20 tables keyed on 31-33 bits") || !strings.Contains(errs, "table 19: key blocks 3 4 5") {
		t.Errorf("-v layout:\n%s", errs)
	}
	first := records(out)[0]
	if first != "00000123456780000000\ta\t0123456789abcdef" {
		t.Errorf("table 0 key record %q", first)
	}
	// MinHash signatures are refused, and so are flags of the wrong mode.
	mh := testutil.WriteFileIn(t, dir, "mh.tsv", "#neardup stage=sketch method=minhash n=2 seed=0 family=muladd64\na\t3\t0000000000000001 0000000000000002\n")
	if _, errs, code := run(t, Band(), "--hamming", "3", mh); code != 2 || !strings.Contains(errs, "simhash") {
		t.Errorf("minhash input: status %d, %s", code, errs)
	}
	if _, _, code := run(t, Band(), "--hamming", "3", "-b", "2", "-r", "2", fp); code != 2 {
		t.Error("--hamming with -b accepted")
	}
	if _, _, code := run(t, Band(), "--blocks", "5", fp); code != 2 {
		t.Error("--blocks without --hamming accepted")
	}
	if _, _, code := run(t, Band(), "--hamming", "3", "--tables", "pigeonhole", "--blocks", "6", fp); code != 2 {
		t.Error("pigeonhole with 6 blocks accepted")
	}
}

// TestPairsHammingWithoutHeader gives the scheme by flags.
func TestPairsHammingWithoutHeader(t *testing.T) {
	dir := t.TempDir()
	fp := testutil.WriteFileIn(t, dir, "fp.tsv", "a\t3\t0000000000000000\nb\t3\t0000000000000007\nc\t3\t000000000000000f\nd\t3\tffffffffffffffff\n")
	keys := testutil.WriteFileIn(t, dir, "keys.tsv", mustRun(t, Band(), "--hamming", "3", "--no-header", fp))
	got := records(mustRun(t, Pairs(), "--hamming", "3", keys))
	want := []string{"a\tb", "b\tc"}
	if !slices.Equal(got, want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
	if _, errs, code := run(t, Pairs(), "--hamming", "2", "--blocks", "5", testutil.WriteFileIn(t, dir, "k2.tsv", mustRun(t, Band(), "--hamming", "3", fp))); code == 0 {
		t.Errorf("flags contradicting the header accepted: %s", errs)
	}
}

// TestDocFreq checks that counting, counting with spills, and merging shard
// tables give one table, and that idf sketches name it.
func TestDocFreq(t *testing.T) {
	dir := t.TempDir()
	docs := nearDupCorpus(t, dir)
	sh := mustRun(t, Shingle(), "--unit", "word", "-k", "1", "--counts", docs)
	shingles := testutil.WriteFileIn(t, dir, "shingles.tsv", sh)
	whole := mustRun(t, DocFreq(), shingles)
	if one := mustRun(t, DocFreq(), "-j", "1", shingles); one != whole {
		t.Fatal("docfreq -j 1 and the default differ")
	}
	if !strings.Contains(whole, "#neardup stage=docfreq docs=301\n") {
		t.Fatalf("no docs=301 header:\n%.300s", whole)
	}
	if spilled := mustRun(t, DocFreq(), "--memory", "1K", "--temp-dir", dir, shingles); spilled != whole {
		t.Fatal("counting with spills to disk gave another table")
	}
	// Three shards counted apart, merged as files and as a sorted stream.
	lines := strings.SplitAfter(strings.TrimSuffix(sh, "\n"), "\n")
	header, body := lines[0], lines[1:]
	var parts []string
	var all []string
	for s := range 3 {
		shard := header
		for i := s; i < len(body); i += 3 {
			shard += body[i]
		}
		if !strings.HasSuffix(shard, "\n") {
			shard += "\n"
		}
		table := mustRun(t, DocFreq(), testutil.WriteFileIn(t, dir, fmt.Sprintf("shard%d.tsv", s), shard))
		parts = append(parts, testutil.WriteFileIn(t, dir, fmt.Sprintf("shard%d.df", s), table))
		all = append(all, strings.SplitAfter(strings.TrimSuffix(table, "\n"), "\n")...)
	}
	if merged := mustRun(t, DocFreq(), append([]string{"--merge"}, parts...)...); merged != whole {
		t.Fatalf("merging shard tables gave another table:\n%.300s", merged)
	}
	for i := range all {
		all[i] = strings.TrimSuffix(all[i], "\n")
	}
	slices.Sort(all)
	stream := testutil.WriteFileIn(t, dir, "sorted.df", strings.Join(all, "\n")+"\n")
	if merged := mustRun(t, DocFreq(), "--merge", stream); merged != whole {
		t.Fatal("merging a sorted stream gave another table")
	}
	// Unsorted input to --merge is refused with its place.
	bad := testutil.WriteFileIn(t, dir, "bad.df", "#neardup stage=docfreq docs=2\n00000000000000ff\t1\n0000000000000001\t1\n")
	if _, errs, code := run(t, DocFreq(), "--merge", bad); code != 2 || !strings.Contains(errs, "bad.df:3:") {
		t.Errorf("unsorted table: status %d, %s", code, errs)
	}
	// idf sketches carry the table's identity; tables of other shingles
	// are refused.
	df := testutil.WriteFileIn(t, dir, "df.tsv", whole)
	out := mustRun(t, Sketch(), "--method", "simhash", "--weight", "idf", "--df", df, shingles)
	if !strings.Contains(out, " weight=idf ") || !strings.Contains(out, " df-docs=301") || !strings.Contains(out, " df=") {
		t.Errorf("idf header:\n%.400s", out)
	}
	if tf := mustRun(t, Sketch(), "--method", "simhash", shingles); tf == out {
		t.Error("idf and tf weights gave the same fingerprints")
	}
	other := testutil.WriteFileIn(t, dir, "other.tsv", mustRun(t, Shingle(), "--unit", "word", "-k", "2", "--counts", docs))
	if _, errs, code := run(t, Sketch(), "--method", "simhash", "--weight", "idf", "--df", df, other); code != 2 || !strings.Contains(errs, "k=2") || !strings.Contains(errs, "k=1") {
		t.Errorf("shingles of another k: status %d, %s", code, errs)
	}
	if _, _, code := run(t, Sketch(), "--method", "simhash", "--weight", "idf", shingles); code != 2 {
		t.Error("idf without --df accepted")
	}
}

// TestIndexCommands runs index build, query (online and batch), add and
// stats as a user types them, against a brute-force scan.
func TestIndexCommands(t *testing.T) {
	dir := t.TempDir()
	docs := nearDupCorpus(t, dir)
	shingles := testutil.WriteFileIn(t, dir, "shingles.tsv", mustRun(t, Shingle(), "--unit", "word", "-k", "1", "--counts", docs))
	fp := mustRun(t, Sketch(), "--method", "simhash", shingles)
	ids, fps := fingerprints(t, fp)
	// The first half is built, the second added.
	lines := records(fp)
	hdr := strings.Join(strings.SplitAfterN(fp, "\n", 3)[:2], "")
	half := len(lines) / 2
	first := testutil.WriteFileIn(t, dir, "first.tsv", hdr+strings.Join(lines[:half], "\n")+"\n")
	second := testutil.WriteFileIn(t, dir, "second.tsv", hdr+strings.Join(lines[half:], "\n")+"\n")
	all := testutil.WriteFileIn(t, dir, "all.tsv", fp)
	idx := filepath.Join(dir, "x.idx")
	mustRun(t, Index(), "build", "-k", "3", "-o", idx, first)
	if _, errs, code := run(t, Index(), "add", idx, second); code != 0 || !strings.Contains(errs, "1 document(s) without shingles") {
		t.Fatalf("add: %d %s", code, errs)
	}
	online := mustRun(t, Index(), "query", "-j", "3", idx, all)
	if one := mustRun(t, Index(), "query", "-j", "1", idx, all); one != online {
		t.Fatal("query -j 1 and -j 3 differ")
	}
	if batch := mustRun(t, Index(), "query", "--batch", "-j", "2", idx, all); batch != online {
		t.Fatal("query --batch and online differ")
	}
	// Every stored fingerprint finds itself and its neighbours.
	var want []string
	for i := range fps {
		if fps[i].Size == 0 {
			continue
		}
		type hit struct {
			d  int
			id string
		}
		var hits []hit
		for j := range fps {
			if d := bits.OnesCount64(fps[i].Hi ^ fps[j].Hi); d <= 3 && fps[j].Size > 0 {
				hits = append(hits, hit{d, ids[j]})
			}
		}
		slices.SortFunc(hits, func(a, b hit) int {
			if a.d != b.d {
				return a.d - b.d
			}
			return strings.Compare(a.id, b.id)
		})
		for _, h := range hits {
			want = append(want, fmt.Sprintf("%s\t%s\t%d", ids[i], h.id, h.d))
		}
	}
	if got := records(online); !slices.Equal(got, want) {
		t.Fatalf("query gave %d lines, brute force %d", len(got), len(want))
	}
	if !strings.Contains(online, "#neardup stage=index f=64 k=3 ") {
		t.Errorf("query header:\n%.400s", online)
	}
	// Bare fingerprints are their own ids; a smaller distance narrows.
	bare := testutil.WriteFileIn(t, dir, "bare.txt", fmt.Sprintf("%016x\n", fps[0].Hi))
	got := records(mustRun(t, Index(), "query", "-d", "0", idx, bare))
	if len(got) == 0 || !strings.HasPrefix(got[0], fmt.Sprintf("%016x\t%s\t0", fps[0].Hi, ids[0])) {
		t.Errorf("bare query: %v", got)
	}
	stats := mustRun(t, Index(), "stats", "--check", idx)
	if !strings.Contains(stats, fmt.Sprintf("%d records", len(lines)-1)) || !strings.Contains(stats, "bytes/fingerprint (raw 8)") {
		t.Errorf("stats:\n%s", stats)
	}
	// Fingerprints made with another seed are refused.
	other := testutil.WriteFileIn(t, dir, "other.tsv", mustRun(t, Sketch(), "--method", "simhash", "--seed", "5", shingles))
	if _, errs, code := run(t, Index(), "query", idx, other); code != 2 || !strings.Contains(errs, "seed=5") {
		t.Errorf("query of another seed: status %d, %s", code, errs)
	}
	if _, errs, code := run(t, Index(), "add", idx, other); code == 0 || !strings.Contains(errs, "seed=5") {
		t.Errorf("add of another seed: status %d, %s", code, errs)
	}
	// A damaged index is refused with a message.
	b, _ := os.ReadFile(idx)
	b[len(b)/2] ^= 0xff
	bad := testutil.WriteFileIn(t, dir, "bad.idx", string(b))
	if _, errs, code := run(t, Index(), "stats", "--check", bad); code != 2 || !strings.Contains(errs, "damaged") {
		t.Errorf("damaged index: status %d, %s", code, errs)
	}
	if _, errs, code := run(t, Index(), "build", first); code != 2 {
		t.Errorf("build without -o: status %d, %s", code, errs)
	}
	if _, errs, code := run(t, Index(), "query", "--distance", "4", idx, all); code == 0 || !strings.Contains(errs, "up to 3") {
		t.Errorf("query beyond k: status %d, %s", code, errs)
	}
}
