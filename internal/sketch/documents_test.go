package sketch

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/pairs"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// RunDocuments writes byte for byte what shingle | sketch writes, header
// lines included, for every method, unit and number of workers, with a bad
// line skipped and counted as shingle counts it.
func TestRunDocumentsIsShinglePipeSketch(t *testing.T) {
	var docs strings.Builder
	for i := range 300 {
		fmt.Fprintf(&docs, "d%03d\tThe %d-th document, with words: alpha beta gamma %d delta; 子曰学而时习之 %d\n", i, i%7, i%13, i%5)
		if i == 150 {
			docs.WriteString("a line without a tab\n")
		}
	}
	path := testutil.WriteFile(t, "docs.tsv", docs.String())
	for _, unit := range []shingle.Unit{shingle.Char, shingle.Word} {
		for _, opt := range []Options{
			{Method: MinHash, N: 16, Seed: 3},
			{Method: OPH, N: 16, Seed: 3},
			{Method: BottomK, S: 8, Seed: 3},
			{Method: ModM, M: 4, Seed: 3},
		} {
			for _, jobs := range []int{1, 3} {
				common := stream.Common{Jobs: jobs, SkipBad: true}
				sh := shingle.StageOptions{Shingle: shingle.Options{Unit: unit, K: shingle.DefaultK(unit), Norm: shingle.DefaultNormalization(unit)},
					Reading: input.Reading{Format: input.FormatTSV, IDField: "id", TextField: "text"}, Common: common}
				var records, piped, fused, stderr1, stderr2 strings.Builder
				if err := shingle.Run(context.Background(), sh, []string{path}, &records, &stderr1); err != nil {
					t.Fatal(err)
				}
				opt.Common = stream.Common{Jobs: jobs}
				in := testutil.WriteFile(t, "records.tsv", records.String())
				if err := Run(context.Background(), opt, []string{in}, &piped, io.Discard); err != nil {
					t.Fatal(err)
				}
				if err := RunDocuments(context.Background(), sh, opt, nil, []string{path}, &fused, &stderr2); err != nil {
					t.Fatal(err)
				}
				if fused.String() != piped.String() {
					t.Fatalf("%s %s -j%d: shingle --sketch differs from shingle | sketch", unit, opt.Method, jobs)
				}
				if stderr2.String() != stderr1.String() || !strings.Contains(stderr2.String(), "shingle: skipped 1 bad line(s)") {
					t.Errorf("%s %s -j%d: stderr %q, shingle's %q", unit, opt.Method, jobs, stderr2.String(), stderr1.String())
				}
			}
		}
	}
}

