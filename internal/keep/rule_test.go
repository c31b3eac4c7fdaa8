package keep

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/testutil"
)

// keepPairs runs keep --pairs over docs (TSV) and returns the output, the
// report and stderr.
func keepPairs(t *testing.T, opt Options, pairs, docs string) (out, report, stderr string) {
	t.Helper()
	dir := t.TempDir()
	opt.Pairs = testutil.WriteFileIn(t, dir, "scored.tsv", []byte(pairs))
	opt.Report = filepath.Join(dir, "report.tsv")
	// As the command line does: the documents are read as the pairs'
	// shingle header says.
	opt.Given = input.ReadingFlags{Reading: input.Reading{IDField: "id", TextField: "text"}}
	out, stderr = runKeep(t, opt, testutil.WriteFileIn(t, dir, "docs.tsv", []byte(docs)))
	rep, err := os.ReadFile(opt.Report)
	if err != nil {
		t.Fatal(err)
	}
	return out, string(rep), stderr
}

// TestRuleChain: A~B and B~C, A and C unrelated, arriving A, B, C: B and C
// are dropped, C via B, both in A's cluster; in the other arrival order the
// other end stays.
func TestRuleChain(t *testing.T) {
	pairs := "#neardup stage=verify measure=jaccard threshold=0.8 containment=no\nA\tB\t0.900000\nB\tC\t0.850000\n"
	out, rep, stderr := keepPairs(t, Options{Stats: true}, pairs, "A\ta\nB\tb\nC\tc\nD\td\n")
	if out != "A\ta\nD\td\n" {
		t.Errorf("kept %q", out)
	}
	if want := "B\tA\tA\t0.900000\nC\tA\tB\t0.850000\n"; rep != want {
		t.Errorf("report %q, want %q", rep, want)
	}
	if !strings.Contains(stderr, "keep: 2 kept, 2 dropped") {
		t.Errorf("stderr %q", stderr)
	}
	out, rep, _ = keepPairs(t, Options{}, pairs, "C\tc\nB\tb\nA\ta\n")
	if out != "C\tc\n" || rep != "B\tC\tC\t0.850000\nA\tC\tB\t0.900000\n" {
		t.Errorf("arriving C, B, A: kept %q, report %q", out, rep)
	}
	// --annotate names every document's cluster after the kept one; with
	// --drop only the dropped ones are written.
	out, _, _ = keepPairs(t, Options{Annotate: true}, pairs, "A\ta\nB\tb\nC\tc\nD\td\n")
	if out != "A\ta\tA\nB\tb\tA\nC\tc\tA\nD\td\tD\n" {
		t.Errorf("--annotate: %q", out)
	}
	out, _, _ = keepPairs(t, Options{Annotate: true, Drop: true}, pairs, "A\ta\nB\tb\nC\tc\nD\td\n")
	if out != "B\tb\tA\nC\tc\tA\n" {
		t.Errorf("--annotate --drop: %q", out)
	}
}

// TestRuleVia: a document is dropped for its most similar earlier partner,
// ties to the earliest; a later partner does not count.
func TestRuleVia(t *testing.T) {
	pairs := "a\td\t0.800000\nb\td\t0.900000\nc\td\t0.900000\nd\te\t0.990000\n"
	// a, b, c are not pairs of each other: all stay.
	_, rep, _ := keepPairs(t, Options{}, pairs, "c\t\nb\t\na\t\nd\t\ne\t\n")
	if want := "d\tc\tc\t0.900000\ne\tc\td\t0.990000\n"; rep != want {
		t.Errorf("report %q, want %q", rep, want)
	}
}

