package cli

import (
	"github.com/neardup/neardup/internal/sketch"
	"github.com/urfave/cli/v2"
)

// Sketch is the sketch stage.
func Sketch() Stage {
	return Stage{
		Name:  "sketch",
		Usage: "turn shingle records into MinHash signatures or samples",
		Args:  "[FILE...]",
		Description: `Reads shingle records and writes one sketch record per document:

   id TAB size TAB v1 v2 … vn

size is the number of distinct shingles. The values depend on --method:

   minhash  (default) n values, the minimum over the set of each of n hash
            functions h_i(x) = a_i·x + b_i mod 2^64 (a_i odd, drawn from
            --seed); the fraction of equal positions of two signatures
            estimates the Jaccard similarity of the sets, with standard
            error sqrt(J(1-J)/n). Cost: |set|·n multiply-adds.
   oph      n values by one-permutation hashing with optimal densification
            (Shrivastava 2017): one hash per shingle, O(|set| + n), the same
            estimator.
   bottomk  Broder's MIN_s: the s smallest values of the set under one
            permutation; estimates resemblance (verify --sketches).
   modm     Broder's MOD_m: the values that are 0 mod m under one
            permutation; a sample that grows with the set, so it estimates
            containment as well as resemblance.

The empty set (a document without shingles) has size 0 and, for minhash
and oph, n values of ffffffffffffffff; band gives it no keys.

Memory: one record at a time per worker; it streams.

EXAMPLES
   shingle --unit word corpus.jsonl | sketch -n 128 > sketches.tsv
   sketch --method oph -n 256 shingles.tsv
   sketch --method modm -m 32 shingles.tsv > samples.tsv`,
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "method", Value: "minhash", Usage: "sketch `METHOD`: minhash, oph, bottomk or modm"},
			&cli.IntFlag{Name: "n", Value: 128, Usage: "signature length (minhash, oph)"},
			&cli.IntFlag{Name: "s", Value: 128, Usage: "sample size (bottomk)"},
			&cli.Uint64Flag{Name: "m", Value: 32, Usage: "modulus (modm): keeps about one value in m"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed of the hash functions; sketches are comparable only under the same seed"},
		}, commonFlags()),
		Action: sketchAction,
	}
}

func sketchAction(c *cli.Context, env *Env) error {
	opt := sketch.Options{
		Method:   c.String("method"),
		N:        c.Int("n"),
		S:        c.Int("s"),
		M:        c.Uint64("m"),
		Seed:     c.Uint64("seed"),
		Jobs:     c.Int("jobs"),
		SkipBad:  c.Bool("skip-bad"),
		NoHeader: c.Bool("no-header"),
		Progress: c.Bool("progress"),
	}
	if err := opt.Check(); err != nil {
		return &UsageError{err}
	}
	out, err := openOutput(c, env)
	if err != nil {
		return err
	}
	opt.LineBuffered = lineBuffered(c, out)
	return out.finish(sketch.Run(env.Ctx, opt, c.Args().Slice(), out.w, env.Stderr))
}
