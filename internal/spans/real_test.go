package spans

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// realCorpus reads real text of this machine: Go source files of several
// packages (licence headers, repeated code), Debian copyright files
// (licence texts) and man pages in several languages (their boilerplate),
// at most max files of each kind, in a fixed order.
func realCorpus(t *testing.T, max int) []doc {
	var docs []doc
	add := func(pattern string, gz bool) {
		names, _ := filepath.Glob(pattern)
		sort.Strings(names)
		if len(names) > max {
			names = names[:max]
		}
		for _, name := range names {
			f, err := os.Open(name)
			if err != nil {
				continue
			}
			var r io.Reader = f
			if gz {
				if zr, err := gzip.NewReader(f); err == nil {
					r = zr
				}
			}
			b, err := io.ReadAll(r)
			f.Close()
			if err != nil || len(b) > 1<<20 {
				continue
			}
			docs = append(docs, doc{id: name, text: string(record.Escape(nil, b))})
		}
	}
	root := runtime.GOROOT()
	for _, pkg := range []string{"strings", "bytes", "bufio", "sort", "unicode/utf8", "encoding/csv", "text/tabwriter"} {
		add(filepath.Join(root, "src", pkg, "*.go"), false)
	}
	add("/usr/share/doc/*/copyright", false)
	for _, lang := range []string{"", "de/", "fr/", "ru/", "ja/", "zh_CN/"} {
		add("/usr/share/man/"+lang+"man1/*.gz", true)
	}
	if len(docs) < 50 {
		t.Skipf("only %d files of real text here", len(docs))
	}
	return docs
}

// TestRealText compares the stage with the brute force on real text, for
// N = 50 and 13, in memory and spilled.
func TestRealText(t *testing.T) {
	testutil.Slow(t)
	docs := realCorpus(t, 150)
	name := writeDocs(t, docs)
	for _, n := range []int{50, 13} {
		want := bruteForce(t, docs, n)
		for _, mem := range []int64{0, 1 << 20} {
			opt := Options{Tokens: n, Width: true, MemoryBytes: mem, TempDir: t.TempDir(), Common: stream.Common{Jobs: 2}}
			got, stderr := runStage(t, opt, name)
			if !slices.Equal(got, want) {
				t.Errorf("n=%d --memory %d: %d records, want %d (brute force)\n%s", n, mem, len(got), len(want), diff(got, want))
			}
			if mem != 0 && !strings.Contains(stderr, "spilled") {
				t.Errorf("n=%d --memory %d spilled nothing:\n%s", n, mem, stderr)
			}
			t.Logf("n=%d --memory %d: %d documents, %d records (brute force: %d)\n%s", n, mem, len(docs), len(got), len(want), stderr)
		}
	}
}
