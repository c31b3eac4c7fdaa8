package keep

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/testutil"
)

// TestNumberedRule: with arrival numbers, the numbered rule, in memory and
// spilled (--memory of a few pairs: the buffer's floor, stream.BufferFloor,
// holds 2,048 pairs, fewer than each round has), writes what the general rule writes:
// the documents, the report, the annotations and what stderr counts, with
// pairs of older batches (below from=) and of documents beyond the input,
// under both rules (--rule arrival, kept).
func TestNumberedRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 5))
	ownUnknown := regexp.MustCompile(`(?m)^keep: \d+ own id\(s\) .*\n`)
	spilledLine := regexp.MustCompile(`(?m)^keep: \d+ pairs beyond --memory .*\n`)
	for round := range 12 {
		n := 700 + rng.IntN(400)
		from := rng.IntN(30)
		var p, d strings.Builder
		fmt.Fprintf(&p, "#neardup stage=shingle unit=char k=9 hash=tok64 seed=0 counts=no ids=number from=%d\n", from)
		p.WriteString("#neardup stage=verify measure=jaccard threshold=0.8 containment=no\n")
		for range n * (3 + round%3) {
			// Partners from before the input to a little past its end.
			a, b := rng.IntN(n+from+5), rng.IntN(n+from+5)
			if a == b {
				continue
			}
			if rng.IntN(2) == 0 {
				a, b = b, a // either order in a line
			}
			sim := 0.8 + 0.2*float64(rng.IntN(4))/4 // ties
			fmt.Fprintf(&p, "%012d\t%012d\t%.6f\n", a, b, sim)
		}
		for i := from; i < from+n; i++ {
			fmt.Fprintf(&d, "%012d\ttext %d\n", i, i)
		}
		for _, opt := range []Options{{Stats: true}, {Annotate: true}, {Drop: true, Annotate: true}, {Rule: RuleKept, Stats: true}, {Rule: RuleKept, Drop: true, Annotate: true}} {
			general := opt
			general.generalRule = true
			want, wantRep, wantErr := keepPairs(t, general, p.String(), d.String())
			for _, mem := range []int64{0, 1 << 10, 10 * numPairSize} {
				o := opt
				o.MemoryBytes = mem
				got, gotRep, gotErr := keepPairs(t, o, p.String(), d.String())
				// The general rule writes no own ids (ownids.go).
				gotRep = fourColumns(gotRep)
				gotErr = ownUnknown.ReplaceAllString(gotErr, "")
				if got != want || gotRep != wantRep {
					t.Fatalf("round %d, %+v, --memory %d: the numbered rule writes\n%s\nreport\n%s\nthe general\n%s\nreport\n%s", round, opt, mem, got, gotRep, want, wantRep)
				}
				spilled := spilledLine.MatchString(gotErr)
				if spilled != (mem > 0) {
					t.Errorf("round %d, --memory %d: stderr says spilled %v: %q", round, mem, spilled, gotErr)
				}
				if g := spilledLine.ReplaceAllString(gotErr, ""); g != wantErr {
					t.Errorf("round %d, --memory %d: stderr %q, the general rule's %q", round, mem, g, wantErr)
				}
			}
		}
	}
}

// TestNumberedBadID: with ids=number, an id of a pair that is not an
// arrival number is bad input, with its place.
func TestNumberedBadID(t *testing.T) {
	dir := t.TempDir()
	head := "#neardup stage=shingle unit=char k=9 hash=tok64 seed=0 counts=no ids=number from=0\n"
	opt := Options{Reading: input.Reading{IDField: "id", TextField: "text"}, Prefer: PreferFirst}
	opt.Pairs = testutil.WriteFileIn(t, dir, "p.tsv", []byte(head+"000000000001\t000000000002\t0.9\n000000000001\tx7\t0.9\n"))
	opt.Given = input.ReadingFlags{Reading: input.Reading{IDField: "id", TextField: "text"}}
	docs := testutil.WriteFileIn(t, dir, "d.tsv", []byte("a\tb\n"))
	err := Run(context.Background(), opt, []string{docs}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "p.tsv:3: ") || !strings.Contains(err.Error(), "x7 is not one") {
		t.Errorf("err %v", err)
	}
}

// TestNumberedLateHeader: a shingle header after the first pair that
// reads the documents in another way is refused, not applied to pairs
// already taken as arrival numbers.
func TestNumberedLateHeader(t *testing.T) {
	dir := t.TempDir()
	h := "#neardup stage=shingle unit=char k=9 hash=tok64 seed=0 counts=no ids=number from=%d\n"
	pairs := fmt.Sprintf(h, 0) + "000000000001\t000000000002\t0.9\n" + fmt.Sprintf(h, 5) + "000000000005\t000000000006\t0.9\n"
	opt := Options{Reading: input.Reading{IDField: "id", TextField: "text"}, Prefer: PreferFirst}
	opt.Pairs = testutil.WriteFileIn(t, dir, "p.tsv", []byte(pairs))
	opt.Given = input.ReadingFlags{Reading: input.Reading{IDField: "id", TextField: "text"}}
	docs := testutil.WriteFileIn(t, dir, "d.tsv", []byte("a\tb\n"))
	err := Run(context.Background(), opt, []string{docs}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "put the header lines first") {
		t.Errorf("err %v", err)
	}
}

// TestNumberedSparse: arrival numbers spread wider than --memory has bits
// are refused, not allocated.
func TestNumberedSparse(t *testing.T) {
	dir := t.TempDir()
	head := "#neardup stage=shingle unit=char k=9 hash=tok64 seed=0 counts=no ids=number from=0\n"
	opt := Options{Reading: input.Reading{IDField: "id", TextField: "text"}, Prefer: PreferFirst, MemoryBytes: 1 << 10}
	opt.Pairs = testutil.WriteFileIn(t, dir, "p.tsv", []byte(head+"000000000001\t900000000000\t0.9\n"))
	opt.Given = input.ReadingFlags{Reading: input.Reading{IDField: "id", TextField: "text"}}
	docs := testutil.WriteFileIn(t, dir, "d.tsv", []byte("a\tb\n"))
	err := Run(context.Background(), opt, []string{docs}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "arrival numbers run from 1 to 900000000000") {
		t.Errorf("err %v", err)
	}
}

// fourColumns is the first four columns of the lines of a report.
func fourColumns(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if f := strings.Split(strings.TrimSuffix(line, "\n"), "\t"); len(f) > 4 {
			line = strings.Join(f[:4], "\t") + "\n"
		}
		b.WriteString(line)
	}
	return b.String()
}
