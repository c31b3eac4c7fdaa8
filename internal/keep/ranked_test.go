package keep

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestRankedRule: with ids that are not arrival numbers, the ranked rule
// (pairs and ids sorted on disk, joined into ranks) writes what the general
// rule writes in memory: the documents, the report, the annotations and
// what stderr counts, with ids not in the input (before it, ordered by
// id), ids that repeat among the documents, ties, and --memory from a few
// records to all of them, under both rules (--rule arrival, kept).
func TestRankedRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 7))
	spilledLine := regexp.MustCompile(`(?m)^keep: \d+ pairs (of ids that are not arrival numbers )?beyond --memory .*\n`)
	rounds := 12
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		n := 30 + rng.IntN(300)
		// Ids of any length, some with bytes that sort oddly.
		id := func(i int) string {
			return fmt.Sprintf("%s%d", []string{"d", "d-", "D", "dd", "é"}[i%5], i*7%(n+9))
		}
		var p, d strings.Builder
		p.WriteString("#neardup stage=verify measure=jaccard threshold=0.8 containment=no\n")
		for range n * (1 + round%3) {
			// Partners beyond the input's ids too.
			a, b := rng.IntN(n+8), rng.IntN(n+8)
			if id(a) == id(b) {
				continue
			}
			sim := 0.8 + 0.2*float64(rng.IntN(4))/4 // ties
			fmt.Fprintf(&p, "%s\t%s\t%.6f\n", id(a), id(b), sim)
		}
		for i := range n {
			j := i
			if rng.IntN(10) == 0 {
				j = rng.IntN(n) // a repeated id
			}
			fmt.Fprintf(&d, "%s\ttext %d\n", id(j), i)
		}
		for _, opt := range []Options{{Stats: true}, {Annotate: true}, {Drop: true, Annotate: true}, {Rule: RuleKept, Stats: true}, {Rule: RuleKept, Drop: true, Annotate: true}} {
			want, wantRep, wantErr := keepPairs(t, opt, p.String(), d.String())
			if spilledLine.MatchString(wantErr) {
				t.Fatalf("the run in memory spilled: %q", wantErr)
			}
			for _, mem := range []int64{1 << 30, 1 << 12, 300} {
				o := opt
				o.MemoryBytes, o.ranked = mem, true
				got, gotRep, gotErr := keepPairs(t, o, p.String(), d.String())
				if got != want || gotRep != wantRep {
					t.Fatalf("round %d, %+v, --memory %d: the ranked rule writes\n%s\nreport\n%s\nthe general\n%s\nreport\n%s", round, opt, mem, got, gotRep, want, wantRep)
				}
				if !spilledLine.MatchString(gotErr) {
					t.Errorf("round %d, --memory %d: stderr does not say it spilled: %q", round, mem, gotErr)
				}
				if g := spilledLine.ReplaceAllString(gotErr, ""); g != wantErr {
					t.Errorf("round %d, --memory %d: stderr %q, the general rule's %q", round, mem, g, wantErr)
				}
			}
		}
	}
}

// TestSortKey: appendKey orders records by id, then what follows, and
// splitKey gives the id back.
func TestSortKey(t *testing.T) {
	ids := []string{"", "a", "a\x00", "a\x00\x00", "a\x01", "ab", "b", "\x00", "\xff"}
	for _, x := range ids {
		for _, y := range ids {
			kx := appendKey(nil, []byte(x))
			ky := appendKey(nil, []byte(y))
			if got, want := strings.Compare(string(append(kx, 9)), string(append(ky, 1))), strings.Compare(x, y); want != 0 && got != want {
				t.Errorf("%q vs %q: keys compare %d, ids %d", x, y, got, want)
			}
		}
		got, rest := splitKey(nil, append(appendKey(nil, []byte(x)), 1, 2))
		if string(got) != x || string(rest) != "\x01\x02" {
			t.Errorf("%q: split %q %q", x, got, rest)
		}
	}
}
