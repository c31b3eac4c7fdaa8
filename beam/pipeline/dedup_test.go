package pipeline

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/neardup/neardup/internal/cli"
	"github.com/neardup/neardup/internal/keep"
	"github.com/neardup/neardup/internal/record"
)

func init() {
	register.Function1x1[docLine, string](docLineText)
	register.Function1x1[docLine, string](ruleColumns)
}

func docLineText(l docLine) string { return string(record.TrimEOL(l.Raw)) }

// ruleColumns is a report line's first four columns, the rule's: the own
// ids after them come from the documents, which dedupRoots does not read.
func ruleColumns(l docLine) string {
	f := strings.SplitN(docLineText(l), "\t", 5)
	return strings.Join(f[:min(4, len(f))], "\t")
}

// realDocuments returns real documents, id (a path) and text, in a fixed
// order: the Go source files of some packages of $(go env GOROOT)/src and
// the README files of /usr/share/doc (gunzipped), as many as this machine
// has.
func realDocuments(t *testing.T) [][2]string {
	t.Helper()
	var docs [][2]string
	add := func(id string, data []byte) {
		if len(data) >= 200 && len(data) <= 64<<10 {
			docs = append(docs, [2]string{id, string(data)})
		}
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	for _, pkg := range []string{"strings", "bytes", "bufio", "sort", "slices", "maps", "errors", "unicode/utf8",
		"unicode/utf16", "container/list", "container/ring", "container/heap", "encoding/csv", "encoding/hex",
		"encoding/base64", "encoding/base32", "text/tabwriter", "path", "path/filepath", "hash/crc32", "hash/fnv",
		"math/bits", "strconv", "io", "flag"} {
		names, _ := filepath.Glob(filepath.Join(src, pkg, "*.go"))
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			add(strings.TrimPrefix(name, src+"/"), data)
		}
	}
	readmes, _ := filepath.Glob("/usr/share/doc/*/README*")
	slices.Sort(readmes)
	for _, name := range readmes {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				continue
			}
			if data, err = io.ReadAll(zr); err != nil {
				continue
			}
		}
		add(name, data)
	}
	if len(docs) < 200 {
		t.Skipf("only %d real documents here", len(docs))
	}
	return docs
}

// edit returns text with one word in every `every` replaced, starting at
// the word offset: a near-copy.
func edit(text string, every, offset int) string {
	words := strings.SplitAfter(text, " ")
	for i := offset % every; i < len(words); i += every {
		words[i] = "xyzzy" + strconv.Itoa(i) + " "
	}
	return strings.Join(words, "")
}

