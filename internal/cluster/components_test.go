package cluster

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// run runs the stage on input (a file's contents) and returns its output
// without header lines.
func run(t *testing.T, opt Options, input string) (string, string, error) {
	t.Helper()
	out, errOut, err := testutil.Run(t, Run, opt, testutil.WriteFile(t, "in.tsv", input))
	return testutil.Records(out), errOut, err
}

func defaults(method string) Options {
	return Options{Method: method, Threshold: 0.8, Represent: RepresentFirst, Common: stream.Common{Jobs: 2}}
}

type randomGraph struct {
	ids   []string
	edges [][2]int
	sims  []float64
}

// newRandomGraph makes n ids (some with escaped bytes, some sharing
// prefixes) and m random edges with similarities.
func newRandomGraph(rng *rand.Rand, n, m int) randomGraph {
	var g randomGraph
	seen := map[string]bool{}
	for len(g.ids) < n {
		id := fmt.Sprintf("%x", rng.IntN(4*n))
		switch rng.IntN(5) {
		case 0:
			id += `\t` + id
		case 1:
			id = "Z" + id
		}
		if !seen[id] {
			seen[id] = true
			g.ids = append(g.ids, id)
		}
	}
	for range m {
		a, b := rng.IntN(n), rng.IntN(n)
		if a == b {
			continue
		}
		g.edges = append(g.edges, [2]int{a, b})
		g.sims = append(g.sims, float64(rng.IntN(1000001))/1e6)
	}
	return g
}

