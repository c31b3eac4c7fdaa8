package pairs

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/bandindex"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/testutil"
)

// containCorpus is a corpus of shingle sets with planted containment: pairs
// (A, B) where B holds a share of A's shingles near a threshold, at size
// ratios |B|/|A| from 1 to 30, and shingles drawn from a skewed pool so that
// documents share shingles by chance too and the document frequencies vary.
type containCorpus struct {
	ids  []string
	sets [][]uint64
}

func newContainCorpus(rng *rand.Rand, pairs int, threshold float64) *containCorpus {
	c := &containCorpus{}
	const pool = 20000
	zipf := rand.NewZipf(rng, 1.1, 2, pool-1)
	fresh := uint64(1 << 40)
	draw := func(n int, have map[uint64]bool) []uint64 {
		var s []uint64
		for len(s) < n {
			var h uint64
			if rng.IntN(3) == 0 {
				h = zipf.Uint64()*0x9e3779b97f4a7c15 | 1 // shared by chance
			} else {
				fresh++
				h = fresh * 0xbf58476d1ce4e5b9
			}
			if !have[h] {
				have[h] = true
				s = append(s, h)
			}
		}
		return s
	}
	ratios := []float64{1, 1.2, 1.5, 2, 3, 5, 10, 20, 30}
	for i := range pairs {
		na := 10 + rng.IntN(120)
		ratio := ratios[i%len(ratios)]
		nb := max(int(ratio*float64(na)), na)
		// the containment of A in B: around the threshold, above and below
		cont := threshold + (rng.Float64()-0.5)*0.2
		m := min(max(int(cont*float64(na)+0.5), 1), na)
		have := map[uint64]bool{}
		a := draw(na, have)
		b := append(slices.Clone(a[:m]), draw(nb-m, have)...)
		c.add(fmt.Sprintf("a%04d", i), a)
		c.add(fmt.Sprintf("b%04d", i), b)
	}
	return c
}

func (c *containCorpus) add(id string, s []uint64) {
	s = slices.Clone(s)
	slices.Sort(s)
	c.ids = append(c.ids, id)
	c.sets = append(c.sets, slices.Compact(s))
}

// shingles returns the corpus as shingle records (of the documents from,
// to).
func (c *containCorpus) shingles(from, to int) string {
	var b []byte
	for i := from; i < to; i++ {
		b = record.AppendShingles(b, []byte(c.ids[i]), c.sets[i])
	}
	return string(b)
}

// docfreq returns the document-frequency table of the documents from, to.
func (c *containCorpus) docfreq(from, to int) string {
	df := map[uint64]uint64{}
	for _, s := range c.sets[from:to] {
		for _, h := range s {
			df[h]++
		}
	}
	b := []byte(fmt.Sprintf("#neardup stage=docfreq docs=%d\n", to-from))
	for _, h := range slices.Sorted(maps.Keys(df)) {
		b = record.AppendDocFreq(b, h, df[h])
	}
	return string(b)
}

// truth returns the pairs (a < b, by id) of documents i in is and j in js
// with c(i,j) or c(j,i) at least threshold, and how many pairs were looked at.
func (c *containCorpus) truth(is, js []int, threshold float64) map[[2]string]bool {
	out := map[[2]string]bool{}
	for _, i := range is {
		for _, j := range js {
			if i == j || (slices.Contains(is, j) && slices.Contains(js, i) && j < i) {
				continue
			}
			inter := 0
			x, y := c.sets[i], c.sets[j]
			for p, q := 0, 0; p < len(x) && q < len(y); {
				switch {
				case x[p] < y[q]:
					p++
				case x[p] > y[q]:
					q++
				default:
					inter++
					p++
					q++
				}
			}
			if float64(inter)/float64(len(x)) >= threshold || float64(inter)/float64(len(y)) >= threshold {
				a, b := c.ids[i], c.ids[j]
				if b < a {
					a, b = b, a
				}
				out[[2]string{a, b}] = true
			}
		}
	}
	return out
}

func parsePairs(t *testing.T, out string) map[[2]string]bool {
	t.Helper()
	got := map[[2]string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, b, _ := strings.Cut(line, "\t")
		got[[2]string{a, b}] = true
	}
	return got
}

// bandContain runs band --containment over shingle records.
func bandContain(t *testing.T, co band.ContainmentOptions, shingles string) string {
	t.Helper()
	return bandContainJobs(t, co, shingles, 0)
}

