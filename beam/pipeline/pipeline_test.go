package pipeline

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/neardup/neardup/internal/cli"
	"github.com/neardup/neardup/internal/synth"
)

func TestMain(m *testing.M) {
	ptest.MainWithDefault(m, "prism")
}

// runBeam runs the pipeline and returns each output written: its shards
// concatenated in order.
func runBeam(t *testing.T, opt Options) map[string][]byte {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	if _, err := Build(s, opt); err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	out := map[string][]byte{}
	for _, o := range opt.Write {
		var all []byte
		for i := range opt.Shards {
			data, err := os.ReadFile(opt.Path(o, i))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, data...)
		}
		out[o] = all
	}
	return out
}

// runStage runs a command-line stage in process, as a user types it, and
// returns its output.
func runStage(t testing.TB, args ...string) []byte {
	t.Helper()
	var stage cli.Stage
	for _, st := range cli.Stages() {
		if st.Name == args[0] {
			stage = st
		}
	}
	var stdout, stderr bytes.Buffer
	if code := cli.Run(stage, args, &stdout, &stderr); code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.Bytes()
}

// commandLine runs shingle | sketch | band | pairs | verify | cluster on the inputs
// with the flags given per stage, and returns the output of each stage,
// named as the pipeline names its outputs.
func commandLine(t testing.TB, dir string, inputs []string, flags map[string][]string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	run := func(stage, output string, in []string, extra ...string) string {
		args := append([]string{stage}, flags[stage]...)
		args = append(args, extra...)
		out[output] = runStage(t, append(append(args, "--"), in...)...)
		name := filepath.Join(dir, "cli-"+output+".tsv")
		if err := os.WriteFile(name, out[output], 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	sh := run("shingle", OutShingles, inputs)
	sk := run("sketch", OutSketches, []string{sh})
	bd := run("band", OutBands, []string{sk})
	cd := run("pairs", OutCandidates, []string{bd})
	vf := run("verify", OutPairs, []string{cd}, "--shingles", sh)
	run("cluster", OutClusters, []string{vf})
	return out
}

// sortedLines returns the lines of data sorted bytewise, each header line
// once.
func sortedLines(data []byte) []string {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(data) == 0 {
		return nil
	}
	slices.Sort(lines)
	return slices.CompactFunc(lines, func(a, b string) bool { return a == b && strings.HasPrefix(a, "#neardup ") })
}

// sameLines fails the test unless two outputs hold the same lines.
func sameLines(t *testing.T, name string, got, want []byte) {
	t.Helper()
	g, w := sortedLines(got), sortedLines(want)
	if slices.Equal(g, w) {
		return
	}
	for i := 0; i < min(len(g), len(w)); i++ {
		if g[i] != w[i] {
			t.Fatalf("%s: line %d of %d sorted lines: got\n%.200q\nwant\n%.200q", name, i+1, len(w), g[i], w[i])
		}
	}
	t.Fatalf("%s: got %d sorted lines, want %d", name, len(g), len(w))
}

// clustersOf computes connected components of the scored pairs with a plain
// union-find and returns "cluster TAB id" records, the cluster the smallest
// id of its component, sorted by cluster then id.
func clustersOf(scored []byte) []byte {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if parent[x] == x {
			return x
		}
		r := find(parent[x])
		parent[x] = r
		return r
	}
	for _, line := range strings.Split(string(scored), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		for _, x := range f[:2] {
			if _, ok := parent[x]; !ok {
				parent[x] = x
			}
		}
		a, b := find(f[0]), find(f[1])
		if a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	var recs []string
	for x := range parent {
		recs = append(recs, find(x)+"\t"+x)
	}
	slices.Sort(recs)
	var b bytes.Buffer
	for _, r := range recs {
		b.WriteString(r + "\n")
	}
	return b.Bytes()
}

// withoutHeaders drops header lines.
func withoutHeaders(data []byte) []byte {
	var b bytes.Buffer
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if !strings.HasPrefix(line, "#neardup") {
			b.WriteString(line)
		}
	}
	return b.Bytes()
}

// writeCorpus writes a synthetic corpus of n documents with planted
// near-duplicates in parts files and returns their names.
func writeCorpus(t testing.TB, dir string, n, parts int, format synth.Format) []string {
	t.Helper()
	opt := synth.DefaultOptions()
	opt.Docs = n
	opt.MaxWords = 400
	opt.PlantRate = 0.4
	opt.Format = format
	var all bytes.Buffer
	if _, err := synth.Write(&all, nil, opt); err != nil {
		t.Fatal(err)
	}
	ext := ".tsv"
	if format == synth.JSONL {
		ext = ".jsonl"
	}
	lines := strings.SplitAfter(strings.TrimSuffix(all.String(), "\n"), "\n")
	var names []string
	for p := range parts {
		name := filepath.Join(dir, fmt.Sprintf("docs-%d%s", p, ext))
		lo, hi := p*len(lines)/parts, (p+1)*len(lines)/parts
		if err := os.WriteFile(name, []byte(strings.Join(lines[lo:hi], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

func TestPipelineMatchesCommandLine(t *testing.T) {
	dir := t.TempDir()
	inputs := writeCorpus(t, dir, 3000, 3, synth.TSV)
	for _, tc := range []struct {
		name  string
		flags map[string][]string
		opt   func(*Options)
	}{
		{"char9-threshold", map[string][]string{
			"band": {"--threshold", "0.7"}, "verify": {"--threshold", "0.7"},
		}, func(o *Options) { o.Threshold, o.VerifyThreshold = 0.7, 0.7 }},
		{"word5-oph-bands-containment", map[string][]string{
			"shingle": {"--unit", "word", "--seed", "7"},
			"sketch":  {"--method", "oph", "-n", "64", "--seed", "3"},
			"band":    {"-b", "16", "-r", "4"},
			"pairs":   {"--max-bucket", "5"},
			"verify":  {"--threshold", "0.6", "--containment"},
		}, func(o *Options) {
			o.Unit, o.Seed = "word", 7
			o.Method, o.N, o.SketchSeed = "oph", 64, 3
			o.B, o.R = 16, 4
			o.MaxBucket = 5
			o.VerifyThreshold, o.Containment = 0.6, true
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := commandLine(t, dir, inputs, tc.flags)
			opt := Defaults()
			opt.Inputs = inputs
			opt.Output = filepath.Join(t.TempDir(), "out")
			opt.Write = AllOutputs
			tc.opt(&opt)
			got := runBeam(t, opt)
			for _, o := range AllOutputs {
				sameLines(t, o, got[o], want[o])
			}
			// Outputs that the command line sorts are byte-identical.
			for _, o := range []string{OutCandidates, OutPairs, OutClusters} {
				if !bytes.Equal(got[o], want[o]) {
					t.Errorf("%s: sorted the same, but not byte-identical", o)
				}
			}
			if n := bytes.Count(withoutHeaders(want[OutPairs]), []byte{'\n'}); n < 100 {
				t.Fatalf("only %d verified pairs: the fixture plants too few", n)
			}
			if !bytes.Equal(withoutHeaders(got[OutClusters]), clustersOf(want[OutPairs])) {
				t.Errorf("clusters differ from the union-find of the verified pairs")
			}
		})
	}
}

func TestDocumentIDs(t *testing.T) {
	// JSON Lines without ids and the lines format number documents across
	// all inputs; compressed inputs are read; TSV ids are canonicalised.
	dir := t.TempDir()
	write := func(name, text string, gz bool) string {
		path := filepath.Join(dir, name)
		data := []byte(text)
		if gz {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(data)
			zw.Close()
			data = b.Bytes()
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	jsonl := []string{
		write("a.jsonl", `{"id":"x\ty","text":"the same text here"}`+"\n"+`{"text":"no id at all, numbered"}`+"\n\n", false),
		write("b.jsonl.gz", `{"text":"second file, numbered after the first"}`+"\n"+`{"id":7,"text":"number id"}`, true),
	}
	tsv := []string{write("c.tsv", "a\\\\b\\tc\tescaped id\n"+"#neardup stage=crawl date=2026-11-01\n"+"plain\tthe same text here\n", false)}
	lines := []string{write("d.txt", "one\ntwo\n", false), write("e.txt", "three", false)}
	for _, tc := range []struct {
		name   string
		inputs []string
		format string
		flags  []string
	}{
		{"jsonl", jsonl, "", nil},
		{"jsonl-glob", []string{filepath.Join(dir, "*.jsonl*")}, "", nil},
		{"tsv-with-header", tsv, "", []string{"-k", "5"}},
		{"lines", lines, "lines", []string{"--lines"}},
		{"files", lines, "files", []string{"--files"}},
		// Arrival numbers, counted across the inputs, header lines too.
		{"jsonl-numbered", jsonl, "", []string{"--number-from", "5"}},
		{"tsv-numbered", append(slices.Clone(tsv), write("f.tsv", "z\tanother file\n", false)), "tsv", []string{"--number-from", "5", "--format", "tsv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.name, "jsonl") {
				// A blank line in JSON Lines is bad input, skipped here.
				tc.flags = append(tc.flags, "--skip-bad")
			}
			files := tc.inputs
			if tc.name == "jsonl-glob" {
				files = jsonl
			}
			args := append(append([]string{"shingle"}, tc.flags...), files...)
			want := runStage(t, args...)
			opt := Defaults()
			opt.Inputs = tc.inputs
			opt.Format = tc.format
			opt.Output = filepath.Join(t.TempDir(), "out")
			opt.Write = []string{OutShingles}
			opt.SkipBad = slices.Contains(tc.flags, "--skip-bad")
			if slices.Contains(tc.flags, "-k") {
				opt.K = 5
			}
			if slices.Contains(tc.flags, "--number-from") {
				opt.Number, opt.NumberFrom = true, 5
			}
			got := runBeam(t, opt)
			sameLines(t, OutShingles, got[OutShingles], want)
		})
	}
}

// runBeamError runs a pipeline that must fail and returns its error.
func runBeamError(t *testing.T, opt Options) error {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	if _, err := Build(s, opt); err != nil {
		return err
	}
	err := ptest.Run(p)
	if err == nil {
		t.Fatal("the pipeline ran without error")
	}
	return err
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text, want string
	}{
		{"no-tab", "a\tfine\nb has no tab\n", "bad.tsv:2: want id TAB text, found no TAB"},
		{"shingle-header", "#neardup stage=shingle unit=char k=9 hash=tok64 seed=1 counts=no\na\ttext\n", "bad.tsv:1: input already went through shingle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "bad.tsv")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			// The command line says the same.
			var stdout, stderr bytes.Buffer
			if code := cli.Run(cli.Shingle(), []string{"shingle", path}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("shingle: exit %d, %s", code, stderr.String())
			}
			opt := Defaults()
			opt.Inputs = []string{path}
			opt.Output = filepath.Join(t.TempDir(), "out")
			opt.Write = []string{OutShingles}
			if err := runBeamError(t, opt); !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	opt := Defaults()
	opt.Inputs = []string{filepath.Join(dir, "missing-*.tsv")}
	opt.Output = filepath.Join(t.TempDir(), "out")
	if err := runBeamError(t, opt); !strings.Contains(err.Error(), "missing-*.tsv: no such file") {
		t.Fatalf("got %v", err)
	}
}

func TestShards(t *testing.T) {
	dir := t.TempDir()
	inputs := writeCorpus(t, dir, 600, 2, synth.JSONL)
	opt := Defaults()
	opt.Inputs = inputs
	opt.Write = AllOutputs
	opt.Threshold, opt.VerifyThreshold = 0.6, 0.6
	opt.Output = filepath.Join(t.TempDir(), "one")
	one := runBeam(t, opt)
	opt.Output = filepath.Join(t.TempDir(), "three")
	opt.Shards = 3
	three := runBeam(t, opt)
	for _, o := range AllOutputs {
		sameLines(t, o, three[o], one[o])
		var headers string
		for i := range 3 {
			data, err := os.ReadFile(ShardPath(opt.Output, o, i, 3))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			n := 0
			for n < len(lines) && strings.HasPrefix(lines[n], "#neardup ") {
				n++
			}
			if i == 0 {
				headers = strings.Join(lines[:n], "\n")
			} else if h := strings.Join(lines[:n], "\n"); h != headers {
				t.Errorf("%s shard %d: headers\n%s\nwant\n%s", o, i, h, headers)
			}
			if !slices.IsSorted(lines[n:]) {
				t.Errorf("%s shard %d: records not sorted", o, i)
			}
		}
	}
	if n := bytes.Count(withoutHeaders(one[OutClusters]), []byte{'\n'}); n < 50 {
		t.Fatalf("only %d clustered documents: the fixture plants too few", n)
	}
}

func TestEmptyInput(t *testing.T) {
	// An empty input gives empty outputs, as on the command line.
	path := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := runStage(t, "shingle", path); len(out) != 0 {
		t.Fatalf("shingle wrote %q", out)
	}
	opt := Defaults()
	opt.Inputs = []string{path}
	opt.Output = filepath.Join(t.TempDir(), "out")
	opt.Write = AllOutputs
	for o, data := range runBeam(t, opt) {
		if len(data) != 0 {
			t.Errorf("%s: %q", o, data)
		}
	}
}

func TestMayMatchJSONL(t *testing.T) {
	for pattern, want := range map[string]bool{
		"a.jsonl": true, "dir/*.json.gz": true, "gs://b/c/*": true, "corpus.*": true, "x/*.gz": true, "d/*.jsonl*": true,
		"a.tsv": false, "dir/*.tsv.zst": false, "dir/file": false, "gs://b/*.txt": false,
	} {
		if got := mayMatchJSONL(pattern); got != want {
			t.Errorf("mayMatchJSONL(%q) = %v, want %v", pattern, got, want)
		}
	}
}
