package cli

import (
	"github.com/neardup/neardup/internal/band"
	"github.com/urfave/cli/v2"
)

// Band is the band stage.
func Band() Stage {
	return Stage{
		Name:  "band",
		Usage: "turn MinHash signatures into LSH band keys",
		Args:  "[FILE...]",
		Description: `Reads MinHash signatures (sketch --method minhash or oph) and writes, for
each document, one record per band:

   key TAB id

The signature is cut into b bands of r rows; the key is the band number (4
hex digits) and the XXH64 hash of the band's rows (16 hex digits). Two
documents whose signatures agree on all rows of some band share that key and
become a candidate pair (pairs). Two sets of Jaccard similarity s become a
candidate with probability 1-(1-s^r)^b, an S-curve that rises steepest near
(1/b)^(1/r).

Give -b and -r, or --threshold t: then b and r (b·r ≤ n, the signature
length) minimise fp-weight × (area under the S-curve below t) + fn-weight ×
(area above it over t) among the bandings under which a pair exactly at t
becomes a candidate with probability at least --recall-at-threshold (0.995).
verify removes false positives exactly, so recall is what matters: libraries
that weigh both areas alone lose about 8% of the pairs at the threshold. The
choice is printed on standard error.

Documents without shingles (size 0) get no key; their count is reported.

Memory: one record at a time per worker; it streams.

EXAMPLES
   sketch shingles.tsv | band --threshold 0.8 | pairs > candidates.tsv
   band -b 20 -r 5 sketches.tsv`,
		Flags: merge([]cli.Flag{
			&cli.IntFlag{Name: "b", Usage: "number of bands"},
			&cli.IntFlag{Name: "r", Usage: "rows per band"},
			&cli.Float64Flag{Name: "threshold", Value: 0.8, Usage: "target Jaccard similarity when -b and -r are not given"},
			&cli.Float64Flag{Name: "fp-weight", Value: 0.5, Usage: "weight of the false-positive area in the choice of b and r"},
			&cli.Float64Flag{Name: "fn-weight", Value: 0.5, Usage: "weight of the false-negative area in the choice of b and r"},
			&cli.Float64Flag{Name: "recall-at-threshold", Value: 0.995, Usage: "least probability that a pair at the threshold becomes a candidate"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print the banding and its S-curve on standard error"},
		}, commonFlags()),
		Action: bandAction,
	}
}

func bandAction(c *cli.Context, env *Env) error {
	opt := band.Options{
		B:         c.Int("b"),
		R:         c.Int("r"),
		Threshold: c.Float64("threshold"),
		FPWeight:  c.Float64("fp-weight"),
		FNWeight:  c.Float64("fn-weight"),
		Floor:     c.Float64("recall-at-threshold"),
		Jobs:      c.Int("jobs"),
		SkipBad:   c.Bool("skip-bad"),
		NoHeader:  c.Bool("no-header"),
		Progress:  c.Bool("progress"),
		Verbose:   c.Bool("verbose"),
	}
	if (opt.B == 0) != (opt.R == 0) {
		return usagef("give both -b and -r, or neither (then --threshold chooses them)")
	}
	if opt.B < 0 || opt.R < 0 {
		return usagef("-b and -r must be positive")
	}
	if opt.Threshold <= 0 || opt.Threshold >= 1 {
		return usagef("--threshold %g: want a similarity between 0 and 1", opt.Threshold)
	}
	if opt.FPWeight < 0 || opt.FNWeight < 0 || opt.FPWeight+opt.FNWeight == 0 {
		return usagef("--fp-weight and --fn-weight must be non-negative and not both 0")
	}
	out, err := openOutput(c, env)
	if err != nil {
		return err
	}
	opt.LineBuffered = lineBuffered(c, out)
	return out.finish(band.Run(env.Ctx, opt, c.Args().Slice(), out.w, env.Stderr))
}
