package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// graph returns scored-pair records for edges between named nodes, each
// pair once with a < b.
func graph(edges [][2]string) []string {
	seen := map[[2]string]bool{}
	var recs []string
	for _, e := range edges {
		a, b := min(e[0], e[1]), max(e[0], e[1])
		if a == b || seen[[2]string{a, b}] {
			continue
		}
		seen[[2]string{a, b}] = true
		recs = append(recs, a+"\t"+b+"\t1.000000")
	}
	return recs
}

// shuffledNames returns n distinct node names in random order, so that a
// path does not visit them in increasing order.
func shuffledNames(r *rand.Rand, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("doc%04d", i)
	}
	r.Shuffle(n, func(i, j int) { names[i], names[j] = names[j], names[i] })
	return names
}

// counter returns the total of a counter of a pipeline run.
func counter(res beam.PipelineResult, name string) int64 {
	total := int64(0)
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Name() == name {
			total += c.Result()
		}
	}
	return total
}

func TestComponents(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var path, random, mixed [][2]string
	names := shuffledNames(r, 300)
	for i := 1; i < len(names); i++ {
		path = append(path, [2]string{names[i-1], names[i]})
	}
	// Sparse random graph: many small components and some larger ones.
	names = shuffledNames(r, 600)
	for range 500 {
		random = append(random, [2]string{names[r.IntN(600)], names[r.IntN(600)]})
	}
	// Two long paths joined in the middle, a star, and a cycle, in one graph.
	names = shuffledNames(r, 400)
	for i := 1; i < 150; i++ {
		mixed = append(mixed, [2]string{names[i-1], names[i]}, [2]string{names[149+i], names[150+i]})
	}
	mixed = append(mixed, [2]string{names[75], names[225]})
	for i := 301; i < 350; i++ {
		mixed = append(mixed, [2]string{names[300], names[i]})
	}
	for i := 351; i < 400; i++ {
		mixed = append(mixed, [2]string{names[i-1], names[i]})
	}
	mixed = append(mixed, [2]string{names[399], names[350]}, [2]string{"a\\tb", names[10]})

	for _, tc := range []struct {
		name   string
		edges  [][2]string
		rounds int
		// unsettled says whether the rounds leave edges for the union-find.
		unsettled bool
	}{
		{"path-1-round", path, 1, true},
		{"path-12-rounds", path, 12, false},
		{"random-2-rounds", random, 2, true},
		{"random-8-rounds", random, 8, false},
		{"mixed-1-round", mixed, 1, true},
		{"mixed-3-rounds", mixed, 3, true},
		{"mixed-12-rounds", mixed, 12, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scored := graph(tc.edges)
			want := strings.Split(strings.TrimSuffix(string(clustersOf([]byte(strings.Join(scored, "\n")))), "\n"), "\n")
			p, s := beam.NewPipelineWithRoot()
			got := components(s, beam.CreateList(s, scored), tc.rounds)
			passert.Equals(s, got, beam.CreateList(s, want))
			res, err := ptest.RunWithMetrics(p)
			if err != nil {
				t.Fatal(err)
			}
			unsettled := counter(res, "components-unsettled-edges")
			if (unsettled > 0) != tc.unsettled {
				t.Errorf("%d unsettled edges after %d rounds, want them %v", unsettled, tc.rounds, tc.unsettled)
			}
		})
	}
}