// With --band, RunDocuments writes byte for byte what shingle | sketch |
// band --threshold T --bbit FILE writes, the b-bit file included (for
// OPH, that of the signatures of twice the values), for MinHash and OPH and any number of workers, and without --bbit (when it
// signs the shingles with their repeats); a document without shingles
// gets no keys, counted as band counts it.
func TestRunDocumentsBandIsPipeBand(t *testing.T) {
	var docs strings.Builder
	for i := range 400 {
		fmt.Fprintf(&docs, "d%03d\tdocument %d of the pile, words: alpha beta gamma %d delta epsilon %d zeta eta theta\n", i, i%9, i%11, i%4)
		if i == 200 {
			docs.WriteString("empty\t...\n")
			docs.WriteString("repeats\tone two three one two three one two three four one two three\n")
		}
	}
	path := testutil.WriteFile(t, "docs.tsv", docs.String())
	for _, method := range []string{MinHash, OPH} {
		for _, jobs := range []int{1, 3} {
			common := stream.Common{Jobs: jobs}
			sh := shingle.StageOptions{Shingle: shingle.Options{Unit: shingle.Word, K: 3, Norm: shingle.DefaultNormalization(shingle.Word)},
				Reading: input.Reading{Format: input.FormatTSV, IDField: "id", TextField: "text"}, Common: common}
			opt := Options{Method: method, N: 32, Seed: 5, Common: common}
			var sketches, piped, fused, stderr strings.Builder
			if err := RunDocuments(context.Background(), sh, opt, nil, []string{path}, &sketches, io.Discard); err != nil {
				t.Fatal(err)
			}
			in := testutil.WriteFile(t, "sketches.tsv", sketches.String())
			pipedBits, fusedBits := t.TempDir()+"/piped.tsv", t.TempDir()+"/fused.tsv"
			bo := band.Options{Threshold: 0.6, FPWeight: band.DefaultFPWeight, FNWeight: band.DefaultFNWeight, Floor: band.DefaultFloor, Common: common}
			bo.BBit = pipedBits
			if err := band.Run(context.Background(), bo, []string{in}, &piped, io.Discard); err != nil {
				t.Fatal(err)
			}
			bo.BBit = fusedBits
			if err := RunDocuments(context.Background(), sh, opt, &bo, []string{path}, &fused, &stderr); err != nil {
				t.Fatal(err)
			}
			if fused.String() != piped.String() {
				t.Fatalf("%s -j%d: shingle --sketch --band differs from shingle | sketch | band", method, jobs)
			}
			// OPH's b-bit records are of its fine signature: what sketch
			// with twice the values writes, under a header that says so.
			a, b := readFile(t, pipedBits), readFile(t, fusedBits)
			if method == OPH {
				var fine strings.Builder
				fo := opt
				fo.N *= minhash.FineFactor
				if err := RunDocuments(context.Background(), sh, fo, nil, []string{path}, &fine, io.Discard); err != nil {
					t.Fatal(err)
				}
				bo.BBit = pipedBits
				if err := band.Run(context.Background(), bo, []string{testutil.WriteFile(t, "fine.tsv", fine.String())}, io.Discard, io.Discard); err != nil {
					t.Fatal(err)
				}
				a = readFile(t, pipedBits)
				if !strings.Contains(b, " bbit-values=64\n") {
					t.Errorf("%s -j%d: the b-bit file's header does not say its values:\n%s", method, jobs, b)
				}
			}
			if testutil.Records(a) != testutil.Records(b) || !strings.Contains(a, "bbit=4") {
				t.Fatalf("%s -j%d: the b-bit files differ:\n%s\n%s", method, jobs, a, b)
			}
			bo.BBit = ""
			var unsized strings.Builder
			if err := RunDocuments(context.Background(), sh, opt, &bo, []string{path}, &unsized, io.Discard); err != nil {
				t.Fatal(err)
			}
			if unsized.String() != piped.String() {
				t.Fatalf("%s -j%d: shingle --sketch --band without --bbit differs from shingle | sketch | band", method, jobs)
			}
			if !strings.Contains(stderr.String(), "shingle: 1 document(s) without shingles got no keys") ||
				!strings.Contains(stderr.String(), "shingle: threshold 0.6, 32-value signatures:") {
				t.Errorf("%s -j%d: stderr %q", method, jobs, stderr.String())
			}
		}
	}
}