// bandContainJobs runs band --containment -j jobs over shingle records.
func bandContainJobs(t *testing.T, co band.ContainmentOptions, shingles string, jobs int) string {
	t.Helper()
	var out, errb bytes.Buffer
	opt := band.Options{Containment: &co}
	opt.Jobs = jobs
	if err := band.Run(context.Background(), opt, []string{testutil.WriteFile(t, "shingles.tsv", shingles)}, &out, &errb); err != nil {
		t.Fatalf("band: %v (%s)", err, errb.String())
	}
	return out.String()
}

// TestContainmentComplete is the statistical test of containment keys
// against their theory: the prefix filter is exact, so every pair with
// containment at least T, at every size ratio, must be a candidate, in
// memory and --sorted alike. The candidates below T have no closed form
// (they depend on the shingles' frequencies); their number is logged.
func TestContainmentComplete(t *testing.T) {
	trials := 4
	if testing.Short() {
		trials = 1
	}
	for _, threshold := range []float64{0.5, 0.8, 0.9, 0.95, 1} {
		for trial := range trials {
			rng := rand.New(rand.NewPCG(uint64(trial), uint64(threshold*100)))
			c := newContainCorpus(rng, 150, threshold)
			n := len(c.ids)
			co := band.ContainmentOptions{Threshold: threshold, DF: testutil.WriteFile(t, "df.tsv", c.docfreq(0, n)), Mode: record.ContainCorpus}
			keys := bandContain(t, co, c.shingles(0, n))
			memory, sorted := modes(t, Options{}, keys)
			if memory != sorted {
				t.Fatalf("T=%g: memory and --sorted differ", threshold)
			}
			got := parsePairs(t, memory)
			all := make([]int, n)
			for i := range all {
				all[i] = i
			}
			want := c.truth(all, all, threshold)
			missed := 0
			for p := range want {
				if !got[p] {
					missed++
					if missed < 5 {
						t.Errorf("T=%g trial %d: pair %s %s (containment ≥ T) is not a candidate", threshold, trial, p[0], p[1])
					}
				}
			}
			if missed > 0 {
				t.Fatalf("T=%g trial %d: %d of %d pairs with containment ≥ T missed", threshold, trial, missed, len(want))
			}
			if len(want) < 50 {
				t.Fatalf("T=%g: only %d true pairs planted", threshold, len(want))
			}
			t.Logf("T=%g trial %d: %d pairs with c ≥ T, all candidates; %d candidates in all (%.2f per true pair)", threshold, trial, len(want), len(got), float64(len(got))/float64(len(want)))
		}
	}
}

// records returns the lines of out that are not headers.
func records(out string) []string {
	var r []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			r = append(r, l)
		}
	}
	return r
}

// TestContainmentProbedExact checks that corpus mode, which writes only the
// index entries some probe can pair (band/probe.go), makes exactly the
// candidates of every index entry: those of stored mode, which writes every
// shingle of df ≥ 2 (and the prefix's shingles of df 1, which no other
// document holds). Its keys are the same for any -j.
func TestContainmentProbedExact(t *testing.T) {
	for _, threshold := range []float64{0.5, 0.9, 1} {
		rng := rand.New(rand.NewPCG(11, uint64(threshold*100)))
		c := newContainCorpus(rng, 150, threshold)
		n := len(c.ids)
		shingles := c.shingles(0, n)
		co := band.ContainmentOptions{Threshold: threshold, DF: testutil.WriteFile(t, "df.tsv", c.docfreq(0, n)), Mode: record.ContainCorpus}
		probed := bandContainJobs(t, co, shingles, 1)
		if other := bandContainJobs(t, co, shingles, 4); other != probed {
			t.Fatalf("T=%g: band --containment -j1 and -j4 differ", threshold)
		}
		co.Mode = record.ContainStored
		all := bandContain(t, co, shingles)
		if len(records(probed)) >= len(records(all)) {
			t.Fatalf("T=%g: corpus mode wrote %d records, every entry is %d", threshold, len(records(probed)), len(records(all)))
		}
		got, stderr, err := runStage(t, Options{}, testutil.WriteFile(t, "probed.tsv", probed))
		if err != nil {
			t.Fatalf("pairs: %v (%s)", err, stderr)
		}
		want, stderr, err := runStage(t, Options{}, testutil.WriteFile(t, "all.tsv", all))
		if err != nil {
			t.Fatalf("pairs: %v (%s)", err, stderr)
		}
		if g, w := records(got), records(want); !slices.Equal(g, w) {
			t.Fatalf("T=%g: %d candidates from the probed entries, %d from all", threshold, len(g), len(w))
		}
		t.Logf("T=%g: %d records written of %d, the same %d candidates", threshold, len(records(probed)), len(records(all)), len(records(got)))
	}
}

