package sketch

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

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
					Format: shingle.FormatTSV, IDField: "id", TextField: "text", Common: common}
				var records, piped, fused, stderr1, stderr2 strings.Builder
				if err := shingle.Run(context.Background(), sh, []string{path}, &records, &stderr1); err != nil {
					t.Fatal(err)
				}
				opt.Common = stream.Common{Jobs: jobs}
				in := testutil.WriteFile(t, "records.tsv", records.String())
				if err := Run(context.Background(), opt, []string{in}, &piped, io.Discard); err != nil {
					t.Fatal(err)
				}
				if err := RunDocuments(context.Background(), sh, opt, []string{path}, &fused, &stderr2); err != nil {
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
