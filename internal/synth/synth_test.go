package synth

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

func newGen(t *testing.T, opt Options) *Generator {
	t.Helper()
	g, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func write(t *testing.T, opt Options) (corpus, truth []byte) {
	t.Helper()
	var c, tr bytes.Buffer
	if _, err := Write(&c, &tr, opt); err != nil {
		t.Fatal(err)
	}
	return c.Bytes(), tr.Bytes()
}

func TestDeterministic(t *testing.T) {
	opt := DefaultOptions()
	opt.Docs = 300
	opt.MaxWords = 300
	c1, t1 := write(t, opt)
	c2, t2 := write(t, opt)
	if !bytes.Equal(c1, c2) || !bytes.Equal(t1, t2) {
		t.Fatal("two runs with the same options differ")
	}
	opt.Seed++
	c3, _ := write(t, opt)
	if bytes.Equal(c1, c3) {
		t.Fatal("another seed gives the same corpus")
	}
}

// A document depends on its number alone, not on what was made before.
func TestAnyOrder(t *testing.T) {
	opt := DefaultOptions()
	opt.Docs = 200
	opt.MaxWords = 200
	g := newGen(t, opt)
	var forward [][]byte
	for i := range opt.Docs {
		text, _ := g.AppendText(nil, i)
		forward = append(forward, text)
	}
	g2 := newGen(t, opt)
	for i := opt.Docs - 1; i >= 0; i-- {
		text, _ := g2.AppendText(nil, i)
		if !bytes.Equal(text, forward[i]) {
			t.Fatalf("document %d differs when made in reverse order", i)
		}
	}
}

func TestSpellingsDistinct(t *testing.T) {
	seen := map[string]int{}
	for w := range 200000 {
		s := string(spell(nil, w))
		if len(s) > maxWordLen {
			t.Fatalf("word %d is %q, longer than %d", w, s, maxWordLen)
		}
		if old, ok := seen[s]; ok {
			t.Fatalf("words %d and %d are both spelled %q", old, w, s)
		}
		seen[s] = w
	}
	if got := string(spell(nil, 0)) + " " + string(spell(nil, 89)) + " " + string(spell(nil, 90)); got != "ba zu baba" {
		t.Errorf("words 0, 89, 90 = %s, want ba zu baba", got)
	}
}

// tokens splits text into lower-case runs of letters, the way any reader of
// the corpus would.
func tokens(text []byte) []string {
	return strings.FieldsFunc(strings.ToLower(string(text)), func(r rune) bool { return r < 'a' || r > 'z' })
}

func spelled(g *Generator, words []int32) []string {
	var out []string
	for _, w := range words {
		out = append(out, string(g.Word(nil, w)))
	}
	return out
}

// The text holds the document's words in order, and the layout is
// sentences: a capital first, a full stop last.
func TestTextHoldsWords(t *testing.T) {
	opt := DefaultOptions()
	opt.Docs = 100
	opt.MaxWords = 300
	g := newGen(t, opt)
	for i := range opt.Docs {
		words, _ := g.Words(nil, i)
		want := spelled(g, words)
		text, _ := g.AppendText(nil, i)
		if got := tokens(text); !slices.Equal(got, want) {
			t.Fatalf("document %d: text has words %q…, want %q…", i, got[:5], want[:5])
		}
		if text[0] < 'A' || text[0] > 'Z' || text[len(text)-1] != '.' {
			t.Fatalf("document %d: %q…%q is not made of sentences", i, text[:10], text[len(text)-10:])
		}
	}
}

// Lengths of originals lie in [MinWords, MaxWords] and are log-uniform:
// the median is close to sqrt(min·max).
func TestLengths(t *testing.T) {
	opt := DefaultOptions()
	opt.Docs = 4000
	opt.MinWords, opt.MaxWords = 20, 500
	opt.PlantRate = 0
	g := newGen(t, opt)
	var lens []int
	for i := range opt.Docs {
		words, _ := g.Words(nil, i)
		if len(words) < opt.MinWords || len(words) > opt.MaxWords {
			t.Fatalf("document %d has %d words, want %d to %d", i, len(words), opt.MinWords, opt.MaxWords)
		}
		lens = append(lens, len(words))
	}
	slices.Sort(lens)
	median := float64(lens[len(lens)/2])
	want := math.Sqrt(float64(opt.MinWords * opt.MaxWords))
	if math.Abs(median/want-1) > 0.1 {
		t.Errorf("median length %g, want about %.0f", median, want)
	}
}

// Word frequencies follow the Zipf law: P(rank r) = 1/(r^s·H) with H the
// sum of 1/r^s over the vocabulary.
func TestZipf(t *testing.T) {
	for _, s := range []float64{1, 1.5} {
		opt := DefaultOptions()
		opt.Vocabulary = 1000
		opt.Zipf = s
		g := newGen(t, opt)
		h := 0.0
		for r := 1; r <= opt.Vocabulary; r++ {
			h += math.Pow(float64(r), -s)
		}
		const draws = 1 << 20
		count := make([]int, opt.Vocabulary)
		g.words.Seed(7, 7)
		for range draws {
			count[g.vocab.sample(g.words.Uint64())]++
		}
		for _, r := range []int{1, 2, 10, 100} {
			p := math.Pow(float64(r), -s) / h
			sd := math.Sqrt(draws * p * (1 - p))
			if d := math.Abs(float64(count[r-1]) - draws*p); d > 5*sd {
				t.Errorf("s=%g: rank %d drawn %d times, want %.0f ± %.0f", s, r, count[r-1], draws*p, 5*sd)
			}
		}
	}
}

func TestPlantRates(t *testing.T) {
	opt := DefaultOptions()
	opt.Docs = 20000
	opt.PlantRate, opt.ExactShare, opt.ContainShare = 0.4, 0.25, 0.25
	g := newGen(t, opt)
	var kinds [4]float64
	for i := range opt.Docs {
		p := g.Plan(i)
		kinds[p.Kind]++
		if p.Kind == Original {
			if p.Source != -1 {
				t.Fatalf("original %d has source %d", i, p.Source)
			}
			continue
		}
		if p.Source < 0 || p.Source >= i || g.Plan(p.Source).Kind != Original {
			t.Fatalf("document %d planted from %d, which is not an earlier original", i, p.Source)
		}
	}
	n := float64(opt.Docs)
	planted := n - kinds[Original]
	check := func(name string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4f, want %.2f ± %.3f", name, got, want, tol)
		}
	}
	// Tolerances are about 5 standard errors.
	check("planted fraction", planted/n, opt.PlantRate, 0.02)
	check("exact share", kinds[Exact]/planted, opt.ExactShare, 0.025)
	check("contain share", kinds[Contain]/planted, opt.ContainShare, 0.025)
	check("edit share", kinds[Edit]/planted, 1-opt.ExactShare-opt.ContainShare, 0.03)
}