// TestContainmentQuery checks query mode: a corpus banded --containment-mode
// stored into a band index, and queries the table does not count banded
// --containment-mode query and paired --against it: every pair of a query
// and a stored document with containment at least T either way is a
// candidate.
func TestContainmentQuery(t *testing.T) {
	for _, threshold := range []float64{0.6, 0.9} {
		rng := rand.New(rand.NewPCG(7, uint64(threshold*100)))
		c := newContainCorpus(rng, 120, threshold)
		// Reorder: the stored documents first, then the queries: the A of
		// even pairs is a query (contained in a stored B), the B of odd
		// pairs (holding a stored A).
		var stored, queries []int
		for i := 0; i < len(c.ids); i += 2 {
			if i/2%2 == 0 {
				stored, queries = append(stored, i+1), append(queries, i)
			} else {
				stored, queries = append(stored, i), append(queries, i+1)
			}
		}
		order := append(slices.Clone(stored), queries...)
		r := &containCorpus{}
		for _, i := range order {
			r.add(c.ids[i], c.sets[i])
		}
		ns := len(stored)
		df := testutil.WriteFile(t, "df.tsv", r.docfreq(0, ns))
		keys := bandContain(t, band.ContainmentOptions{Threshold: threshold, DF: df, Mode: record.ContainStored}, r.shingles(0, ns))
		dir := t.TempDir() + "/idx"
		var errb bytes.Buffer
		if err := bandindex.RunBuild(context.Background(), bandindex.Options{}, dir, []string{testutil.WriteFile(t, "stored.tsv", keys)}, &errb); err != nil {
			t.Fatalf("bandindex build: %v (%s)", err, errb.String())
		}
		qkeys := bandContain(t, band.ContainmentOptions{Threshold: threshold, DF: df, Mode: record.ContainQuery}, r.shingles(ns, len(r.ids)))
		out, stderr, err := runStage(t, Options{Against: dir}, testutil.WriteFile(t, "q.tsv", qkeys))
		if err != nil {
			t.Fatalf("pairs --against: %v (%s)", err, stderr)
		}
		got := parsePairs(t, out)
		var is, js []int
		for i := range ns {
			js = append(js, i)
		}
		for i := ns; i < len(r.ids); i++ {
			is = append(is, i)
		}
		want := r.truth(is, js, threshold)
		missed := 0
		for p := range want {
			if !got[p] {
				missed++
				t.Errorf("T=%g: query pair %s %s (containment ≥ T) is not a candidate", threshold, p[0], p[1])
			}
		}
		if missed > 0 || len(want) < 50 {
			t.Fatalf("T=%g: %d of %d query pairs missed", threshold, missed, len(want))
		}
		t.Logf("T=%g: %d query pairs with c ≥ T, all candidates; %d candidates", threshold, len(want), len(got))
	}
}

// TestContainmentRepeatedRecords checks that a (key, id) given twice, once
// as a probe and once not, probes in memory as in --sorted, that the
// repeats are counted, and that an id with two sizes is refused with its
// place.
func TestContainmentRepeatedRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	c := newContainCorpus(rng, 60, 0.8)
	n := len(c.ids)
	co := band.ContainmentOptions{Threshold: 0.8, DF: testutil.WriteFile(t, "df.tsv", c.docfreq(0, n)), Mode: record.ContainCorpus}
	keys := bandContain(t, co, c.shingles(0, n))
	var b strings.Builder
	repeats := 0
	for _, l := range strings.SplitAfter(keys, "\n") {
		if strings.HasPrefix(l, "#") || l == "" || rng.IntN(2) != 0 {
			b.WriteString(l)
			continue
		}
		// The repeat of a probe says it is an index entry, and it comes
		// first half the time.
		repeats++
		r := strings.Replace(l, "\tp\t", "\ti\t", 1)
		if rng.IntN(2) == 0 {
			l, r = r, l
		}
		b.WriteString(l)
		b.WriteString(r)
	}
	memory, sorted := modes(t, Options{}, b.String())
	if memory != sorted {
		t.Fatalf("memory and --sorted differ on repeated records")
	}
	want, _ := modes(t, Options{}, keys)
	if memory != want {
		t.Fatalf("repeated records change the pairs")
	}
	_, stderr, err := runStage(t, Options{}, testutil.WriteFile(t, "rep.tsv", b.String()))
	if err != nil || !strings.Contains(stderr, fmt.Sprintf("%d repeated (key, id) record(s) ignored", repeats)) {
		t.Fatalf("err %v, stderr %q: want %d repeats counted", err, stderr, repeats)
	}
	// One record of a document with another size.
	lines := strings.SplitAfter(keys, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "#") && l != "" {
			f := strings.Split(strings.TrimSuffix(l, "\n"), "\t")
			lines = slices.Insert(lines, i+1, f[0][:15]+"0\t"+f[1]+"\ti\t99999\n")
			_, stderr, err := runStage(t, Options{}, testutil.WriteFile(t, "sizes.tsv", strings.Join(lines, "")))
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("sizes.tsv:%d: id %s comes with sizes", i+2, f[1])) {
				t.Fatalf("err %v (stderr %q): want the second size refused at line %d", err, stderr, i+2)
			}
			break
		}
	}
}