// TestRuleCopies: a group of copies paired against its representatives
// (pairs --max-bucket) drops all but its first document.
func TestRuleCopies(t *testing.T) {
	var pairs, docs strings.Builder
	const copies, reps = 500, 3
	id := func(i int) string { return "d" + strings.Repeat("0", 4-len(itoa(i))) + itoa(i) }
	for a := range reps {
		for b := a + 1; b < copies; b++ {
			pairs.WriteString(id(a) + "\t" + id(b) + "\t1.000000\n")
		}
	}
	for i := range copies {
		docs.WriteString(id(i) + "\tthe same text\n")
	}
	out, rep, _ := keepPairs(t, Options{}, pairs.String(), docs.String())
	if out != id(0)+"\tthe same text\n" {
		t.Errorf("kept %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(rep, "\n"), "\n")
	if len(lines) != copies-1 {
		t.Fatalf("%d report lines, want %d", len(lines), copies-1)
	}
	for _, l := range lines {
		if f := strings.Split(l, "\t"); f[1] != id(0) || f[2] != id(0) {
			t.Fatalf("report line %q: want kept and via %s", l, id(0))
		}
	}
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		if i /= 10; i == 0 {
			return s
		}
	}
}

// TestRuleNotInInput: a partner that is not in the input came in an older
// batch: the document is dropped for it, counted on stderr. Found by a
// first pass, or, with arrival numbers (ids=number from=N in the shingle
// header), by the number.
func TestRuleNotInInput(t *testing.T) {
	pairs := "old\tnew1\t0.900000\nnew1\tnew2\t0.950000\nnew2\tnew3\t0.850000\n"
	out, rep, stderr := keepPairs(t, Options{}, pairs, "new2\t\nnew3\t\nnew1\t\n")
	// new2 first: its partner new1 comes later, so it stays; new3 goes via
	// new2; new1 has old (before the input) and new2 (earlier) and goes for
	// new2, the more similar.
	if out != "new2\t\n" || rep != "new3\tnew2\tnew2\t0.850000\nnew1\tnew2\tnew2\t0.950000\n" {
		t.Errorf("kept %q, report %q", out, rep)
	}
	if !strings.Contains(stderr, "keep: 1 pair(s) with documents not in the input, taken as seen before") {
		t.Errorf("stderr %q", stderr)
	}
	_, rep, _ = keepPairs(t, Options{}, "old\tnew1\t0.900000\nnew1\tnew2\t0.900000\n", "new1\t\nnew2\t\n")
	if rep != "new1\told\told\t0.900000\nnew2\told\tnew1\t0.900000\n" {
		t.Errorf("a chain from an older batch: report %q", rep)
	}

	// Arrival numbers: the same decisions, in one pass.
	head := "#neardup stage=shingle unit=char k=9 hash=tok64 seed=0 counts=no ids=number from=5\n"
	num := "000000000002\t000000000005\t0.900000\n000000000005\t000000000006\t0.900000\n000000000006\t000000000009\t0.900000\n"
	// The report names the documents by their own ids too (the TSV ids,
	// which the numbers replace): "-" for the older batch's, not known,
	// counted.
	docs := "doc5\t\ndoc6\t\ndoc7\t\n"
	out, rep, stderr = keepPairs(t, Options{}, head+num, docs)
	if out != "doc7\t\n" || rep != "000000000005\t000000000002\t000000000002\t0.900000\tdoc5\t-\t-\n000000000006\t000000000002\t000000000005\t0.900000\tdoc6\t-\tdoc5\n" {
		t.Errorf("numbered: kept %q, report %q", out, rep)
	}
	if !strings.Contains(stderr, "1 pair(s) with documents not in the input") ||
		!strings.Contains(stderr, "keep: 3 own id(s) of kept or via documents not known (of an earlier batch, in no --id-map): written \"-\" in the report\n") {
		t.Errorf("numbered: stderr %q", stderr)
	}
	// The older batch's own ids from its map (--id-map), of which keep
	// takes the one the report names.
	o := Options{IDMaps: []string{testutil.WriteFileIn(t, t.TempDir(), "ids.tsv", []byte("000000000001\told1\n000000000002\told2\n000000000003\told3\n"))}}
	_, rep, stderr = keepPairs(t, o, head+num, docs)
	if rep != "000000000005\t000000000002\t000000000002\t0.900000\tdoc5\told2\told2\n000000000006\t000000000002\t000000000005\t0.900000\tdoc6\told2\tdoc5\n" {
		t.Errorf("numbered, --id-map: report %q", rep)
	}
	if strings.Contains(stderr, "not known") {
		t.Errorf("numbered, --id-map: stderr %q", stderr)
	}
}

// TestClustersNaming: with --clusters, --annotate and --report name a
// cluster after the document kept, whatever --prefer.
func TestClustersNaming(t *testing.T) {
	dir := t.TempDir()
	clusters := testutil.WriteFileIn(t, dir, "c.tsv", []byte("a\ta\na\tb\na\tc\n"))
	docs := testutil.WriteFileIn(t, dir, "d.tsv", []byte("b\tshort\na\tmiddle\nc\tthe longest\nx\tnone\n"))
	for _, c := range []struct{ prefer, kept string }{{PreferFirst, "b"}, {PreferLongest, "c"}, {PreferShortest, "b"}, {PreferID, "a"}} {
		report := filepath.Join(dir, "r-"+c.prefer)
		out, _ := runKeep(t, Options{Clusters: clusters, Prefer: c.prefer, Annotate: true, Report: report}, docs)
		k := c.kept
		want := "b\tshort\t" + k + "\na\tmiddle\t" + k + "\nc\tthe longest\t" + k + "\nx\tnone\tx\n"
		if out != want {
			t.Errorf("--prefer %s --annotate: %q, want %q", c.prefer, out, want)
		}
		rep, _ := os.ReadFile(report)
		var wantRep strings.Builder
		for _, id := range []string{"b", "a", "c"} {
			if id != k {
				wantRep.WriteString(id + "\t" + k + "\t" + k + "\t-\n")
			}
		}
		if string(rep) != wantRep.String() {
			t.Errorf("--prefer %s --report: %q, want %q", c.prefer, rep, wantRep.String())
		}
	}
}

// TestRuleBatches: on random graphs, the documents in batches, each batch
// decided with the pairs that hold one of its documents (pairs --against),
// keep exactly what one run over all of them keeps, with ids of any order
// (two passes) and with arrival numbers (one pass).
func TestRuleBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for round := range 20 {
		n := 20 + rng.IntN(60)
		numbered := round%2 == 1
		id := func(i int) string {
			if numbered {
				return fmt.Sprintf("%012d", i)
			}
			return fmt.Sprintf("doc-%d", (i*7919)%1000) // not in arrival order
		}
		type pair struct{ a, b int }
		var ps []pair
		for range n * 2 {
			a, b := rng.IntN(n), rng.IntN(n)
			if a != b {
				ps = append(ps, pair{min(a, b), max(a, b)})
			}
		}
		write := func(from, to int, head bool) (pairs, docs string) {
			var p, d strings.Builder
			if head && numbered {
				fmt.Fprintf(&p, "#neardup stage=shingle unit=char k=9 hash=tok64 seed=0 counts=no ids=number from=%d\n", from)
			}
			for _, x := range ps {
				if x.b >= from && x.b < to { // one of the batch, the other before or in it
					a, b := id(x.a), id(x.b)
					if a > b {
						a, b = b, a
					}
					fmt.Fprintf(&p, "%s\t%s\t%.6f\n", a, b, 0.8+0.2*float64((x.a*31+x.b)%7)/7)
				}
			}
			for i := from; i < to; i++ {
				fmt.Fprintf(&d, "%s\ttext %d\n", id(i), i)
			}
			return p.String(), d.String()
		}
		allPairs, allDocs := write(0, n, true)
		want, wantRep, _ := keepPairs(t, Options{}, allPairs, allDocs)
		var got, gotRep strings.Builder
		for from := 0; from < n; {
			to := min(n, from+1+rng.IntN(n/2))
			p, d := write(from, to, true)
			out, rep, _ := keepPairs(t, Options{}, p, d)
			got.WriteString(out)
			gotRep.WriteString(rep)
			from = to
		}
		if got.String() != want {
			t.Fatalf("round %d (numbered %v): batches keep\n%s\none run keeps\n%s", round, numbered, got.String(), want)
		}
		// The dropped documents and their similarities are the same, and
		// with arrival numbers what they were dropped for; kept differs
		// where a chain leaves a batch (it ends at the document of the
		// older batch). Without numbers a batch does not know the order of
		// the older documents: ties among them go to the smallest id.
		cut := func(rep string) string {
			var b strings.Builder
			for _, l := range strings.SplitAfter(rep, "\n") {
				if f := strings.Split(l, "\t"); len(f) == 4 {
					if !numbered {
						f[2] = ""
					}
					b.WriteString(f[0] + "\t" + f[2] + "\t" + f[3])
				}
			}
			return b.String()
		}
		if cut(gotRep.String()) != cut(wantRep) {
			t.Fatalf("round %d: the batches' reports differ from the one run's in dropped, via or similarity", round)
		}
	}
}