// isSubsequence reports whether a is b with some elements left out.
func isSubsequence(a, b []int32) bool {
	i := 0
	for _, w := range b {
		if i < len(a) && a[i] == w {
			i++
		}
	}
	return i == len(a)
}

// Edits happen at the rates asked for: deletions shorten a copy by the
// deletion rate, insertions lengthen it by the insertion rate, substitutions
// change that fraction of the words in place.
func TestEditRates(t *testing.T) {
	for _, tc := range []struct {
		name          string
		ins, del, sub float64
	}{
		{"delete", 0, 0.1, 0},
		{"insert", 0.1, 0, 0},
		{"substitute", 0, 0, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := DefaultOptions()
			opt.Docs = 1500
			opt.PlantRate, opt.ExactShare, opt.ContainShare = 0.5, 0, 0
			opt.Insert, opt.Delete, opt.Substitute = tc.ins, tc.del, tc.sub
			g := newGen(t, opt)
			var srcWords, copyWords, changed float64
			for i := range opt.Docs {
				words, p := g.Words(nil, i)
				if p.Kind != Edit {
					continue
				}
				src, _ := g.Words(nil, p.Source)
				srcWords += float64(len(src))
				copyWords += float64(len(words))
				switch {
				case tc.del > 0 && !isSubsequence(words, src):
					t.Fatalf("copy %d is not its source with words deleted", i)
				case tc.ins > 0 && !isSubsequence(src, words):
					t.Fatalf("copy %d is not its source with words inserted", i)
				case tc.sub > 0:
					if len(words) != len(src) {
						t.Fatalf("copy %d has %d words, its source %d", i, len(words), len(src))
					}
					for k := range words {
						if words[k] != src[k] {
							changed++
						}
					}
				}
			}
			ratio := copyWords / srcWords
			if want := 1 + tc.ins - tc.del; math.Abs(ratio-want) > 0.005 {
				t.Errorf("copies have %.4f times the words of their sources, want %.2f", ratio, want)
			}
			if tc.sub > 0 {
				if got := changed / srcWords; math.Abs(got-tc.sub) > 0.005 {
					t.Errorf("%.4f of the words substituted, want %.2f", got, tc.sub)
				}
			}
		})
	}
}