// plantedCorpus writes real documents with planted copies, in a shuffled
// arrival order that puts some copies before their originals, as three
// inputs of different kinds: TSV with header lines among the documents and
// a last line without its line end, gzipped JSON Lines, and TSV with CRLF
// line ends. It returns their names and the size of the largest group of
// exact copies.
func plantedCorpus(t *testing.T, dir string) ([]string, int) {
	t.Helper()
	real := realDocuments(t)
	docs := slices.Clone(real)
	for i, d := range real {
		switch {
		case i%9 == 0: // an exact copy
			docs = append(docs, [2]string{d[0] + "~copy", d[1]})
		case i%7 == 0: // a near-copy
			docs = append(docs, [2]string{d[0] + "~edit", edit(d[1], 40, i)})
		case i%11 == 0: // a chain of near-copies, each of the one before
			text := d[1]
			for j := range 3 {
				text = edit(text, 30, 10*j+i)
				docs = append(docs, [2]string{d[0] + "~chain" + strconv.Itoa(j), text})
			}
		}
	}
	// A group of exact copies larger than any bucket cap the test gives.
	const group = 40
	for j := range group {
		docs = append(docs, [2]string{real[5][0] + "~many" + strconv.Itoa(j), real[5][1]})
	}
	r := rand.New(rand.NewPCG(13, 17))
	r.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })

	tsvLine := func(d [2]string) string {
		return string(record.Escape(nil, []byte(d[0]))) + "\t" + string(record.Escape(nil, []byte(d[1])))
	}
	a, b := len(docs)*2/5, len(docs)*7/10
	var tsv, crlf strings.Builder
	var jsonl bytes.Buffer
	tsv.WriteString("#neardup stage=crawl date=2026-11-24\n")
	for i, d := range docs[:a] {
		if i == a/2 {
			tsv.WriteString("#neardup stage=crawl date=2026-11-24\n")
		}
		tsv.WriteString(tsvLine(d))
		if i < a-1 {
			tsv.WriteString("\n")
		}
	}
	zw := gzip.NewWriter(&jsonl)
	for _, d := range docs[a:b] {
		line, err := json.Marshal(map[string]string{"id": d[0], "text": d[1]})
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(append(line, '\n'))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs[b:] {
		crlf.WriteString(tsvLine(d) + "\r\n")
	}
	var names []string
	for _, f := range []struct {
		name string
		data []byte
	}{{"a.tsv", []byte(tsv.String())}, {"b.jsonl.gz", jsonl.Bytes()}, {"c.tsv", []byte(crlf.String())}} {
		name := filepath.Join(dir, f.name)
		if err := os.WriteFile(name, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names, group
}

// dedupSh runs what examples/dedup.sh runs, in process: shingle
// --number-from 0, sketch, band --threshold, pairs, verify --shingles, and
// keep --pairs --rule RULE with --report, then keep --drop. It returns the
// verified pairs, the documents kept and dropped, and the report.
func dedupSh(t *testing.T, inputs []string, threshold string, maxBucket int, rule string) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	out := commandLine(t, dir, inputs, map[string][]string{
		"shingle": {"--number-from", "0"},
		"band":    {"--threshold", threshold},
		"pairs":   {"--max-bucket", strconv.Itoa(maxBucket)},
	})
	verified := filepath.Join(dir, "cli-"+OutPairs+".tsv")
	report := filepath.Join(dir, "report.tsv")
	res := map[string][]byte{OutPairs: out[OutPairs]}
	res[OutKept] = runStage(t, append([]string{"keep", "--pairs", verified, "--rule", rule, "--report", report, "--"}, inputs...)...)
	res[OutDropped] = runStage(t, append([]string{"keep", "--pairs", verified, "--rule", rule, "--drop", "--"}, inputs...)...)
	var err error
	if res[OutReport], err = os.ReadFile(report); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestDedupMatchesCommandLine(t *testing.T) {
	inputs, group := plantedCorpus(t, t.TempDir())
	arrivalKept := map[int][]byte{}
	for _, tc := range []struct {
		maxBucket, shards int
		rule              string
	}{
		{32, 1, keep.RuleArrival}, // caps the fixture's group of copies
		{5, 3, keep.RuleArrival},
		{0, 2, keep.RuleArrival}, // no cap
		{32, 1, keep.RuleKept},
		{0, 2, keep.RuleKept},
	} {
		t.Run(fmt.Sprintf("max-bucket-%d-shards-%d-rule-%s", tc.maxBucket, tc.shards, tc.rule), func(t *testing.T) {
			want := dedupSh(t, inputs, "0.8", tc.maxBucket, tc.rule)
			opt := Defaults()
			opt.Inputs = inputs
			opt.Output = filepath.Join(t.TempDir(), "out")
			opt.Number = true
			opt.MaxBucket = tc.maxBucket
			opt.Shards = tc.shards
			opt.Rule = tc.rule
			opt.Write = []string{OutPairs, OutKept, OutDropped, OutReport}
			got := runBeam(t, opt)
			sameLines(t, OutPairs, got[OutPairs], want[OutPairs])
			for _, o := range DedupOutputs {
				if !bytes.Equal(got[o], want[o]) {
					t.Errorf("%s: %d bytes, %d lines; keep wrote %d bytes, %d lines", o,
						len(got[o]), bytes.Count(got[o], []byte{'\n'}), len(want[o]), bytes.Count(want[o], []byte{'\n'}))
				}
			}
			// The fixture plants what the rule must handle: many dropped,
			// chains whose kept document is not their via, a group of
			// copies larger than a bucket's cap, all of it dropped but one.
			var lines, chained int
			kept := map[string]int{}
			for _, line := range strings.Split(strings.TrimSuffix(string(want[OutReport]), "\n"), "\n") {
				f := strings.Split(line, "\t")
				lines++
				if f[1] != f[2] {
					chained++
				}
				kept[f[1]]++
			}
			switch tc.rule {
			case keep.RuleArrival:
				if lines < 60 || chained < 3 {
					t.Errorf("the report has %d lines, %d of them chains: the fixture plants too few", lines, chained)
				}
				arrivalKept[tc.maxBucket] = want[OutKept]
			case keep.RuleKept:
				// Every document dropped has a kept near-duplicate, its
				// via; the chains keep what the arrival rule drops.
				if chained > 0 {
					t.Errorf("%d documents of the kept rule's report have a kept document that is not their via", chained)
				}
				if a, ok := arrivalKept[tc.maxBucket]; !ok || len(want[OutKept]) <= len(a) {
					t.Errorf("the kept rule keeps %d bytes, the arrival rule %d: the fixture's chains make no difference", len(want[OutKept]), len(a))
				}
			}
			if slices.Max(slices.Collect(maps.Values(kept))) < group-1 {
				t.Errorf("no kept document has the %d copies of the group dropped for it", group-1)
			}
			if !bytes.Contains(want[OutDropped], []byte("#neardup stage=crawl")) || !bytes.Contains(want[OutKept], []byte("#neardup stage=crawl")) {
				t.Errorf("the documents' header lines go with the documents kept and dropped")
			}
		})
	}
}

func TestDedupRule(t *testing.T) {
	// Pairs among 400 numbered documents: random ones with similarities
	// that tie, and long paths, whose chains a round or two of pointer
	// jumping (of the kept rule's rounds) leave unsettled. The report is
	// keep --pairs --rule's.
	for _, rc := range []struct {
		rule string
		path int // documents on the path that arrives in its order
		// The rounds, and whether they leave documents unsettled.
		rounds map[int]bool
		roots  func(beam.Scope, beam.PCollection, int) beam.PCollection
	}{
		{keep.RuleArrival, 130, map[int]bool{1: true, 2: true, 10: false}, dedupRoots},
		// The kept rule settles that path a document a round.
		{keep.RuleKept, 12, map[int]bool{1: true, 3: true, 16: false}, keptRoots},
	} {
		docsName, pairsName, recs := ruleFixture(t, rc.path)
		report := filepath.Join(t.TempDir(), "report.tsv")
		runStage(t, "keep", "--pairs", pairsName, "--rule", rc.rule, "--report", report, docsName)
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		for i, l := range want {
			want[i] = strings.Join(strings.SplitN(l, "\t", 5)[:4], "\t")
		}
		for _, rounds := range slices.Sorted(maps.Keys(rc.rounds)) {
			t.Run(fmt.Sprintf("%s-rounds-%d", rc.rule, rounds), func(t *testing.T) {
				p, s := beam.NewPipelineWithRoot()
				roots := rc.roots(s, beam.CreateList(s, recs), rounds)
				got := beam.ParDo(s, ruleColumns, beam.ParDo(s, &reportLineFn{}, roots))
				passert.Equals(s, got, beam.CreateList(s, want))
				res, err := ptest.RunWithMetrics(p)
				if err != nil {
					t.Fatal(err)
				}
				if unsettled := counter(res, "dedup-unsettled-documents"); (unsettled > 0) != rc.rounds[rounds] {
					t.Errorf("%d unsettled documents after %d rounds, want them %v", unsettled, rounds, rc.rounds[rounds])
				}
			})
		}
	}
}

// ruleFixture writes 400 numbered documents and scored pairs among them:
// random ones with similarities that tie, a path of pathLen documents
// arriving in its order and one of 70 arriving out of it. It returns the
// files' names and the pairs.
func ruleFixture(t *testing.T, pathLen int) (docsName, pairsName string, recs []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	id := func(i int) string { return fmt.Sprintf("%012d", i) }
	var docs, scored strings.Builder
	for i := range 400 {
		fmt.Fprintf(&docs, "%s\tdocument %d\n", id(i), i)
	}
	seen := map[[2]int]bool{}
	pair := func(a, b int, sim string) {
		a, b = min(a, b), max(a, b)
		if a != b && !seen[[2]int{a, b}] {
			seen[[2]int{a, b}] = true
			fmt.Fprintf(&scored, "%s\t%s\t%s\n", id(a), id(b), sim)
		}
	}
	sims := []string{"0.850000", "0.900000", "0.950000", "1.000000"}
	for range 300 {
		pair(r.IntN(200), r.IntN(200), sims[r.IntN(len(sims))])
	}
	for i := 201; i < 200+pathLen; i++ {
		pair(i-1, i, sims[r.IntN(len(sims))])
	}
	// A path through documents that arrive out of its order.
	path := r.Perm(70)
	for i := 1; i < len(path); i++ {
		pair(330+path[i-1], 330+path[i], "0.900000")
	}
	dir := t.TempDir()
	docsName, pairsName = filepath.Join(dir, "docs.tsv"), filepath.Join(dir, "pairs.tsv")
	for name, data := range map[string]string{docsName: docs.String(), pairsName: scored.String()} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return docsName, pairsName, strings.Split(strings.TrimSuffix(scored.String(), "\n"), "\n")
}

func TestDedupNeedsNumbers(t *testing.T) {
	opt := Defaults()
	opt.Inputs, opt.Output = []string{"docs.tsv"}, "out"
	opt.Write = []string{OutKept}
	if err := opt.Check(); err == nil || !strings.Contains(err.Error(), "-number-from") {
		t.Fatalf("got %v", err)
	}
	opt.Number = true
	if err := opt.Check(); err != nil {
		t.Fatal(err)
	}
	// The rule is keep --rule's, and only the dedup outputs have one.
	for _, tc := range []struct {
		rule  string
		write []string
		want  string
	}{
		{"first", []string{OutKept}, `rule "first": want arrival or kept`},
		{keep.RuleKept, []string{OutPairs}, `rule "kept" is a rule of the outputs kept, dropped, report`},
		{keep.RuleKept, []string{OutReport}, ""},
	} {
		o := opt
		o.Rule, o.Write = tc.rule, tc.write
		if err := o.Check(); tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("rule %s, write %v: %v, want %q", tc.rule, tc.write, err, tc.want)
		}
	}
	for _, tc := range []struct {
		format string
		inputs []string
		want   string
	}{
		{"", []string{"a.tsv", "b/*.tsv.gz"}, "out-kept-00001-of-00002.tsv"},
		{"", []string{"a.jsonl", "b/*.json.zst"}, "out-kept-00001-of-00002.jsonl"},
		{"", []string{"a.jsonl", "b/*"}, "out-kept-00001-of-00002"},
		{"lines", []string{"a"}, "out-kept-00001-of-00002.txt"},
	} {
		o := opt
		o.Format, o.Inputs, o.Shards = tc.format, tc.inputs, 2
		if got := o.Path(OutKept, 1); got != tc.want {
			t.Errorf("%s %v: %s, want %s", tc.format, tc.inputs, got, tc.want)
		}
		if got := o.Path(OutReport, 1); got != "out-report-00001-of-00002.tsv" {
			t.Errorf("report: %s", got)
		}
	}
}

func TestDedupChecksHeaders(t *testing.T) {
	// The documents' header lines are checked as shingle checks them when
	// only the dedup outputs are written, as in examples/dedup.sh.
	path := filepath.Join(t.TempDir(), "docs.tsv")
	text := "#neardup stage=shingle unit=char k=9 hash=tok64 seed=1 counts=no\na\tsome text\nb\tsome text\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "docs.tsv:1: input already went through shingle"
	var stdout, stderr bytes.Buffer
	if code := cli.Run(cli.Shingle(), []string{"shingle", "--number-from", "0", path}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), want) {
		t.Fatalf("shingle: exit %d, %s", code, stderr.String())
	}
	opt := Defaults()
	opt.Inputs = []string{path}
	opt.Output = filepath.Join(t.TempDir(), "out")
	opt.Number = true
	opt.Write = []string{OutKept, OutReport}
	if err := runBeamError(t, opt); !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}
