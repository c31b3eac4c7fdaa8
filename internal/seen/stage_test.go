package seen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/testutil"
)

// corpus returns a TSV corpus of n documents of a few paragraphs each:
// some are boilerplate from a small pool (some of those with words
// changed, so that their fractions fall between 0 and 1), the rest new
// text; some documents repeat a paragraph of their own.
func corpus(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	word := func() string { return fmt.Sprintf("w%d", rng.IntN(5000)) }
	para := func(words int) []string {
		p := make([]string, words)
		for i := range p {
			p[i] = word()
		}
		return p
	}
	pool := make([][]string, 40)
	for i := range pool {
		pool[i] = para(15 + rng.IntN(30))
	}
	var b strings.Builder
	for d := range n {
		var ps []string
		for range 1 + rng.IntN(6) {
			var p []string
			switch x := rng.Float64(); {
			case x < 0.3:
				p = slices.Clone(pool[rng.IntN(len(pool))])
			case x < 0.4:
				p = slices.Clone(pool[rng.IntN(len(pool))])
				for range 1 + rng.IntN(3) {
					p[rng.IntN(len(p))] = word()
				}
			case x < 0.5:
				p = para(1 + rng.IntN(12)) // short
			default:
				p = para(13 + rng.IntN(60))
			}
			ps = append(ps, strings.Join(p, " "))
		}
		if rng.IntN(10) == 0 {
			ps = append(ps, ps[0])
		}
		fmt.Fprintf(&b, "doc%d\t%s\n", d, strings.Join(ps, `\n\n`))
	}
	return b.String()
}

// records returns the lines of an output that are not headers.
func records(out string) []string {
	var rs []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if l != "" && !record.IsHeader([]byte(l)) {
			rs = append(rs, l)
		}
	}
	return rs
}

