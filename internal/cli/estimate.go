package cli

import (
	"io"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/estimate"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/stream"
	"github.com/urfave/cli/v2"
)

// Estimate is the estimate command.
func Estimate() Stage {
	return Stage{
		Name:  "estimate",
		Usage: "predict what the dedup job will do to a corpus, and its time and memory, from samples of it",
		Args:  "FILE...",
		Description: `Reads the corpus once, as shingle reads documents, draws samples of it,
runs the dedup job (dedup, examples/dedup.sh) on each with the job flags
given, and predicts from them what the job would do on the whole corpus
on this machine: the documents dropped, the verified pairs, the largest
bucket, each stage's time and peak memory. Each estimate comes with an
interval. Standard output has a header line and one line a quantity:

   quantity TAB estimate TAB low TAB high

documents and bytes (of text) are counted, not estimated. dropped and
dropped-share, verified-pairs, largest-bucket (- when no sample held a
bucket above pairs' --max-bucket 512: the high is then 512 over the
largest fraction), then for each stage (shingle, pairs, verify, keep)
STAGE-wall-seconds, STAGE-cpu-seconds and STAGE-peak-mib, and
job-wall-seconds and job-cpu-seconds. Standard error says what was sampled
and what the job did on each sample.

THE SAMPLES
   Each --fraction F (default 0.01,0.02,0.04) is drawn --replicates times
   (default 2): a document is in a sample when a hash of its arrival
   number (of its path with --files), seeded by --sample-seed and the
   sample's number, falls below F. The samples are independent of one
   another and keep the corpus's order; each is written as TSV (id TAB
   text, the ids the documents' arrival numbers) under -T (default
   $TMPDIR), with the job's scratch, and removed at the end. The samples
   take about the sum of the fractions (0.14 by default) of the job's time
   and of the corpus's size on disk.

HOW EACH QUANTITY IS PREDICTED
   dropped: a cluster (a kept document and those dropped for it, from the
   job's report) of s documents is a cluster of Binomial(s, f) documents
   of a sample drawn with chance f. The shares of the corpus's documents
   in clusters of each size are fitted, non-negative, to the samples'
   cluster sizes (least squares, each count weighted by its Poisson
   spread); one document of each cluster is kept. The interval (95%)
   holds every share whose best fit is within 3.84 of the best χ²: a
   large cluster of which a sample holds one document looks like a
   document in none, and the interval widens with what small samples
   cannot see. When the documents of a cluster are not all
   near-duplicates of each other (copies of an original, not of each
   other) a sample without the original splits them, and the share is
   underestimated: standard error warns when the fit is poor.
   verified-pairs: a pair is in a sample drawn with chance f with chance
   f², so the pairs of the samples over the sum of f²; the interval is
   the least and greatest of each sample's pairs over its f².
   largest-bucket: the largest bucket a sample held above --max-bucket,
   over its f (the median, least and greatest of the samples').
   Times and peaks: each fitted over the samples as c + a·documents +
   b·pairs (non-negative), taken at the corpus's documents and estimated
   pairs; the interval is the least and greatest of that fit and of the
   fits leaving one sample out, at the low and high pairs. pairs, verify
   and keep hold at most their --memory (the machine's default: an eighth
   of its memory, at most 2G), spilling beyond it: their peaks are capped
   there, and their time beyond it is the part least sure.

The job is dedup beside estimate (make build, make install), else on
$PATH, else --dedup. -t, -m, --rule and shingle's flags are passed to the
job; --format, --files, --lines, --id-field and --text-field say how the
corpus is read; --text and --main are passed to the job, which extracts
the text from the samples as it would from the corpus.

EXAMPLES
   estimate crawl.jsonl.zst
   estimate --fraction 0.001,0.002,0.004 -t 0.7 -k 5 --unit word crawl.jsonl.zst
   estimate --id-field url --text-field content -T /scratch part-*.parquet`,
		SeeAlso: []string{"shingle", "pairs", "verify", "keep"},
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "fraction", Value: "0.01,0.02,0.04", Usage: "the samples' fractions: a comma-separated `LIST` of shares between 0 and 1"},
			&cli.IntFlag{Name: "replicates", Value: estimate.DefaultReplicates, Usage: "the samples drawn at each fraction, each with its own seed"},
			&cli.Uint64Flag{Name: "sample-seed", Value: 1, Usage: "the seed the samples are drawn by"},
			&cli.StringFlag{Name: "tmpdir", Aliases: []string{"T"}, Usage: "the directory `DIR` the samples and the job's files go to (default $TMPDIR or /tmp)"},
			&cli.StringFlag{Name: "dedup", Usage: "the job's `COMMAND` (default: dedup beside estimate, else on $PATH)"},
			&cli.Float64Flag{Name: "t", Usage: "the job's -t: least Jaccard similarity `T` of a near-duplicate (default 0.8)"},
			&cli.StringFlag{Name: "m", Usage: "the job's -m `METHOD`: oph or minhash"},
			&cli.StringFlag{Name: "rule", Usage: "the job's --rule `RULE`: arrival or kept"},
			&cli.StringFlag{Name: "unit", Usage: "shingle's --unit `UNIT`, for the job"},
			&cli.IntFlag{Name: "k", Usage: "shingle's -k `K`, for the job"},
			&cli.StringFlag{Name: "hash", Usage: "shingle's --hash `HASH`, for the job"},
			&cli.StringFlag{Name: "seed", Usage: "shingle's --seed `SEED`, for the job"},
			&cli.StringFlag{Name: "normalize", Usage: "shingle's --normalize `LIST`, for the job"},
			&cli.StringFlag{Name: "stopwords", Usage: "shingle's --stopwords `FILE`, for the job"},
		}, documentFlagsExcept("number-from"), []cli.Flag{jobsFlag(), outputFlag(), noHeaderFlag(), skipBadFlag(), progressFlag()}),
		Action: estimateAction,
	}
}