func TestExactAndContain(t *testing.T) {
	opt := DefaultOptions()
	opt.Docs = 600
	opt.MaxWords = 400
	opt.PlantRate, opt.ExactShare, opt.ContainShare = 0.5, 0.5, 0.5
	opt.ContainExtra = 0.5
	g := newGen(t, opt)
	var nExact, nContain int
	for i := range opt.Docs {
		text, p := g.AppendText(nil, i)
		if p.Kind == Original {
			continue
		}
		src, _ := g.AppendText(nil, p.Source)
		switch p.Kind {
		case Exact:
			nExact++
			if !bytes.Equal(text, src) {
				t.Fatalf("exact copy %d differs from its source %d", i, p.Source)
			}
		case Contain:
			nContain++
			words, _ := g.Words(nil, i)
			srcWords, _ := g.Words(nil, p.Source)
			at := -1
			for k := 0; k+len(srcWords) <= len(words); k++ {
				if slices.Equal(words[k:k+len(srcWords)], srcWords) {
					at = k
					break
				}
			}
			if at < 0 {
				t.Fatalf("document %d does not contain the words of its source %d", i, p.Source)
			}
			if extra := len(words) - len(srcWords); float64(extra) > opt.ContainExtra*float64(len(srcWords))+1 {
				t.Fatalf("document %d adds %d words to its source's %d, want at most %g of them", i, extra, len(srcWords), opt.ContainExtra)
			}
		default:
			t.Fatalf("document %d is %v, want exact or contain", i, p.Kind)
		}
	}
	if nExact < 100 || nContain < 100 {
		t.Errorf("%d exact copies and %d containing documents, want about 150 each", nExact, nContain)
	}
}

// The TSV and JSON Lines outputs hold the same documents, and the ground
// truth lists exactly the planted ones.
func TestFormats(t *testing.T) {
	opt := DefaultOptions()
	opt.Docs = 150
	opt.MaxWords = 300
	g := newGen(t, opt)
	tsv, truth := write(t, opt)
	opt.Format = JSONL
	jsonl, truth2 := write(t, opt)
	if !bytes.Equal(truth, truth2) {
		t.Error("the ground truth depends on the format")
	}
	tsvLines := strings.Split(strings.TrimSuffix(string(tsv), "\n"), "\n")
	jsonLines := strings.Split(strings.TrimSuffix(string(jsonl), "\n"), "\n")
	if len(tsvLines) != opt.Docs || len(jsonLines) != opt.Docs {
		t.Fatalf("%d TSV lines and %d JSON lines, want %d", len(tsvLines), len(jsonLines), opt.Docs)
	}
	var wantTruth strings.Builder
	for i := range opt.Docs {
		text, p := g.AppendText(nil, i)
		id := "d" + strconv.Itoa(1000 + i)[1:]
		fields := strings.Split(tsvLines[i], "\t")
		if len(fields) != 2 || fields[0] != id || string(record.Unescape(nil, []byte(fields[1]))) != string(text) {
			t.Fatalf("TSV line %d = %.60q…, want %s TAB the escaped text", i+1, tsvLines[i], id)
		}
		var doc struct{ ID, Text string }
		if err := json.Unmarshal([]byte(jsonLines[i]), &doc); err != nil {
			t.Fatalf("JSON line %d: %v", i+1, err)
		}
		if doc.ID != id || doc.Text != string(text) {
			t.Fatalf("JSON line %d = %.60q…, want id %s and the text", i+1, jsonLines[i], id)
		}
		if p.Kind != Original {
			src := "d" + strconv.Itoa(1000 + p.Source)[1:]
			wantTruth.WriteString(id + "\t" + src + "\t" + p.Kind.String() + "\n")
		}
	}
	if string(truth) != wantTruth.String() {
		t.Errorf("ground truth:\n%s\nwant:\n%s", truth, wantTruth.String())
	}
	// Paragraph breaks are line ends inside texts: escaped, never raw.
	if !bytes.Contains(tsv, []byte(`.\n`)) {
		t.Error("no escaped paragraph break in the TSV corpus")
	}
}

