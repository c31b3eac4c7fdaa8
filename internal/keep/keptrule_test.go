package keep

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/testutil"
)

// TestKeptRuleChain: A~B and B~C, A and C unrelated, arriving A, B, C: the
// kept rule drops B via A and keeps C, which the arrival rule drops via B.
func TestKeptRuleChain(t *testing.T) {
	pairs := "#neardup stage=verify measure=jaccard threshold=0.8 containment=no\nA\tB\t0.900000\nB\tC\t0.850000\n"
	out, rep, stderr := keepPairs(t, Options{Rule: RuleKept, Stats: true}, pairs, "A\ta\nB\tb\nC\tc\nD\td\n")
	if out != "A\ta\nC\tc\nD\td\n" || rep != "B\tA\tA\t0.900000\n" {
		t.Errorf("kept %q, report %q", out, rep)
	}
	if !strings.Contains(stderr, "keep: 3 kept, 1 dropped") {
		t.Errorf("stderr %q", stderr)
	}
}

// keptReference is the kept rule as written: in input order, a document
// goes when one of its partners met before (or not among the documents,
// and not in gone) was kept; via the most similar, ties to those not among
// the documents (by id), then the earliest; a repeated id as its first.
// It returns the report.
func keptReference(docs []string, pairs map[[2]string]float64, gone map[string]bool) string {
	in := map[string]int{}
	for i, d := range docs {
		if _, ok := in[d]; !ok {
			in[d] = i
		}
	}
	kept := map[string]bool{}
	decided := map[string]string{} // the via of a document dropped
	var rep strings.Builder
	for i, d := range docs {
		if via, ok := decided[d]; ok {
			if via != "" { // a repeated id: decided as its first
				fmt.Fprintf(&rep, "%s\t%s\t%s\t-\n", d, via, via)
			}
			continue
		}
		decided[d] = ""
		best, bestSim := "", -1.0
		for p, s := range pairs {
			var o string
			switch d {
			case p[0]:
				o = p[1]
			case p[1]:
				o = p[0]
			default:
				continue
			}
			j, inInput := in[o]
			ok := inInput && j < i && kept[o] || !inInput && !gone[o]
			if !ok {
				continue
			}
			better := s > bestSim
			if s == bestSim {
				bj, bIn := in[best]
				switch {
				case inInput != bIn:
					better = !inInput
				case !inInput:
					better = o < best
				default:
					better = j < bj
				}
			}
			if better {
				best, bestSim = o, s
			}
		}
		if bestSim < 0 {
			kept[d] = true
			continue
		}
		decided[d] = best
		fmt.Fprintf(&rep, "%s\t%s\t%s\t%.6f\n", d, best, best, bestSim)
	}
	return rep.String()
}

// TestKeptRuleReference: the kept rule in memory reports what the rule as
// written does, on random pairs with ties, partners not in the input
// (some dropped by an earlier batch: --dropped) and repeated ids; each
// document dropped has its via kept.
func TestKeptRuleReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	for round := range 20 {
		n := 20 + rng.IntN(60)
		id := func(i int) string { return fmt.Sprintf("d%d", i) }
		pairs := map[[2]string]float64{}
		var p, d strings.Builder
		p.WriteString("#neardup stage=verify measure=jaccard threshold=0.8 containment=no\n")
		for range n * (1 + round%3) {
			a, b := id(rng.IntN(n+6)), id(rng.IntN(n+6))
			if a == b {
				continue
			}
			if _, ok := pairs[[2]string{b, a}]; ok {
				a, b = b, a
			}
			if _, ok := pairs[[2]string{a, b}]; ok {
				continue
			}
			pairs[[2]string{a, b}] = 0.8 + 0.2*float64(rng.IntN(3))/4
			fmt.Fprintf(&p, "%s\t%s\t%.6f\n", a, b, pairs[[2]string{a, b}])
		}
		var docs []string
		for i := range n {
			j := i
			if rng.IntN(10) == 0 {
				j = rng.IntN(n)
			}
			docs = append(docs, id(j))
			fmt.Fprintf(&d, "%s\ttext %d\n", id(j), i)
		}
		gone := map[string]bool{}
		var old strings.Builder
		for i := n; i < n+6; i += 2 {
			gone[id(i)] = true
			fmt.Fprintf(&old, "%s\tk\tk\t0.9\n", id(i))
		}
		o := Options{Rule: RuleKept}
		o.Dropped = []string{testutil.WriteFileIn(t, t.TempDir(), "old.tsv", []byte(old.String()))}
		out, rep, _ := keepPairs(t, o, p.String(), d.String())
		if want := keptReference(docs, pairs, gone); rep != want {
			t.Fatalf("round %d: report\n%s\nwant\n%s", round, rep, want)
		}
		for line := range strings.Lines(rep) {
			via := strings.Split(line, "\t")[2]
			if !strings.Contains("\n"+out, "\n"+via+"\t") && slices.Contains(docs, via) {
				t.Errorf("round %d: %q: the via is not kept", round, line)
			}
		}
	}
}

