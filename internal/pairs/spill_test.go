package pairs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/simhash"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

const spillLine = "pairs: band records beyond --memory "

// runSpill runs the default mode on in with --memory limit, and returns
// its output, its standard error without the spill line, and whether it
// spilled; it fails when a run is left in the temporary directory.
func runSpill(t *testing.T, opt Options, in string, limit int64) (out, stderr string, spilled bool) {
	t.Helper()
	opt.MemoryBytes, opt.TempDir = limit, t.TempDir()
	var o, e bytes.Buffer
	if err := Run(context.Background(), opt, []string{testutil.WriteFile(t, "bands.tsv", in)}, &o, &e); err != nil {
		t.Fatalf("--memory %d: %v (stderr %q)", limit, err, e.String())
	}
	if runs, _ := os.ReadDir(opt.TempDir); len(runs) != 0 {
		t.Fatalf("--memory %d: %d spilled run(s) left behind", limit, len(runs))
	}
	var kept []string
	for _, l := range strings.SplitAfter(e.String(), "\n") {
		if strings.HasPrefix(l, spillLine) {
			spilled = true
			continue
		}
		kept = append(kept, l)
	}
	return o.String(), strings.Join(kept, ""), spilled
}

// numberedBands returns band records of docs documents with ids as shingle
// --number-from writes them (12 digits), bands keys each, in random order:
// most keys of one document, some shared by many (buckets larger than a
// --max-bucket, whose ids come from several runs).
func numberedBands(rng *rand.Rand, docs, bands int) string {
	var lines []string
	for d := range docs {
		for b := range bands {
			h := rng.Uint64()
			if rng.IntN(4) == 0 {
				h = uint64(rng.IntN(12))
			}
			lines = append(lines, fmt.Sprintf("%04x%016x\t%012d\n", b, h, d))
		}
	}
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return "#neardup stage=shingle unit=char k=5 hash=tok64 seed=0 counts=no ids=number from=0\n" + strings.Join(lines, "")
}

// TestSpillSameOutput: at any --memory, from a few records a run to
// everything in memory, and any -j, the default mode writes the pairs and
// the report of the run that holds everything, capped buckets included
// (the representatives are the smallest ids across runs), with numbered
// ids, ids of every other kind, repeated (key, id) records and keys not of
// band's form; and says so when it spilled.
func TestSpillSameOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	inputs := map[string]string{
		"numbered": numberedBands(rng, 300, 6),
		"strings":  randomBands(rng, 3000),
	}
	for name, in := range inputs {
		for _, maxBucket := range []int{0, 3, 32} {
			opt := Options{MaxBucket: maxBucket, Common: stream.Common{NoHeader: name == "strings"}}
			want, wantErr, spilled := runSpill(t, opt, in, 1<<40)
			if spilled {
				t.Fatalf("%s: spilled without a limit", name)
			}
			if maxBucket == 3 && !strings.Contains(wantErr, "held more than --max-bucket 3") {
				t.Fatalf("%s: no bucket capped: %q", name, wantErr)
			}
			if bf := bruteForce(in[strings.Index(in, "\n")+1:], bucketCap{max: maxBucket, reps: maxBucket}); name == "numbered" && testutil.Records(want) != bf {
				t.Fatalf("%s, max-bucket %d: in memory differs from brute force", name, maxBucket)
			}
			for _, limit := range []int64{40000, 150000} {
				for _, j := range []int{1, 4} {
					opt.Jobs = j
					out, stderr, spilled := runSpill(t, opt, in, limit)
					if !spilled {
						t.Errorf("%s --memory %d: no spill reported", name, limit)
					}
					if out != want {
						t.Errorf("%s, max-bucket %d, --memory %d, -j %d: %d bytes of pairs, in memory %d", name, maxBucket, limit, j, len(out), len(want))
					}
					if stderr != wantErr {
						t.Errorf("%s, max-bucket %d, --memory %d, -j %d: stderr %q, in memory %q", name, maxBucket, limit, j, stderr, wantErr)
					}
				}
			}
		}
	}
}