func (g randomGraph) pairs(scored bool) string {
	var b strings.Builder
	b.WriteString("#neardup stage=pairs max-bucket=0\n")
	for i, e := range g.edges {
		b.WriteString(g.ids[e[0]] + "\t" + g.ids[e[1]])
		if scored {
			fmt.Fprintf(&b, "\t%.6f", g.sims[i])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// expected writes the clusters given as a label per document, for the
// documents in use: named by their smallest id, sorted.
func expected(ids []string, label []int, use []bool) string {
	name := map[int]string{}
	for d, l := range label {
		if use[d] && (name[l] == "" || ids[d] < name[l]) {
			name[l] = ids[d]
		}
	}
	var lines []string
	for d, l := range label {
		if use[d] {
			lines = append(lines, name[l]+"\t"+ids[d]+"\n")
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// bruteComponents labels each document with its component by repeated
// relaxation.
func bruteComponents(n int, edges [][2]int) []int {
	label := make([]int, n)
	for i := range label {
		label[i] = i
	}
	for changed := true; changed; {
		changed = false
		for _, e := range edges {
			a, b := label[e[0]], label[e[1]]
			if a != b {
				m := min(a, b)
				for i := range label {
					if label[i] == a || label[i] == b {
						label[i] = m
					}
				}
				changed = true
			}
		}
	}
	return label
}

func inPairs(n int, edges [][2]int) []bool {
	use := make([]bool, n)
	for _, e := range edges {
		use[e[0]], use[e[1]] = true, true
	}
	return use
}

func TestComponentsAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		n := 2 + rng.IntN(60)
		g := newRandomGraph(rng, n, rng.IntN(2*n))
		want := expected(g.ids, bruteComponents(n, g.edges), inPairs(n, g.edges))
		got, _, err := run(t, defaults(Components), g.pairs(trial%2 == 0))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("trial %d: got\n%s\nwant\n%s", trial, got, want)
		}
		// The same pairs in another order, reversed, repeated: the same
		// output.
		shuffled := g
		shuffled.edges = slices.Clone(g.edges)
		rng.Shuffle(len(shuffled.edges), func(i, j int) { shuffled.edges[i], shuffled.edges[j] = shuffled.edges[j], shuffled.edges[i] })
		for i := range shuffled.edges {
			if i%3 == 0 {
				shuffled.edges[i] = [2]int{shuffled.edges[i][1], shuffled.edges[i][0]}
			}
		}
		shuffled.edges = append(shuffled.edges, g.edges...)
		got2, _, err := run(t, defaults(Components), shuffled.pairs(false))
		if err != nil {
			t.Fatal(err)
		}
		if got2 != want {
			t.Fatalf("trial %d: shuffled input gave\n%s\nwant\n%s", trial, got2, want)
		}
	}
}

func TestComponentsSingletons(t *testing.T) {
	ids := "#neardup stage=shingle unit=word k=5 hash=tok64 seed=0 counts=no\nc\t0000000000000001\na\t\nb\t0000000000000002\nd\t0000000000000003\ne\n"
	dir := t.TempDir()
	idsFile := filepath.Join(dir, "ids.tsv")
	os.WriteFile(idsFile, []byte(ids), 0o644)
	opt := defaults(Components)
	opt.Singletons, opt.IDs = true, idsFile
	got, _, err := run(t, opt, "#neardup stage=shingle unit=word k=5 hash=tok64 seed=0 counts=no\nb\td\t0.9\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\ta\nb\tb\nb\td\nc\tc\ne\te\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A sketch file as the list, headerless pairs: the pairs are pairs.
	sketches := filepath.Join(dir, "sketches.tsv")
	os.WriteFile(sketches, []byte("#neardup stage=sketch method=minhash n=1 seed=0 family=muladd64\na\t1\t0000000000000001\nb\t1\t0000000000000001\n"), 0o644)
	withSketches := opt
	withSketches.IDs = sketches
	if got, _, err := run(t, withSketches, "b\ta\n"); err != nil || got != "a\ta\na\tb\n" {
		t.Fatalf("sketches as the id list: %q %v", got, err)
	}
	// A pair of an id the list lacks is bad input.
	if _, _, err := run(t, opt, "b\tx\n"); err == nil || !strings.Contains(err.Error(), "in.tsv:1: id x is not in") {
		t.Fatalf("unknown id: err = %v", err)
	}
	// Headers of the id list that contradict the pairs' are refused.
	if _, _, err := run(t, opt, "#neardup stage=shingle unit=word k=3 hash=tok64 seed=0 counts=no\nb\td\n"); err == nil || !strings.Contains(err.Error(), "k=") {
		t.Fatalf("conflicting headers: err = %v", err)
	}
}

// bruteSplit is the chaining guard as its definition says it, recursively:
// in each component, the smallest id keeps the members whose pair with it
// reaches t; the rest is split into components on the pairs among
// themselves, and so on.
func bruteSplit(ids []string, edges [][2]int, sims []float64, t float64, use []bool) []int {
	n := len(ids)
	label := make([]int, n)
	for i := range label {
		label[i] = -1
	}
	best := map[[2]int]float64{}
	for i, e := range edges {
		k := [2]int{min(e[0], e[1]), max(e[0], e[1])}
		best[k] = max(best[k], sims[i])
	}
	var solve func(set []int)
	solve = func(set []int) {
		if len(set) == 0 {
			return
		}
		in := map[int]bool{}
		for _, d := range set {
			in[d] = true
		}
		var sub [][2]int
		for k := range best {
			if in[k[0]] && in[k[1]] {
				sub = append(sub, k)
			}
		}
		comp := bruteComponents(n, sub)
		groups := map[int][]int{}
		for _, d := range set {
			groups[comp[d]] = append(groups[comp[d]], d)
		}
		for _, members := range groups {
			rep := members[0]
			for _, m := range members {
				if ids[m] < ids[rep] {
					rep = m
				}
			}
			var rest []int
			for _, m := range members {
				k := [2]int{min(m, rep), max(m, rep)}
				if s, ok := best[k]; m == rep || ok && s >= t {
					label[m] = rep
				} else {
					rest = append(rest, m)
				}
			}
			solve(rest)
		}
	}
	var set []int
	for d := range n {
		if use[d] {
			set = append(set, d)
		}
	}
	solve(set)
	return label
}

func TestSplitAgainstRecursiveDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 60 {
		n := 2 + rng.IntN(40)
		g := newRandomGraph(rng, n, rng.IntN(3*n))
		for i := range g.sims {
			g.sims[i] = float64(int(g.sims[i]*1e6)) / 1e6
		}
		thr := 0.3 + 0.5*rng.Float64()
		use := inPairs(n, g.edges)
		want := expected(g.ids, bruteSplit(g.ids, g.edges, g.sims, thr, use), use)
		opt := defaults(Components)
		opt.Split, opt.MinSimilarity = true, thr
		got, _, err := run(t, opt, g.pairs(true))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("trial %d (t=%g): got\n%s\nwant\n%s", trial, thr, got, want)
		}
	}
}

func TestChainingReport(t *testing.T) {
	// a~b 0.9, b~c 0.85 (a, c unrelated): one component; c is verified to
	// nothing but b.
	pairs := "a\tb\t0.900000\nb\tc\t0.850000\nx\ty\t1.000000\nx\tz\t0.950000\n"
	dir := t.TempDir()
	opt := defaults(Components)
	opt.Report = filepath.Join(dir, "report.tsv")
	opt.Stats = true
	got, stderr, err := run(t, opt, pairs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\ta\na\tb\na\tc\nx\tx\nx\ty\nx\tz\n"; got != want {
		t.Fatalf("clusters: got\n%s", got)
	}
	report, _ := os.ReadFile(opt.Report)
	if want := "a\t3\t1\t0.900000\nx\t3\t2\t0.950000\n"; testutil.Records(string(report)) != want {
		t.Fatalf("report: got\n%s\nwant\n%s", report, want)
	}
	if !strings.Contains(stderr, "6 documents in 2 clusters") || !strings.Contains(stderr, "1 verified to it, least similarity 0.900000") {
		t.Fatalf("stats: %s", stderr)
	}

	opt = defaults(Components)
	opt.Split, opt.MinSimilarity, opt.Stats = true, 0.8, true
	got, stderr, err = run(t, opt, pairs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\ta\na\tb\nc\tc\nx\tx\nx\ty\nx\tz\n"; got != want {
		t.Fatalf("split: got\n%s", got)
	}
	if !strings.Contains(stderr, "split 2 connected components into 3 clusters") {
		t.Fatalf("split stats: %s", stderr)
	}

	// The guard needs similarities.
	if _, _, err := run(t, opt, "a\tb\n"); err == nil || !strings.Contains(err.Error(), "in.tsv:1: ") || !strings.Contains(err.Error(), "scored pairs") {
		t.Fatalf("candidate pairs under the guard: err = %v", err)
	}
	if _, _, err := run(t, opt, "a\tb\t1.5\n"); err == nil || !strings.Contains(err.Error(), "in.tsv:1: similarity") {
		t.Fatalf("similarity 1.5: err = %v", err)
	}
}

func TestComponentsBadInput(t *testing.T) {
	opt := defaults(Components)
	if _, _, err := run(t, opt, "a\tb\nab\n"); err == nil || !strings.Contains(err.Error(), "in.tsv:2: ") {
		t.Fatalf("err = %v", err)
	}
	opt.SkipBad = true
	got, stderr, err := run(t, opt, "a\tb\nab\n\tc\n")
	if err != nil || got != "a\ta\na\tb\n" || !strings.Contains(stderr, "skipped 2 bad line(s)") {
		t.Fatalf("skip-bad: %q %q %v", got, stderr, err)
	}
	if _, _, err := run(t, defaults(Components), "#neardup stage=sketch method=minhash n=2 seed=0 family=muladd64\na\t3\t0000000000000001 0000000000000002\n"); err == nil || !strings.Contains(err.Error(), "sketches, not pairs") {
		t.Fatalf("sketches as pairs: err = %v", err)
	}
	// Empty input: empty output.
	var out bytes.Buffer
	name := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(name, nil, 0o644)
	if err := Run(context.Background(), opt, []string{name}, &out, &out); err != nil || out.Len() != 0 {
		t.Fatalf("empty input: %q %v", out.String(), err)
	}
}

func TestCanonicalIDs(t *testing.T) {
	// a\qb is refused: \q is not an escape, and a\qb is not the id a\\qb.
	if _, _, err := run(t, defaults(Components), "a\\\\qb\tc\na\\qb\td\n"); err == nil || !strings.Contains(err.Error(), "in.tsv:2: id a\\qb: \\q is not an escape") {
		t.Fatalf("err = %v, want a\\qb refused at in.tsv:2", err)
	}
	got, _, err := run(t, defaults(Components), "a\\\\qb\tc\na\\\\qb\td\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\\\\qb\ta\\\\qb\na\\\\qb\tc\na\\\\qb\td\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