// A banding that reads fewer values than the signature holds (18 bands of
// 6 rows of 128 at 0.8) has shingle --sketch minhash --band compute only
// those (rounded up to 112): its band records are still band's of the
// whole signature.
func TestRunDocumentsBandPrefix(t *testing.T) {
	var docs strings.Builder
	for i := range 300 {
		fmt.Fprintf(&docs, "d%03d\tword%d and word%d of the pile go on with word%d word%d and word%d, then the rest of it %d\n", i, i%7, i%13, i%5, i%17, i%3, i%19)
	}
	path := testutil.WriteFile(t, "docs.tsv", docs.String())
	for _, jobs := range []int{1, 3} {
		common := stream.Common{Jobs: jobs}
		sh := shingle.StageOptions{Shingle: shingle.Options{Unit: shingle.Word, K: 3},
			Reading: input.Reading{Format: input.FormatTSV, IDField: "id", TextField: "text"}, Common: common}
		opt := Options{Method: MinHash, N: 128, Seed: 5, Common: common}
		var sketches, piped, fused, stderr strings.Builder
		if err := RunDocuments(context.Background(), sh, opt, nil, []string{path}, &sketches, io.Discard); err != nil {
			t.Fatal(err)
		}
		bo := band.Options{Threshold: 0.8, FPWeight: band.DefaultFPWeight, FNWeight: band.DefaultFNWeight, Floor: band.DefaultFloor, Common: common}
		if err := band.Run(context.Background(), bo, []string{testutil.WriteFile(t, "sketches.tsv", sketches.String())}, &piped, io.Discard); err != nil {
			t.Fatal(err)
		}
		if err := RunDocuments(context.Background(), sh, opt, &bo, []string{path}, &fused, &stderr); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr.String(), "18 bands of 6 rows (108 values)") {
			t.Fatalf("-j%d: the banding is not the one meant: %s", jobs, stderr.String())
		}
		if fused.String() != piped.String() {
			t.Fatalf("-j%d: shingle --sketch minhash --band 0.8 differs from shingle | sketch | band", jobs)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// RunPairs writes byte for byte what shingle --sketch --band | pairs
// writes, and says on standard error what pairs says: for MinHash and OPH,
// one worker and three, with --bbit (pairs --bbit), with --collapse, with
// buckets capped, and with the records spilled past a small --memory.
func TestRunPairsIsPipePairs(t *testing.T) {
	var docs strings.Builder
	for i := range 600 {
		// Families of near-copies: a body of the family's words, and a
		// few of their own; every 50th document twice (a copy).
		f := i % 40
		text := fmt.Sprintf("f%da f%db f%dc f%dd f%de f%df f%dg f%dh f%di f%dj x%d y%d", f, f, f, f, f, f, f, f, f, f, i%3, i%2)
		fmt.Fprintf(&docs, "d%03d\t%s\n", i, text)
		if i%50 == 0 {
			fmt.Fprintf(&docs, "c%03d\t%s\n", i, text)
		}
	}
	path := testutil.WriteFile(t, "docs.tsv", docs.String())
	type run struct {
		name     string
		method   string
		bbit     bool
		collapse bool
		memory   int64
		maxB     int
	}
	for _, r := range []run{
		{name: "plain", method: MinHash},
		{name: "plain", method: OPH},
		{name: "bbit", method: OPH, bbit: true},
		{name: "bbit", method: MinHash, bbit: true},
		{name: "collapse", method: OPH, collapse: true, bbit: true},
		{name: "capped", method: OPH, maxB: 6},
		{name: "spilled", method: OPH, memory: 64 << 10},
	} {
		for _, jobs := range []int{1, 3} {
			label := fmt.Sprintf("%s %s -j%d", r.name, r.method, jobs)
			common := stream.Common{Jobs: jobs}
			reading := input.Reading{Format: input.FormatTSV, IDField: "id", TextField: "text"}
			if r.collapse {
				reading.Number = true
			}
			sh := shingle.StageOptions{Shingle: shingle.Options{Unit: shingle.Word, K: 3, Norm: shingle.DefaultNormalization(shingle.Word)},
				Reading: reading, Common: common}
			opt := Options{Method: r.method, N: 32, Seed: 5, Common: common}
			bo := band.Options{Threshold: 0.7, FPWeight: band.DefaultFPWeight, FNWeight: band.DefaultFNWeight, Floor: band.DefaultFloor, Common: common, Collapse: r.collapse}
			po := pairs.Options{MaxBucket: pairs.DefaultMaxBucket, Reps: pairs.DefaultReps, MemoryBytes: r.memory, Common: common}
			if r.maxB > 0 {
				po.MaxBucket, po.Reps = r.maxB, 2
			}
			pipedBits, fusedBits := "", ""
			if r.bbit {
				pipedBits, fusedBits = t.TempDir()+"/piped.tsv", t.TempDir()+"/fused.tsv"
			}
			var records, piped, fused, pipedErr, fusedErr strings.Builder
			bo.BBit = pipedBits
			if err := RunDocuments(context.Background(), sh, opt, &bo, []string{path}, &records, io.Discard); err != nil {
				t.Fatal(err)
			}
			pp := po
			pp.BBit = pipedBits
			if err := pairs.Run(context.Background(), pp, []string{testutil.WriteFile(t, "bands.tsv", records.String())}, &piped, &pipedErr); err != nil {
				t.Fatal(err)
			}
			bo.BBit = fusedBits
			if err := RunPairs(context.Background(), sh, opt, &bo, po, []string{path}, &fused, &fusedErr); err != nil {
				t.Fatal(err)
			}
			if fused.String() != piped.String() {
				t.Fatalf("%s: shingle --pairs differs from shingle | pairs:\n%s\n%s", label, fused.String(), piped.String())
			}
			if testutil.Records(fused.String()) == "" {
				t.Fatalf("%s: no pairs", label)
			}
			// pairs' messages, the b-bit file's name aside, come last.
			want := strings.ReplaceAll(pipedErr.String(), pipedBits, fusedBits)
			if !strings.HasSuffix(fusedErr.String(), want) {
				t.Errorf("%s: stderr %q, want it to end in pairs' %q", label, fusedErr.String(), want)
			}
			for _, w := range []struct {
				on   bool
				says string
			}{{r.bbit, "set aside"}, {r.maxB > 0, "more than --max-bucket 6"}, {r.memory > 0, "spilled"}, {r.collapse, "of a copy key"}} {
				if w.on && !strings.Contains(want, w.says) {
					t.Errorf("%s: pairs does not say %q: %q", label, w.says, want)
				}
			}
		}
	}
}