// jobFlags are estimate's flags passed to the job as they were given.
var jobFlags = []string{"m", "rule", "unit", "hash", "seed", "normalize", "stopwords", "text", "jobs"}

func estimateAction(c *cli.Context, env *Env) error {
	if c.NArg() == 0 {
		return usagef("give the corpus: files (or directories with --files)")
	}
	rf, err := readingFlags(c)
	if err != nil {
		return err
	}
	if err := detectParquet(&rf, c.Args().Slice()); err != nil {
		return err
	}
	rd := rf.Reading
	rd.IDRequired = rf.IDFieldSet
	// The job takes the text from the samples' documents as stored.
	rd.Text, rd.Main = "", false
	opt := estimate.Options{
		Replicates: c.Int("replicates"), Seed: c.Uint64("sample-seed"),
		Dedup: c.String("dedup"), TempDir: c.String("tmpdir"),
		Threshold: c.Float64("t"), K: c.Int("k"),
		Reading: rd,
	}
	for _, v := range strings.Split(c.String("fraction"), ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return usagef("--fraction %q: want shares between 0 and 1, separated by commas", c.String("fraction"))
		}
		opt.Fractions = append(opt.Fractions, f)
	}
	if c.IsSet("replicates") && opt.Replicates < 1 {
		return usagef("--replicates %d: want 1 to %d", opt.Replicates, estimate.MaxReplicates)
	}
	// The options take 0 for "not given" (the job's default).
	if c.IsSet("t") && opt.Threshold == 0 {
		return usagef("-t 0: want a similarity above 0, at most 1")
	}
	if c.IsSet("k") && opt.K == 0 {
		return shingle.CheckK(0)
	}
	for _, name := range jobFlags {
		if c.IsSet(name) {
			opt.Job = append(opt.Job, flagName(name), c.String(name))
		}
	}
	if c.Bool("main") {
		opt.Job = append(opt.Job, "--main")
	}
	return writeOutput(c, env, func(w io.Writer, common stream.Common) error {
		opt.Common = common
		return estimate.Run(env.Ctx, opt, c.Args().Slice(), w, env.Stderr)
	})
}