// chunkedContainRecords returns containment band records of docs documents,
// several megabytes (several chunks of the reader): each document's
// records one after another, on keys of a pool small enough that buckets
// hold many documents, and some documents again at the end with more
// records, so that an id comes back in a later chunk.
func chunkedContainRecords(rng *rand.Rand, docs int) (text string, lines []string) {
	lines = append(lines, "#neardup stage=band scheme=containment containment=0.9 order=df df=0000000000000000 df-docs=1 mode=corpus\n")
	sizes := make([]int, docs)
	keys := func(d, n int) {
		for range n {
			role := "i"
			if rng.IntN(3) == 0 {
				role = "p"
			}
			lines = append(lines, fmt.Sprintf("%016x\td%05d\t%s\t%d\n", uint64(rng.IntN(3000))*0x9e3779b97f4a7c15, d, role, sizes[d]))
		}
	}
	for d := range docs {
		sizes[d] = 20 + rng.IntN(30)
		keys(d, 5+rng.IntN(40))
	}
	for range docs / 10 {
		keys(rng.IntN(docs), 3)
	}
	return strings.Join(lines, ""), lines
}

// TestContainmentChunks checks the in-memory pairing of containment
// records read on several workers against --sorted, which reads them one
// after another, for any -j, over an input of many chunks; and that an id
// that comes with a second size is refused at the first record that shows
// it, whether the first size was in its chunk or an earlier one.
func TestContainmentChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	text, lines := chunkedContainRecords(rng, 5000)
	if len(text) < 3<<20 {
		t.Fatalf("the records are %d bytes: want several chunks", len(text))
	}
	want, sorted := modes(t, Options{}, text)
	if want != sorted {
		t.Fatalf("memory and --sorted differ")
	}
	for _, jobs := range []int{1, 5} {
		opt := Options{}
		opt.Jobs = jobs
		if got, stderr, err := runStage(t, opt, testutil.WriteFile(t, "keys.tsv", text)); err != nil || got != want {
			t.Fatalf("-j %d: other pairs than -j 0 (err %v, stderr %q)", jobs, err, stderr)
		}
	}
	if n := len(records(want)); n < 10000 {
		t.Fatalf("only %d pairs", n)
	}
	// A record of a document with another size, in the last chunk: its
	// first size was in the first.
	last := len(lines) - 1
	f := strings.Split(strings.TrimSuffix(lines[1], "\n"), "\t")
	wrong := func(at int, size string) []string {
		l := slices.Clone(lines)
		l[at] = "00000000000000aa\t" + f[1] + "\ti\t" + size + "\n"
		return l
	}
	run := func(l []string, skipBad bool) error {
		opt := Options{}
		opt.SkipBad = skipBad
		_, _, err := runStage(t, opt, testutil.WriteFile(t, "sizes.tsv", strings.Join(l, "")))
		return err
	}
	refused := func(err error, line int) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("sizes.tsv:%d: id %s comes with sizes %s and 999", line+1, f[1], f[3])) {
			t.Fatalf("err %v: want the size 999 of %s refused at line %d", err, f[1], line+1)
		}
	}
	l := wrong(last-1, "999")
	refused(run(l, false), last-1)
	// Then another record of it with the right size: the first that
	// differs is the one refused.
	l[last] = "00000000000000ab\t" + f[1] + "\ti\t" + f[3] + "\n"
	refused(run(l, false), last-1)
	// The other way around: its first record in the chunk has the right
	// size, the next another.
	l = wrong(last, "999")
	l[last-1] = "00000000000000ab\t" + f[1] + "\ti\t" + f[3] + "\n"
	refused(run(l, false), last)
	// A bad line before a conflict is skipped under --skip-bad; the
	// conflict is not.
	l = wrong(last, "999")
	l[last-1] = "bad\n"
	if err := run(l, false); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("sizes.tsv:%d:", last)) {
		t.Fatalf("err %v: want the bad line %d refused", err, last)
	}
	refused(run(l, true), last)
}