func run(t *testing.T, opt Options, inputs ...string) (string, string) {
	t.Helper()
	stdout, stderr, err := testutil.Run(t, Run, opt, inputs...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	return stdout, stderr
}

func defaults() Options {
	return Options{K: DefaultK, Norm: shingle.DefaultNormalization(shingle.Word), Threshold: DefaultThreshold}
}

// The output is the same for any number of workers, over several chunks.
func TestRunJobs(t *testing.T) {
	in := testutil.WriteFile(t, "docs.tsv", corpus(1, 12000))
	if fi, _ := os.Stat(in); fi.Size() < 3<<20 {
		t.Fatalf("the corpus is %d bytes: want several chunks", fi.Size())
	}
	var first string
	for _, jobs := range []int{1, 4} {
		opt := defaults()
		opt.Expected = 2_000_000
		opt.Jobs = jobs
		out, stderr := run(t, opt, in)
		if jobs == 1 {
			first = out
			t.Logf("%d records\n%s", len(records(out)), stderr)
			if len(records(out)) < 1000 {
				t.Fatalf("only %d paragraphs seen", len(records(out)))
			}
			continue
		}
		if out != first {
			t.Fatalf("-j %d output differs from -j 1", jobs)
		}
	}
}

// exact is a set of keys held exactly: the reference the filter is
// checked against.
type exact map[uint64]struct{}

func (e exact) Has(h uint64) bool { _, ok := e[h]; return ok }
func (e exact) Add(h uint64) bool {
	_, ok := e[h]
	e[h] = struct{}{}
	return !ok
}

func (e exact) CountHas(keys []uint64) int { return countHas(e, keys) }
func (e exact) AddAll(keys []uint64) int   { return addAll(e, keys) }

// oneByOne is a set that looks up and adds a key at a time.
type oneByOne interface {
	Has(h uint64) bool
	Add(h uint64) bool
}

func countHas(s oneByOne, keys []uint64) int {
	n := 0
	for _, h := range keys {
		if s.Has(h) {
			n++
		}
	}
	return n
}

func addAll(s oneByOne, keys []uint64) int {
	n := 0
	for _, h := range keys {
		if s.Add(h) {
			n++
		}
	}
	return n
}

// checked is the filter beside an exact set: it finds no false negative
// (the test fails at once), counts the false positives and sums their
// chances, by the theory, at the time of each lookup of an absent key.
type checked struct {
	t        *testing.T
	f        *Filter
	e        exact
	fp       int
	mean, vr float64
	p        float64 // the rate at next-1 keys or fewer
	next     int
}

func (c *checked) Has(h uint64) bool {
	in, got := c.e.Has(h), c.f.Has(h)
	if in && !got {
		c.t.Fatalf("false negative: %016x was added", h)
	}
	if !in {
		// The rate at the keys held, computed again when they have grown
		// by a thousandth.
		if n := len(c.e); n >= c.next {
			c.p, c.next = TheoreticalRate(c.f.bits, c.f.hashes, float64(n)), n+n/1000+1
		}
		p := c.p
		c.mean += p
		c.vr += p * (1 - p)
		if got {
			c.fp++
		}
	}
	return got
}

func (c *checked) CountHas(keys []uint64) int {
	n := countHas(c, keys)
	if got := c.f.CountHas(keys); got != n {
		c.t.Fatalf("CountHas finds %d keys, Has %d", got, n)
	}
	return n
}

func (c *checked) AddAll(keys []uint64) int { return addAll(c, keys) }

func (c *checked) Add(h uint64) bool {
	c.e.Add(h)
	return c.f.Add(h)
}

// seenOf parses the records of an output into part id → seen n-grams.
func seenOf(t *testing.T, out string) map[string]record.Seen {
	m := map[string]record.Seen{}
	for _, l := range records(out) {
		var s record.Seen
		if err := record.ParseSeen(&s, []byte(strings.TrimSuffix(l, "\n"))); err != nil {
			t.Fatal(err)
		}
		s.Part = slices.Clone(s.Part)
		m[string(s.Part)] = s
	}
	return m
}

// Exact truth: a run with an exact set of n-gram hashes (a Go map) instead
// of the filter gives the paragraphs truly seen. With the filter, every one
// of them is found with the same counts or more (no false negatives), the
// n-gram false positives are as many as the theory predicts, within their
// spread, and a paragraph is found more than the truth says only by as
// many n-grams as were false positives in it.
func TestAgainstExact(t *testing.T) {
	in := testutil.WriteFile(t, "docs.tsv", corpus(2, 3000))
	opt := defaults()
	opt.Expected = 200_000
	opt.Jobs = 2
	againstExact(t, opt, []float64{1e-4, 0.05}, in)
}

// The same on real text: Go's net and crypto packages, the paragraphs of
// 13 tokens or more, at the default rate.
func TestAgainstExactGoSource(t *testing.T) {
	testutil.Slow(t)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no Go tree: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	opt := defaults()
	opt.Format = "files"
	opt.Expected = 3_000_000
	againstExact(t, opt, []float64{DefaultRate}, filepath.Join(root, "net"), filepath.Join(root, "crypto"))
}

// againstExact runs the stage on inputs with an exact set, then with a
// filter at each rate beside it, and checks what the filter found against
// the truth.
func againstExact(t *testing.T, opt Options, rates []float64, inputs ...string) {
	t.Helper()
	opt.keys = exact{}
	want, _ := run(t, opt, inputs...)
	truth := seenOf(t, want)
	t.Logf("%d paragraphs truly seen", len(truth))
	for _, rate := range rates {
		opt.Rate = rate
		st, err := opt.open(new(strings.Builder))
		if err != nil {
			t.Fatal(err)
		}
		c := &checked{t: t, f: st.Filter, e: exact{}}
		opt.keys = c
		got, _ := run(t, opt, inputs...)
		found := seenOf(t, got)
		sd := math.Sqrt(c.vr)
		t.Logf("--fp %g: %d paragraphs seen; %d n-gram false positives, theory %.1f ± %.1f; %d distinct n-grams", rate, len(found), c.fp, c.mean, sd, len(c.e))
		if math.Abs(float64(c.fp)-c.mean) > 4*sd+2 {
			t.Errorf("--fp %g: %d false positives, theory %.1f ± %.1f (4 sd)", rate, c.fp, c.mean, 4*sd)
		}
		extra := 0
		for id, s := range truth {
			g, ok := found[id]
			if !ok || g.Seen < s.Seen || g.Total != s.Total {
				t.Fatalf("--fp %g: %s truly seen %d/%d, found %+v", rate, id, s.Seen, s.Total, g)
			}
			extra += g.Seen - s.Seen
		}
		for id, g := range found {
			if _, ok := truth[id]; !ok {
				extra += max(1, g.Seen-int(math.Ceil(DefaultThreshold*float64(g.Total)))+1)
			}
		}
		if extra > c.fp {
			t.Errorf("--fp %g: the paragraphs found have %d n-grams more than the truth, the false positives were %d", rate, extra, c.fp)
		}
		if rate == 1e-4 && len(found)-len(truth) > 2 {
			t.Errorf("--fp %g: %d paragraphs more than the truth", rate, len(found)-len(truth))
		}
	}
}

// --by window: windows of 20 tokens every 10, the same for any number of
// workers; each record names a window of its document (the part ids parse,
// the counts are those of the window's n-grams).
func TestRunWindows(t *testing.T) {
	docs := corpus(5, 3000)
	in := testutil.WriteFile(t, "docs.tsv", docs)
	var first string
	for _, jobs := range []int{1, 3} {
		opt := defaults()
		opt.By, opt.Tokens, opt.Stride = "window", 20, 10
		opt.Expected = 1_000_000
		opt.Jobs = jobs
		out, stderr := run(t, opt, in)
		if jobs == 1 {
			first = out
			if !strings.Contains(out, "#neardup stage=parts by=window tokens=20 stride=10 ") || len(records(out)) < 500 {
				t.Fatalf("%d records, header %q\n%s", len(records(out)), strings.SplitN(out, "\n", 2)[0], stderr)
			}
			if !strings.Contains(stderr, "window(s) seen before") {
				t.Errorf("stderr does not count windows:\n%s", stderr)
			}
			continue
		}
		if out != first {
			t.Fatalf("-j %d output differs from -j 1", jobs)
		}
	}
	for _, s := range seenOf(t, first) {
		if _, _, _, err := record.ParsePartID(s.Part); err != nil || s.Total < 1 || s.Total > 20-DefaultK+1 {
			t.Fatalf("%s: %d of %d n-grams (a window of at most 20 tokens has at most %d): %v", s.Part, s.Seen, s.Total, 20-DefaultK+1, err)
		}
	}
	opt := defaults()
	opt.By, opt.Tokens, opt.Expected = "window", 5, 1000
	if _, _, err := testutil.Run(t, Run, opt, in); err == nil || !strings.Contains(err.Error(), "every window would be left out") {
		t.Errorf("--tokens 5 under -k 13: %v", err)
	}
}

// A new filter larger than the machine's memory is refused before it is
// allocated, naming the size it needs and the flag to change.
func TestFilterBeyondMachine(t *testing.T) {
	docs := testutil.WriteFile(t, "docs.tsv", "a\tone two three four five six seven eight nine ten eleven twelve thirteen\n")
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Expected: 10_000_000}, "a filter for 10000000 n-grams (--expected) at a false-positive rate of 0.01 (--fp) needs 12362816 bytes, more than this machine's memory (1048576 bytes"},
		{Options{Memory: 2 << 20}, "--memory 2M: the filter would be 2097152 bytes, more than this machine's memory (1048576 bytes"},
	} {
		opt := c.opt
		opt.K, opt.Threshold, opt.machine = DefaultK, DefaultThreshold, 1<<20
		_, _, err := testutil.Run(t, Run, opt, docs)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "give a smaller") {
			t.Errorf("%+v: err %v, want %q", c.opt, err, c.want)
		}
	}
	opt := Options{K: DefaultK, Threshold: DefaultThreshold, Memory: 1 << 19, machine: 1 << 20}
	if _, _, err := testutil.Run(t, Run, opt, docs); err != nil {
		t.Errorf("a filter within the machine's memory: %v", err)
	}
}
