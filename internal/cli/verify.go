package cli

import (
	"github.com/neardup/neardup/internal/verify"
	"github.com/urfave/cli/v2"
)

// Verify is the verify stage.
func Verify() Stage {
	return Stage{
		Name:  "verify",
		Usage: "score candidate pairs exactly and keep those above a threshold",
		Args:  "[FILE...]",
		Description: `Reads candidate pairs "idA TAB idB" and writes the pairs whose similarity
reaches --threshold:

   idA TAB idB TAB similarity                   (6 decimals)
   idA TAB idB TAB jaccard TAB c(A,B) TAB c(B,A) with --containment

with idA < idB bytewise, in the order of the input.

With --shingles FILE the similarity is the exact Jaccard similarity
|A∩B|/|A∪B| of the two documents' shingle sets, and --containment adds the
containments c(A,B) = |A∩B|/|A| both ways and keeps a pair when either
containment reaches the threshold (one document inside the other). With
--sketches FILE it is the estimate from sketches: the fraction of equal
positions of MinHash signatures, Broder's estimate from bottom-s samples, or
from MOD_m samples (with containment).

With --hamming k and --sketches FILE of SimHash fingerprints (sketch --method
simhash) it writes the pairs whose fingerprints differ in at most k bits:

   idA TAB idB TAB distance                     (bits, an integer)

The shingle or sketch file must come from the same pipeline as the pairs:
their headers are checked against each other.

Memory: verify first reads the pairs (up to --memory of them) to learn
which documents appear in some pair, then loads those documents from the
--shingles or --sketches file: 8 bytes per shingle, value or 64 bits of
fingerprint, plus about 56 bytes and the id's length per document. When the
pairs are larger than --memory, it loads every document of the file and
streams the rest of the pairs.

EXAMPLES
   pairs keys.tsv | verify --shingles shingles.tsv --threshold 0.8
   verify --shingles s.tsv --containment --threshold 0.9 candidates.tsv
   verify --sketches sketches.tsv candidates.tsv
   band --hamming 3 fp.tsv | pairs | verify --hamming 3 --sketches fp.tsv`,
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "shingles", Usage: "shingle records `FILE` for exact similarity"},
			&cli.StringFlag{Name: "sketches", Usage: "sketch records `FILE` for estimated similarity"},
			&cli.Float64Flag{Name: "threshold", Value: 0.8, Usage: "least similarity of a pair written"},
			&cli.BoolFlag{Name: "containment", Usage: "add containment both ways; keep pairs where either reaches the threshold"},
			&cli.StringFlag{Name: "memory", Value: "1G", Usage: "read up to `SIZE` of pairs ahead to load only the documents they name (K, M, G suffixes)"},
			&cli.IntFlag{Name: "hamming", Usage: "score by the Hamming distance of the SimHash fingerprints in --sketches; keep pairs within `K` bits"},
		}, commonFlags()),
		Action: verifyAction,
	}
}

func verifyAction(c *cli.Context, env *Env) error {
	mem, err := parseSize(c.String("memory"))
	if err != nil {
		return usagef("--memory: %v", err)
	}
	opt := verify.Options{
		MemoryBytes: mem,
		Shingles:    c.String("shingles"),
		Sketches:    c.String("sketches"),
		Threshold:   c.Float64("threshold"),
		Containment: c.Bool("containment"),
		Jobs:        c.Int("jobs"),
		SkipBad:     c.Bool("skip-bad"),
		NoHeader:    c.Bool("no-header"),
		Progress:    c.Bool("progress"),
	}
	if c.IsSet("hamming") {
		opt.Hamming, opt.MaxDistance = true, c.Int("hamming")
		if opt.Sketches == "" || opt.Shingles != "" || opt.Containment {
			return usagef("--hamming scores SimHash fingerprints: give --sketches FILE, without --shingles or --containment")
		}
		if opt.MaxDistance < 0 {
			return usagef("--hamming %d: want a distance of 0 bits or more", opt.MaxDistance)
		}
	}
	if (opt.Shingles == "") == (opt.Sketches == "") {
		return usagef("give --shingles FILE (exact) or --sketches FILE (estimate)")
	}
	if opt.Threshold < 0 || opt.Threshold > 1 {
		return usagef("--threshold %g: want a similarity between 0 and 1", opt.Threshold)
	}
	out, err := openOutput(c, env)
	if err != nil {
		return err
	}
	opt.LineBuffered = lineBuffered(c, out)
	return out.finish(verify.Run(env.Ctx, opt, c.Args().Slice(), out.w, env.Stderr))
}
