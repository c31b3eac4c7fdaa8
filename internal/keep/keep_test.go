package keep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/testutil"
)

// A TSV corpus: CRLF and LF line ends, escaped ids, a header line, a last
// line without a line end. Clusters: {a\tb, c, e} and {d, f}; g and h in none.
var tsvDocs = []string{
	"#neardup stage=docs x=1\n",
	"a\\tb\tthe first text\r\n",
	"c\ta much longer text than the others\n",
	"d\tshort\n",
	"e\tmiddle sized\n",
	"g\tin no cluster\n",
	"f\tshortest?\n",
	"h\tlast, no line end",
}

const tsvClusters = "#neardup stage=cluster method=components\na\\tb\ta\\tb\na\\tb\tc\na\\tb\te\nd\td\nd\tf\nz\tz\nz\ty\n"

func runKeep(t *testing.T, opt Options, inputs ...string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	opt.Jobs = 2
	if opt.Prefer == "" {
		opt.Prefer = PreferFirst
	}
	if opt.ClusterField == "" {
		opt.ClusterField = "cluster"
	}
	if opt.IDField == "" {
		opt.IDField, opt.TextField = "id", "text"
	}
	if err := Run(context.Background(), opt, inputs, &out, &errOut); err != nil {
		t.Fatalf("%+v: %v", opt, err)
	}
	return out.String(), errOut.String()
}

func pick(docs []string, idx ...int) string {
	var b strings.Builder
	for _, i := range idx {
		b.WriteString(docs[i])
	}
	return b.String()
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func zst(b []byte) []byte {
	w, _ := zstd.NewWriter(nil)
	defer w.Close()
	return w.EncodeAll(b, nil)
}

func TestKeepTSV(t *testing.T) {
	dir := t.TempDir()
	corpus := []byte(strings.Join(tsvDocs, ""))
	clusters := testutil.WriteFileIn(t, dir, "clusters.tsv", []byte(tsvClusters))
	last := "h\tlast, no line end\n" // a line end is added
	for _, name := range []string{"docs.tsv", "docs.tsv.gz", "docs.tsv.zst"} {
		data := corpus
		switch filepath.Ext(name) {
		case ".gz":
			data = gz(corpus)
		case ".zst":
			data = zst(corpus)
		}
		in := testutil.WriteFileIn(t, dir, name, data)
		for _, c := range []struct {
			opt  Options
			want string
		}{
			{Options{Prefer: PreferFirst}, pick(tsvDocs, 0, 1, 3, 5) + last},
			{Options{Prefer: PreferID}, pick(tsvDocs, 0, 1, 3, 5) + last},
			{Options{Prefer: PreferLongest}, pick(tsvDocs, 0, 2, 5, 6) + last},
			{Options{Prefer: PreferShortest}, pick(tsvDocs, 0, 3, 4, 5) + last},
			// --drop copies the header lines too.
			{Options{Prefer: PreferFirst, Drop: true}, pick(tsvDocs, 0, 2, 4, 6)},
			{Options{Prefer: PreferLongest, Drop: true}, pick(tsvDocs, 0, 1, 3, 4)},
			{Options{Annotate: true}, "#neardup stage=docs x=1\n" +
				"a\\tb\tthe first text\ta\\tb\r\n" +
				"c\ta much longer text than the others\ta\\tb\n" +
				"d\tshort\td\n" +
				"e\tmiddle sized\ta\\tb\n" +
				"g\tin no cluster\tg\n" +
				"f\tshortest?\td\n" +
				"h\tlast, no line end\th\n"},
		} {
			c.opt.Clusters = clusters
			got, _ := runKeep(t, c.opt, in)
			if got != c.want {
				t.Errorf("%s %+v:\ngot\n%q\nwant\n%q", name, c.opt, got, c.want)
			}
		}
	}
}

func TestKeepJSONL(t *testing.T) {
	dir := t.TempDir()
	docs := []string{
		`{"id": "a\tb", "text": "first", "meta": {"x": [1, 2]}}` + "\n",
		`{"text":"no id: line 2","id":null}` + "\n",
		`{"id":7,"text":"number id, the longest of all"}` + "  \n",
		`{ "id" : "q\"", "text" : "quote in id" }` + "\r\n",
		`{"id":"z","text":""}` + "\n",
	}
	clusters := testutil.WriteFileIn(t, dir, "c.tsv", []byte("a\\tb\ta\\tb\na\\tb\t2\na\\tb\t7\nq\"\tq\"\n"))
	in := testutil.WriteFileIn(t, dir, "docs.jsonl", []byte(strings.Join(docs, "")))
	got, _ := runKeep(t, Options{Clusters: clusters}, in)
	if want := pick(docs, 0, 3, 4); got != want {
		t.Errorf("first: got\n%s\nwant\n%s", got, want)
	}
	got, _ = runKeep(t, Options{Clusters: clusters, Prefer: PreferLongest}, in)
	if want := pick(docs, 2, 3, 4); got != want {
		t.Errorf("longest: got\n%s\nwant\n%s", got, want)
	}
	got, _ = runKeep(t, Options{Clusters: clusters, Prefer: PreferID, Drop: true}, in)
	if want := pick(docs, 0, 2); got != want { // "2" < "7" < "a\tb"
		t.Errorf("id, drop: got\n%s\nwant\n%s", got, want)
	}
	got, _ = runKeep(t, Options{Clusters: clusters, Annotate: true, ClusterField: "dup"}, in)
	want := `{"id": "a\tb", "text": "first", "meta": {"x": [1, 2]},"dup":"a\tb"}` + "\n" +
		`{"text":"no id: line 2","id":null,"dup":"a\tb"}` + "\n" +
		`{"id":7,"text":"number id, the longest of all","dup":"a\tb"}` + "  \n" +
		`{ "id" : "q\"", "text" : "quote in id" ,"dup":"q\""}` + "\r\n" +
		`{"id":"z","text":"","dup":"z"}` + "\n"
	if got != want {
		t.Errorf("annotate: got\n%s\nwant\n%s", got, want)
	}
	empty := testutil.WriteFileIn(t, dir, "empty.jsonl", []byte("{}\n"))
	if _, err := os.Stat(empty); err == nil {
		var out, errOut bytes.Buffer
		err := Run(context.Background(), Options{Reading: input.Reading{IDField: "id", TextField: "text"}, Clusters: clusters, Prefer: PreferFirst, Annotate: true}, []string{empty}, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), "empty.jsonl:1: no \"text\" field") {
			t.Errorf("a document without text: %v", err)
		}
	}
}