// TestSpillPairsOverflow: records that fit but pairs that would not (one
// bucket of many ids, --max-bucket 0) are spilled as one run and paired
// through the buffer that spills, with the same output.
func TestSpillPairsOverflow(t *testing.T) {
	var b strings.Builder
	for d := range 400 {
		fmt.Fprintf(&b, "00000000000000000001\t%012d\n", d)
	}
	in := b.String()
	opt := Options{Common: stream.Common{NoHeader: true}}
	want, _, _ := runSpill(t, opt, in, 1<<40)
	if strings.Count(want, "\n") != 400*399/2 {
		t.Fatalf("%d pairs", strings.Count(want, "\n"))
	}
	// The records cost about 60 kB, the 79,800 pairs 720 kB.
	out, _, spilled := runSpill(t, opt, in, 300<<10)
	if !spilled || out != want {
		t.Errorf("spilled %v, same output %v", spilled, out == want)
	}
	var e bytes.Buffer
	err := Run(context.Background(), Options{Common: stream.Common{NoHeader: true}, MemoryBytes: 300 << 10, TempDir: t.TempDir()},
		[]string{testutil.WriteFile(t, "b.tsv", in)}, &bytes.Buffer{}, &e)
	if err != nil || !strings.Contains(e.String(), "spilled to 1 sorted run(s)") {
		t.Errorf("stderr %q, %v: want the records spilled as one run", e.String(), err)
	}
}

// TestSpillHamming: Hamming band records spill with their tables and
// fingerprints and give the pairs of the run in memory.
func TestSpillHamming(t *testing.T) {
	opts := &lsh.HammingOptions{K: 3}
	_, in := hammingGroup(t, opts, 7, 9, 60, 5, 100)
	for _, maxBucket := range []int{0, 5} {
		opt := Options{MaxBucket: maxBucket, Hamming: opts, Common: stream.Common{NoHeader: true}}
		want, wantErr, _ := runSpill(t, opt, string(in), 1<<40)
		if want == "" {
			t.Fatal("no pairs")
		}
		for _, limit := range []int64{40000, 100000} {
			out, stderr, spilled := runSpill(t, opt, string(in), limit)
			if !spilled || out != want || stderr != wantErr {
				t.Errorf("max-bucket %d, --memory %d: spilled %v, same pairs %v, stderr %q want %q", maxBucket, limit, spilled, out == want, stderr, wantErr)
			}
		}
	}
}

// TestHeldWithinLimit: what the records held cost at their peak (the
// arrays whole, the sorting scratch, an array and its copy while it grows)
// stays within the limit, and the limit is mostly used.
func TestHeldWithinLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, limit := range []int64{4000, 1 << 16, 1 << 20} {
		h := newHeld(false)
		peak, runs := int64(0), 0
		for i := range 100000 {
			id := fmt.Sprintf("doc%0*d", 1+rng.IntN(12), i/5)
			b := &bandRecord{key: fmt.Appendf(nil, "%04x%016x", i%5, rng.Uint64()), id: []byte(id)}
			oldE, oldI := cap(h.entries), cap(h.ids)
			if !h.room(len(id), limit) {
				peak = max(peak, h.size(len(h.entries), len(h.ids), h.idBytes))
				h.reset()
				runs++
				h.room(len(id), limit)
			}
			// While an array grows, the old one is held beside the new,
			// but nothing is sorted.
			arrays := entryBytes*int64(cap(h.entries)+cap(h.tmp)) + idSlot*int64(cap(h.ids)) + h.idBytes + int64(len(id)+perID)
			if cap(h.entries) != oldE {
				peak = max(peak, arrays+entryBytes*int64(oldE))
			}
			if cap(h.ids) != oldI {
				peak = max(peak, arrays+idSlot*int64(oldI))
			}
			if err := h.add(b, nil); err != nil {
				t.Fatal(err)
			}
			peak = max(peak, h.size(len(h.entries), len(h.ids), h.idBytes))
		}
		if peak > limit {
			t.Errorf("limit %d: held %d bytes", limit, peak)
		}
		if runs < 2 || peak < limit/2 {
			t.Errorf("limit %d: %d runs, at most %d bytes held", limit, runs, peak)
		}
	}
}

// TestHeldGrowth: far from the limit the records' array grows eight times
// at a time (few arrays made and copied); near it, at most twice, so that
// it takes no more of the limit than doubling did (an array past a
// quarter of it comes at most twice as large as the last).
func TestHeldGrowth(t *testing.T) {
	for _, limit := range []int64{1 << 30, 1 << 20, 600000} {
		h := newHeld(false)
		var caps []int
		for i := range 200000 {
			id := fmt.Sprintf("doc%d", i/5)
			if !h.room(len(id), limit) {
				break
			}
			if c := cap(h.entries); len(caps) == 0 || caps[len(caps)-1] != c {
				caps = append(caps, c)
			}
			b := &bandRecord{key: fmt.Appendf(nil, "%04x%016x", i%5, uint64(i)*0x9e3779b97f4a7c15), id: []byte(id)}
			if err := h.add(b, nil); err != nil {
				t.Fatal(err)
			}
		}
		for k := 1; k < len(caps); k++ {
			old, c := int64(caps[k-1]), int64(caps[k])
			switch {
			case limit == 1<<30 && c != 8*old:
				t.Errorf("limit %d: grew %d -> %d, want eight times (%v)", limit, old, c, caps)
			case c > 2*old && entryBytes*c > limit/4:
				t.Errorf("limit %d: grew %d -> %d, past a quarter of the limit at more than twice (%v)", limit, old, c, caps)
			}
		}
		if limit == 1<<30 && len(caps) != 4 {
			t.Errorf("limit %d: capacities %v, want 1024 to 524288", limit, caps)
		}
	}
}

