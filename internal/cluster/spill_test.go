package cluster

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestComponentsSpilled: with --memory too small for the documents, the
// pairs spill and the output is the one of the run in memory and of the
// brute force, for any --memory, -j and point where the spilling begins;
// stderr says so, and --stats says the same.
func TestComponentsSpilled(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	spilledLine := regexp.MustCompile(`(?m)^cluster: \d+ documents passed --memory .*\n(cluster: the union-find .*\n)?`)
	for round := range 10 {
		n := 50 + rng.IntN(700)
		g := newRandomGraph(rng, n, rng.IntN(2*n))
		// A self-pair and a repeated pair.
		g.edges = append(g.edges, [2]int{0, 0}, [2]int{1, 2}, [2]int{2, 1})
		g.sims = append(g.sims, 1, 1, 1)
		input := g.pairs(round%2 == 0)
		want := expected(g.ids, bruteComponents(n, g.edges), inPairs(n, g.edges))
		opt := defaults(Components)
		opt.Stats = true
		inMemory, inMemoryErr, err := run(t, opt, input)
		if err != nil {
			t.Fatal(err)
		}
		if inMemory != want {
			t.Fatalf("round %d: in memory\n%s\nbrute force\n%s", round, inMemory, want)
		}
		for _, mem := range []int64{1 << 10, 16 << 10, 1 << 20} {
			o := opt
			o.MemoryBytes, o.TempDir, o.Jobs = mem, t.TempDir(), 1+int(mem%3)
			got, gotErr, err := run(t, o, input)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("round %d, --memory %d: spilled\n%s\nwant\n%s", round, mem, got, want)
			}
			spilled := spilledLine.MatchString(gotErr)
			if mem < 16<<10 && !spilled {
				t.Errorf("round %d, --memory %d: stderr does not say it spilled: %q", round, mem, gotErr)
			}
			if s := spilledLine.ReplaceAllString(gotErr, ""); s != inMemoryErr {
				t.Errorf("round %d, --memory %d: --stats says\n%s\nin memory\n%s", round, mem, s, inMemoryErr)
			}
		}
	}
}

// TestComponentsOverMemory: the guard and the report hold their documents
// in memory whatever --memory, and say so.
func TestComponentsOverMemory(t *testing.T) {
	g := newRandomGraph(rand.New(rand.NewPCG(1, 2)), 500, 800)
	opt := defaults(Components)
	opt.Split, opt.MinSimilarity, opt.MemoryBytes = true, 0.5, 1<<10
	_, stderr, err := run(t, opt, g.pairs(true))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "beyond --memory 1K: --singletons, --report and --min-similarity-to-representative hold them in memory, not spilled") {
		t.Errorf("stderr %q", stderr)
	}
}