func TestAppendJSONString(t *testing.T) {
	in := "a\"b\\c\nd\te\rf\x01g é"
	got := appendJSONString(nil, []byte(in))
	var back string
	if err := json.Unmarshal(got, &back); err != nil || back != in {
		t.Errorf("appendJSONString(%q) = %s, which decodes to %q (%v)", in, got, back, err)
	}
}

func TestIDWidth(t *testing.T) {
	for _, tc := range []struct {
		docs, i int
		want    string
	}{{1, 0, "d0"}, {10, 9, "d9"}, {11, 3, "d03"}, {100000, 42, "d00042"}, {100001, 100000, "d100000"}} {
		opt := DefaultOptions()
		opt.Docs = tc.docs
		if got := string(newGen(t, opt).AppendID(nil, tc.i)); got != tc.want {
			t.Errorf("id of %d among %d = %s, want %s", tc.i, tc.docs, got, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, mod := range []func(*Options){
		func(o *Options) { o.Docs = -1 },
		func(o *Options) { o.MinWords = 0 },
		func(o *Options) { o.MaxWords = o.MinWords - 1 },
		func(o *Options) { o.Vocabulary = 1 },
		func(o *Options) { o.PlantRate = 1.5 },
		func(o *Options) { o.Insert = math.NaN() },
		func(o *Options) { o.ExactShare, o.ContainShare = 0.6, 0.6 },
		func(o *Options) { o.Delete, o.Substitute = 0.6, 0.6 },
	} {
		opt := DefaultOptions()
		mod(&opt)
		if err := opt.Check(); err == nil {
			t.Errorf("%+v accepted", opt)
		}
	}
	if err := DefaultOptions().Check(); err != nil {
		t.Error(err)
	}
}

// Write streams: its memory does not grow with the number of documents
// (once its few blocks have grown to size: 2000 documents against 20000).
func TestWriteStreams(t *testing.T) {
	opt := DefaultOptions()
	opt.MaxWords = 200
	allocs := func(docs int) float64 {
		opt.Docs = docs
		return testing.AllocsPerRun(2, func() {
			if _, err := Write(discard{}, nil, opt); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(2000), allocs(20000)
	if large > small+10 {
		t.Errorf("%g allocations for 2000 documents, %g for 20000: want about as many", small, large)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// WriteJobs writes the same corpus and truth with any number of workers.
func TestWriteJobs(t *testing.T) {
	opt := DefaultOptions()
	opt.Docs, opt.MaxWords = 1500, 300
	var c1, t1 bytes.Buffer
	st1, err := WriteJobs(&c1, &t1, opt, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, jobs := range []int{2, 3, 8} {
		var c, tr bytes.Buffer
		st, err := WriteJobs(&c, &tr, opt, jobs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.Bytes(), c1.Bytes()) || !bytes.Equal(tr.Bytes(), t1.Bytes()) || st != st1 {
			t.Errorf("-j%d: a different corpus, truth or stats (%+v, want %+v)", jobs, st, st1)
		}
	}
}

// Crawl lengths: the median near MedianWords, about 4 % of originals
// beyond 4 × the median (2.4 % from the log-normal, 2 % from the tail), and
// none beyond MaxWords.
func TestCrawlLengths(t *testing.T) {
	opt := DefaultOptions()
	opt.Lengths, opt.MedianWords, opt.MinWords, opt.MaxWords = Crawl, 400, 20, 20000
	g := newGen(t, opt)
	const n = 20000
	lengths := make([]int, n)
	for i := range n {
		g.words.Seed(g.key(wordSalt), uint64(i))
		lengths[i] = g.originalLength()
	}
	slices.Sort(lengths)
	if m := lengths[n/2]; m < 380 || m > 420 {
		t.Errorf("median %d words, want about 400", m)
	}
	tail := n - sort.SearchInts(lengths, 4*400+1)
	if f := float64(tail) / n; f < 0.035 || f > 0.055 {
		t.Errorf("%.3f beyond 4 × the median, want about 0.044", f)
	}
	if lengths[n-1] > 20000 || lengths[0] < 20 {
		t.Errorf("lengths %d to %d, want within 20 to 20000", lengths[0], lengths[n-1])
	}
}