// roundTrip writes records to a run of parts parts and reads them back,
// part after part.
func roundTrip(t testing.TB, hamming bool, width, parts int, recs []runRecord) []runRecord {
	dir := t.TempDir()
	rs := disk.Runs{Dir: dir, Pattern: "run-*", What: "test"}
	defer rs.Remove()
	var ends []int64
	err := rs.Spill(func(w *bufio.Writer) error {
		rw := newRunWriter(w, hamming, width, parts)
		for _, r := range recs {
			if err := writeRecord(rw, r.key, digitsValue(r.id), r.id, r.table, r.fp); err != nil {
				return err
			}
		}
		err := rw.close()
		ends = rw.ends
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ends) != parts {
		t.Fatalf("%d parts written, want %d", len(ends), parts)
	}
	var got []runRecord
	start := int64(0)
	for p, end := range ends {
		r, err := newRunReader(rs.Section(0, start, end-start), hamming)
		if err != nil {
			t.Fatal(err)
		}
		start = end
		for {
			ok, err := r.next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if parts > 1 && int(r.key.lo>>(64-bits.TrailingZeros(uint(parts)))) != p {
				t.Fatalf("key %x read in part %d of %d", r.key.lo, p, parts)
			}
			got = append(got, runRecord{r.key, string(r.id), r.table, r.fp})
		}
	}
	return got
}

type runRecord struct {
	key   key128
	id    string
	table uint32
	fp    simhash.Fingerprint
}

// FuzzRunRoundTrip: records written to a run read back the same, part
// after part, each record in its part, ids as numbers (all of one width of
// digits) or as bytes, with and without the Hamming fields.
func FuzzRunRoundTrip(f *testing.F) {
	f.Add(uint64(1), []byte("000000000012"), false)
	f.Add(uint64(7), []byte("a\\tb"), true)
	f.Add(uint64(0), []byte(""), false)
	f.Fuzz(func(t *testing.T, seed uint64, id []byte, hamming bool) {
		if len(id) > 1<<10 {
			return
		}
		rng := rand.New(rand.NewPCG(seed, seed))
		var recs []runRecord
		for i := range 1 + rng.IntN(200) {
			r := runRecord{key: key128{rng.Uint64N(4), rng.Uint64()}, id: string(id)}
			if i%3 == 1 {
				r.id = fmt.Sprint(string(id), i)
			}
			if hamming {
				r.table, r.fp = rng.Uint32(), simhash.Fingerprint{Hi: rng.Uint64(), Lo: rng.Uint64()}
			}
			recs = append(recs, r)
		}
		slices.SortFunc(recs, func(a, b runRecord) int {
			return compareEntries(entry{key: a.key}, entry{key: b.key})
		})
		ids := make([]string, len(recs))
		for i, r := range recs {
			ids[i] = r.id
		}
		width := numberWidth(ids)
		parts := 1 << (seed % 7)
		got := roundTrip(t, hamming, width, parts, recs)
		if !slices.Equal(got, recs) {
			t.Fatalf("width %d, %d parts: read back %v, wrote %v", width, parts, got, recs)
		}
	})
}

func TestNumberWidth(t *testing.T) {
	for _, c := range []struct {
		ids  []string
		want int
	}{
		{[]string{"000000000001", "123456789012"}, 12},
		{[]string{"000000000001", "12345678901"}, 0},
		{[]string{"00000000000a"}, 0},
		{[]string{"9999999999999999999"}, 19},
		{[]string{"99999999999999999999"}, 0},
		{[]string{""}, 0},
		{nil, 0},
	} {
		if got := numberWidth(c.ids); got != c.want {
			t.Errorf("numberWidth(%q) = %d, want %d", c.ids, got, c.want)
		}
	}
}

// growSlice keeps every value and the order, across the parts copyParts
// copies, and has the capacity asked for.
func TestGrowSlice(t *testing.T) {
	for _, n := range []int{0, 1, 1<<16 - 1, 1 << 16, 3<<16 + 5} {
		s := make([]uint64, n)
		for i := range s {
			s[i] = uint64(i)*0x9e3779b97f4a7c15 + 1
		}
		g := growSlice(s, n+7)
		if len(g) != n || cap(g) != n+7 || !slices.Equal(g, s) {
			t.Fatalf("%d values: got %d, capacity %d, equal %v", n, len(g), cap(g), slices.Equal(g, s))
		}
	}
}
