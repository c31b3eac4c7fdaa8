package pipeline

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestBBitMatchesCommandLine(t *testing.T) {
	// On real documents with planted copies, -bbit sets aside the
	// candidates that band --bbit F | pairs --bbit F sets aside: the same
	// candidates and verified pairs, byte for byte.
	inputs, _ := plantedCorpus(t, t.TempDir())
	for _, tc := range []struct{ method, threshold string }{{"oph", "0.8"}, {"minhash", "0.8"}} {
		method := tc.method
		t.Run(method, func(t *testing.T) {
			dir := t.TempDir()
			bits := filepath.Join(dir, "bbit.tsv")
			want := commandLine(t, dir, inputs, map[string][]string{
				"shingle": {"--unit", "word", "-k", "3"},
				"sketch":  {"--method", method},
				"band":    {"--threshold", tc.threshold, "--bbit", bits},
				"pairs":   {"--bbit", bits},
			})
			all := runStage(t, "pairs", filepath.Join(dir, "cli-"+OutBands+".tsv"))
			// MinHash's sharper S-curve makes few candidates far below.
			if n, m := bytes.Count(want[OutCandidates], []byte{'\n'}), bytes.Count(all, []byte{'\n'}); n == m {
				t.Fatalf("pairs --bbit kept %d of %d candidates: the fixture has too few far below the threshold", n, m)
			}
			opt := Defaults()
			opt.Inputs = inputs
			opt.Output = filepath.Join(t.TempDir(), "out")
			opt.Unit, opt.K = "word", 3
			opt.Method = method
			opt.Threshold, _ = strconv.ParseFloat(tc.threshold, 64)
			opt.VerifyThreshold = opt.Threshold
			opt.BBit = true
			opt.Write = []string{OutCandidates, OutPairs}
			got := runBeam(t, opt)
			for _, o := range opt.Write {
				if !bytes.Equal(got[o], want[o]) {
					sameLines(t, o, got[o], want[o])
					t.Errorf("%s: the same lines, not the same bytes", o)
				}
			}
			if !strings.Contains(string(got[OutCandidates]), " bbit=4") {
				t.Errorf("the candidates' pairs header does not say bbit=4")
			}
		})
	}
}

func TestBBitNeedsThreshold(t *testing.T) {
	opt := Defaults()
	opt.Inputs, opt.Output = []string{"docs.tsv"}, "out"
	opt.BBit = true
	if err := opt.Check(); err != nil {
		t.Fatal(err)
	}
	opt.B, opt.R = 16, 8
	if err := opt.Check(); err == nil || !strings.Contains(err.Error(), "give -threshold, not -b and -r") {
		t.Fatalf("-bbit with -b and -r: %v", err)
	}
}
