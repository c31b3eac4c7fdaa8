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
largest fraction; - is a quantity not estimated, only bounded), then for each stage (shingle, which
pairs the band records in its process, verify, keep)
STAGE-wall-seconds, STAGE-cpu-seconds and STAGE-peak-mib, and
job-wall-seconds and job-cpu-seconds. Standard error says what was sampled
and what the job did on each sample.

The job is dedup beside estimate (make build, make install), else on
$PATH, else --dedup. -t, -m, --rule and shingle's flags are passed to the
job; --format, --files, --lines, --id-field and --text-field say how the
corpus is read; --text and --main are passed to the job, which extracts
the text from the samples as it would from the corpus. The job is run
first on one document, so that flags it refuses stop estimate before the
corpus is read (status 2, with the job's message).

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
cannot see: larger fractions narrow it. When the documents of a
cluster are not all near-duplicates of each other (copies of an
original, not of each other) a sample without the original splits
them, and the share is underestimated, which the fit cannot tell
(split clusters fit as well); standard error warns when it fits
badly.

verified-pairs: a pair is in a sample drawn with chance f with chance
f², so the pairs of the samples over the sum of f²; the interval is
the least and greatest of each sample's pairs over its f². A bucket
above pairs' --max-bucket pairs each id past its first 512 with 32 only,
and its pairs grow slower than f²: when a sample held one, the pairs are
bounded, not estimated (-), at least the most a sample verified and at
most the samples' scaled up.

largest-bucket: the largest bucket a sample held above --max-bucket,
over its f (the median, least and greatest of the samples').

Times: each stage's fitted over the samples as c + a·documents (not
negative), taken at the corpus's documents; the interval is the least
and greatest of that fit and of the fits leaving one sample out. The
samples hold f² of the pairs, too few to time, so no term in pairs is
fitted (one would be scaled by 1/f²): verify, which shingles again
each document in a pair, adds for each document in a cluster (of the
dropped share's fit) shingle's fitted CPU time a document (its band
records' pairing included: a little high). The interval is the fit's;
the machine's load moves a run's times too.

Peaks: at least the largest sample's. shingle (which holds the band
records to pair them), verify and keep hold what grows with the corpus
up to their --memory (the machine's default: an eighth of its memory, at
most 2G) and spill beyond it: the straight line in the documents, at
most --memory (plus their peak on the smallest sample), which is their
high.

MEASURED

With pairs a process of its own (before dedup.sh's shingle --pairs):
gencorpus -n 200000 -seed 1 -min-words 50 -max-words 1000 -plant 0.3
(306 MB), default flags, against the job run just after: dropped
38,626 [25,924, 66,961] (the job: 51,349); verified pairs 67,143
[57,500, 80,000] (69,184); job wall 8.5 s [6.9, 10.3] (8.8), CPU
14.1 s [12.5, 16.5] (13.0); estimate took 3 s. The planted copies
are copies of an original, rarely of each other, and the point
estimate of the dropped share is low by the split clusters; with
--fraction 0.05,0.1,0.2 (8 s) dropped 51,624 [49,737, 53,941] and
verified pairs 68,562 [66,400, 74,400].

The same at -n 1000000 (1.5 GB; the job took 77 s wall, 64 s CPU,
dropped 255,717, verified 344,323 pairs; the machine shared, load 3
to 5): estimate took 6 s, dropped 236,975 [187,295, 314,572], pairs
339,286 [305,000, 370,000], job 42 s wall [39, 47], 47 s CPU [43,
51]: pairs' CPU (12 s over 6) and verify's (19 over 13) grow faster
than the documents, which a sample of 1 to 4% does not show. At
0.05,0.1,0.2 (35 s): dropped 251,481 [247,084, 256,870], pairs
343,486 [334,900, 359,600], job 62 s wall [54, 67], 69 s CPU.

At 10,000,000 (examples/scale.sh's crawl: 13.5 GB .jsonl.zst, 28.5 GB
of text; default flags; a second process busy beside both runs):
estimate took 121 s wall, 454 MB; dropped 2,506,940 [2,181,380,
2,824,826] (the job: 2,571,788), verified pairs 3,460,952 [3,407,500,
3,540,000] (3,407,647), peaks within their bounds (pairs 1,990 MiB,
verify 1,988, keep 435, shingle 108); but job CPU 827 s [785, 865]
against 1,391, wall 548 s [427, 584] against 763. The samples are
TSV then: the job's decompressing of the .zst (keep 120 s of CPU
against 19 estimated) was not in the estimate; a zstd corpus now gets
zstd samples. Pairs' and verify's growth past the samples' sizes is
still not in it: take its times as a floor.

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
