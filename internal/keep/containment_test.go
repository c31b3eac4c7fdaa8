package keep

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/testutil"
)

const containHeader = "#neardup stage=verify measure=jaccard threshold=0.9 containment=yes\n"

// TestContainmentRule: a short document inside a long one goes, whichever
// arrived first; of two near-copies the longer stays; a document contained
// only in a dropped one stays.
func TestContainmentRule(t *testing.T) {
	// S is inside L (0.95) but not the other way; M1 and M2 contain each
	// other, M1 is longer; X is inside S only.
	pairs := containHeader +
		"L\tS\t0.300000\t0.300000\t0.950000\n" +
		"M1\tM2\t0.920000\t0.930000\t0.990000\n" +
		"S\tX\t0.400000\t0.400000\t0.950000\n"
	docs := "S\tshort text\nX\tx\nM2\tnear copy\nL\ta much longer text that holds the short one\nM1\tnear copy!\n"
	out, rep, stderr := keepPairs(t, Options{Containment: true, Stats: true}, pairs, docs)
	if want := "X\tx\nL\ta much longer text that holds the short one\nM1\tnear copy!\n"; out != want {
		t.Errorf("kept %q, want %q", out, want)
	}
	if want := "S\tL\tL\t0.950000\nM2\tM1\tM1\t0.990000\n"; rep != want {
		t.Errorf("report %q, want %q", rep, want)
	}
	if !strings.Contains(stderr, "keep: 3 kept, 2 dropped") {
		t.Errorf("stderr %q", stderr)
	}
	// The same pairs under the arrival-order rule drop what came later.
	out, _, _ = keepPairs(t, Options{}, pairs, docs)
	if want := "S\tshort text\nM2\tnear copy\n"; out != want {
		t.Errorf("arrival rule: kept %q, want %q", out, want)
	}
	// --threshold above verify's: S (0.95) stays in, M2 (0.99) goes.
	out, _, _ = keepPairs(t, Options{Containment: true, Threshold: 0.96}, pairs, docs)
	if want := "S\tshort text\nX\tx\nL\ta much longer text that holds the short one\nM1\tnear copy!\n"; out != want {
		t.Errorf("--threshold 0.96: kept %q, want %q", out, want)
	}
}

// TestContainmentOlder: a document of an older batch (not in the input)
// counts as kept: a new one inside it goes; it is never dropped.
func TestContainmentOlder(t *testing.T) {
	pairs := containHeader + "old\tnew\t0.500000\t0.500000\t0.950000\nnew\tother\t0.500000\t0.980000\t0.500000\n"
	out, rep, stderr := keepPairs(t, Options{Containment: true}, pairs, "new\tn\nother\to\n")
	if out != "other\to\n" || rep != "new\told\told\t0.950000\n" {
		t.Errorf("kept %q, report %q", out, rep)
	}
	if !strings.Contains(stderr, "pair(s) with documents not in the input, taken as seen before") {
		t.Errorf("stderr %q", stderr)
	}
}

// TestContainmentRefused: pairs without containments, a threshold below
// verify's, or no threshold at all are refused.
func TestContainmentRefused(t *testing.T) {
	for _, c := range []struct {
		name, pairs string
		threshold   float64
		want        string
	}{
		{"no containment", "#neardup stage=verify measure=jaccard threshold=0.9 containment=no\nA\tB\t0.950000\n", 0, "scored without"},
		{"three fields", "A\tB\t0.950000\n", 0.9, "has only a similarity"},
		{"below verify", containHeader + "A\tB\t0.5\t0.5\t0.95\n", 0.8, "below the threshold of verify, 0.9"},
		{"no header", "A\tB\t0.5\t0.5\t0.95\n", 0, "give --threshold T"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			opt := Options{Containment: true, Threshold: c.threshold, Prefer: PreferFirst,
				Pairs: testutil.WriteFileIn(t, dir, "p.tsv", c.pairs), Reading: input.Reading{IDField: "id", TextField: "text"}}
			err := Run(context.Background(), opt, []string{testutil.WriteFileIn(t, dir, "d.tsv", "A\ta\nB\tb\n")}, new(bytes.Buffer), new(bytes.Buffer))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}

// TestContainmentInvariants checks the rule's guarantees on random graphs
// of containments: every dropped document is contained at the threshold in
// its via, which is kept and not shorter; a kept document contained in a
// kept one was decided before it: longer, or as long and earlier (the case
// counted on stderr).
func TestContainmentInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const threshold = 0.9
	for trial := range 60 {
		n := 2 + rng.IntN(40)
		length := make([]int, n)
		var docs strings.Builder
		for i := range n {
			length[i] = 1 + rng.IntN(8)
			fmt.Fprintf(&docs, "d%02d\t%s\n", i, strings.Repeat("x", length[i]))
		}
		contains := map[[2]int]float64{} // [d, k]: c(d, k)
		var pairs strings.Builder
		pairs.WriteString(containHeader)
		for range rng.IntN(3 * n) {
			a, b := rng.IntN(n), rng.IntN(n)
			if a >= b {
				continue
			}
			cab, cba := rng.Float64(), rng.Float64()
			if rng.IntN(2) == 0 {
				cab = threshold + (1-threshold)*rng.Float64()
			}
			if rng.IntN(2) == 0 {
				cba = threshold + (1-threshold)*rng.Float64()
			}
			if _, dup := contains[[2]int{a, b}]; dup {
				continue
			}
			line := fmt.Sprintf("d%02d\td%02d\t0.5\t%.6f\t%.6f\n", a, b, cab, cba)
			pairs.WriteString(line)
			var s struct{ ab, ba float64 }
			fmt.Sscanf(line[8:], "0.5\t%f\t%f", &s.ab, &s.ba)
			contains[[2]int{a, b}], contains[[2]int{b, a}] = s.ab, s.ba
		}
		out, rep, stderr := keepPairs(t, Options{Containment: true}, pairs.String(), docs.String())
		kept := map[int]bool{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var i int
			fmt.Sscanf(l, "d%02d", &i)
			kept[i] = true
		}
		dropped := 0
		for _, l := range strings.Split(strings.TrimSpace(rep), "\n") {
			if l == "" {
				continue
			}
			dropped++
			var d, k, via int
			var c float64
			fmt.Sscanf(l, "d%02d\td%02d\td%02d\t%f", &d, &k, &via, &c)
			switch {
			case kept[d] || !kept[via] || k != via:
				t.Fatalf("trial %d: %q: dropped must be out, via kept", trial, l)
			case contains[[2]int{d, via}] < threshold:
				t.Fatalf("trial %d: %q: not contained at %g", trial, l, threshold)
			case length[via] < length[d]:
				t.Fatalf("trial %d: %q: a longer document dropped for a shorter one", trial, l)
			}
		}
		if dropped+len(kept) != n {
			t.Fatalf("trial %d: %d kept + %d dropped != %d", trial, len(kept), dropped, n)
		}
		within := 0
		for d := range n {
			for k := range n {
				if kept[d] && kept[k] && d != k && contains[[2]int{d, k}] >= threshold {
					if length[d] < length[k] || length[d] == length[k] && d > k {
						t.Fatalf("trial %d: d%02d (length %d) kept inside kept d%02d (length %d)", trial, d, length[d], k, length[k])
					}
					within++
					break
				}
			}
		}
		if within > 0 != strings.Contains(stderr, fmt.Sprintf("keep: %d kept document(s) contained in a kept document", within)) {
			t.Fatalf("trial %d: %d within, stderr %q", trial, within, stderr)
		}
	}
}