func TestKeepLinesAndFiles(t *testing.T) {
	dir := t.TempDir()
	a := testutil.WriteFileIn(t, dir, "a.txt", []byte("one\ntwo\nthree\n"))
	b := testutil.WriteFileIn(t, dir, "b.txt", []byte("four\r\nfive"))
	// Lines: ids are line numbers across inputs.
	clusters := testutil.WriteFileIn(t, dir, "c.tsv", []byte("1\t1\n1\t3\n1\t5\n"))
	got, _ := runKeep(t, Options{Reading: input.Reading{Format: "lines"}, Clusters: clusters}, a, b)
	if want := "one\ntwo\nfour\r\n"; got != want {
		t.Errorf("lines: got %q want %q", got, want)
	}
	got, _ = runKeep(t, Options{Reading: input.Reading{Format: "lines"}, Clusters: clusters, Prefer: PreferLongest}, a, b)
	if want := "two\nthree\nfour\r\n"; got != want {
		t.Errorf("lines, longest: got %q want %q", got, want)
	}
	// Files: each file a document, the path written.
	fc := testutil.WriteFileIn(t, dir, "fc.tsv", []byte(a+"\t"+a+"\n"+a+"\t"+b+"\n"))
	got, _ = runKeep(t, Options{Reading: input.Reading{Format: "files"}, Clusters: fc, Prefer: PreferShortest}, a, b)
	if want := b + "\n"; got != want {
		t.Errorf("files, shortest: got %q want %q", got, want)
	}
	got, _ = runKeep(t, Options{Reading: input.Reading{Format: "files"}, Clusters: fc, Annotate: true}, a, b)
	if want := a + "\t" + a + "\n" + b + "\t" + a + "\n"; got != want {
		t.Errorf("files, annotate: got %q want %q", got, want)
	}
}

func TestKeepStdinTwoPasses(t *testing.T) {
	dir := t.TempDir()
	clusters := testutil.WriteFileIn(t, dir, "clusters.tsv", []byte(tsvClusters))
	in := testutil.WriteFileIn(t, dir, "in", gz([]byte(strings.Join(tsvDocs, ""))))
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	got, _ := runKeep(t, Options{Clusters: clusters, Prefer: PreferLongest, TempDir: dir})
	if want := pick(tsvDocs, 0, 2, 5, 6) + "h\tlast, no line end\n"; got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the copy of standard input was left: %v", entries)
	}
}

func TestKeepBadInput(t *testing.T) {
	dir := t.TempDir()
	in := testutil.WriteFileIn(t, dir, "docs.tsv", []byte("a\tx\nbad line\n"))
	clusters := testutil.WriteFileIn(t, dir, "c.tsv", []byte("a\ta\n"))
	var out, errOut bytes.Buffer
	opt := Options{Reading: input.Reading{IDField: "id", TextField: "text"}, Clusters: clusters, Prefer: PreferFirst}
	if err := Run(context.Background(), opt, []string{in}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "docs.tsv:2: want id TAB text") {
		t.Fatalf("bad document: %v", err)
	}
	opt.SkipBad = true
	out.Reset()
	if err := Run(context.Background(), opt, []string{in}, &out, &errOut); err != nil || out.String() != "a\tx\n" {
		t.Fatalf("skip-bad: %q %v", out.String(), err)
	}
	two := testutil.WriteFileIn(t, dir, "two.tsv", []byte("a\ta\nb\ta\nb\tb\n"))
	opt.SkipBad = false
	opt.Clusters = two
	if err := Run(context.Background(), opt, []string{in}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "two.tsv:2: id a is in cluster a and in cluster b") {
		t.Fatalf("an id in two clusters: %v", err)
	}
}