// TestKeptRuleBatches: two batches, the second decided with the pairs
// between its documents and the first's and the first's report
// (--dropped), keep and report what one run over both does, with arrival
// numbers and with other ids (where the report's via may differ on a tie
// with a document of the first batch: keep orders those by id).
func TestKeptRuleBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 2))
	for round := range 10 {
		numbers := round%2 == 0
		n, cut := 200, 80+rng.IntN(40)
		id := func(i int) string {
			if numbers {
				return fmt.Sprintf("%012d", i)
			}
			return fmt.Sprintf("p%d", i*7%n)
		}
		head := "#neardup stage=verify measure=jaccard threshold=0.8 containment=no\n"
		shingle := func(from int) string {
			if !numbers {
				return ""
			}
			return fmt.Sprintf("#neardup stage=shingle unit=char k=9 hash=tok64 seed=0 counts=no ids=number from=%d\n", from)
		}
		var all, first, second, d1, d2 strings.Builder
		all.WriteString(shingle(0) + head)
		first.WriteString(shingle(0) + head)
		second.WriteString(shingle(cut) + head)
		for range n * 2 {
			a, b := rng.IntN(n), rng.IntN(n)
			if a == b {
				continue
			}
			line := fmt.Sprintf("%s\t%s\t%.6f\n", id(a), id(b), 0.8+0.2*float64(rng.IntN(3))/4)
			all.WriteString(line)
			if max(a, b) < cut {
				first.WriteString(line)
			} else {
				second.WriteString(line)
			}
		}
		for i := range n {
			doc := fmt.Sprintf("%s\ttext %d\n", id(i), i)
			if i < cut {
				d1.WriteString(doc)
			} else {
				d2.WriteString(doc)
			}
		}
		want, wantRep, _ := keepPairs(t, Options{Rule: RuleKept}, all.String(), d1.String()+d2.String())
		// With numbers, the first batch's map of own ids names its
		// documents in the second's report (--write-id-map, --id-map).
		o1, o := Options{Rule: RuleKept}, Options{Rule: RuleKept}
		if numbers {
			o1.WriteIDMap = filepath.Join(t.TempDir(), "ids1.tsv")
			o.IDMaps = []string{o1.WriteIDMap}
		}
		out1, rep1, _ := keepPairs(t, o1, first.String(), d1.String())
		o.Dropped = []string{testutil.WriteFileIn(t, t.TempDir(), "report1.tsv", []byte(rep1))}
		out2, rep2, _ := keepPairs(t, o, second.String(), d2.String())
		if !numbers {
			rep1, rep2, wantRep = firstColumn(rep1), firstColumn(rep2), firstColumn(wantRep)
		}
		if out1+out2 != want || rep1+rep2 != wantRep {
			t.Fatalf("round %d (numbers %v): batches keep\n%s\nreport\n%s\none run\n%s\nreport\n%s", round, numbers, out1+out2, rep1+rep2, want, wantRep)
		}
	}
}

// firstColumn is the first column of the lines of s.
func firstColumn(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString(strings.Split(line, "\t")[0] + "\n")
	}
	return b.String()
}

// TestKeptRuleSpilledDropped: --dropped where the pairs of ids that are not
// arrival numbers pass --memory is refused, naming what to do.
func TestKeptRuleSpilledDropped(t *testing.T) {
	dir := t.TempDir()
	opt := Options{Reading: input.Reading{IDField: "id", TextField: "text"}, Prefer: PreferFirst, Rule: RuleKept, ranked: true}
	opt.Pairs = testutil.WriteFileIn(t, dir, "p.tsv", []byte("a\tb\t0.9\n"))
	opt.Dropped = []string{testutil.WriteFileIn(t, dir, "old.tsv", []byte("x\ty\ty\t0.9\n"))}
	docs := testutil.WriteFileIn(t, dir, "d.tsv", []byte("a\tA\nb\tB\n"))
	err := Run(context.Background(), opt, []string{docs}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--rule kept with --dropped") || !strings.Contains(err.Error(), "give a larger --memory") {
		t.Errorf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("wrote output")
	}
}
