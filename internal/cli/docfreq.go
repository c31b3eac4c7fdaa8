package cli

import (
	"io"

	"github.com/neardup/neardup/internal/docfreq"
	"github.com/neardup/neardup/internal/stream"
	"github.com/urfave/cli/v2"
)

// DocFreq is the docfreq stage.
func DocFreq() Stage {
	return Stage{
		Name:  "docfreq",
		Usage: "count in how many documents each shingle occurs, for idf weights",
		Args:  "[FILE...]",
		Description: `Reads shingle records and writes the document-frequency table that
sketch --method simhash --weight idf reads (--df FILE):

   #neardup stage=shingle …          the shingle parameters, copied
   #neardup stage=docfreq docs=N     the number of documents counted
   hash TAB count                    ascending by hash, each hash once

count is the number of documents whose shingle record holds the hash.

The pass is a map/reduce keyed on the hash. Counting holds one entry per
distinct hash, about 36 bytes each; when the table would outgrow --memory it
is written sorted to a run file in --temp-dir and counting starts again, and
the runs are merged at the end: any input size works, at the cost of disk
space for the runs.

With --merge it instead merges tables sorted by hash, streaming, with one
line per input in memory: the tables of shards counted apart (on other
machines, or by GNU parallel), or a single stream in which equal hashes are
adjacent (LC_ALL=C sort, a Hadoop Streaming reducer). Counts of equal hashes
are added, and so are the document counts of the docfreq header lines read:
each header line is one partial table, so do not feed one table twice. The
shingle headers of all inputs must agree.

EXAMPLES
   shingle --unit word -k 1 corpus.jsonl | docfreq > df.tsv
   sketch --method simhash --weight idf --df df.tsv shingles.tsv
   # shards counted apart, then merged
   ls shard*.tsv | parallel 'docfreq {} > {.}.df'
   docfreq --merge shard*.df > df.tsv
   # as a sorted stream (what a reducer reads)
   cat shard*.df | LC_ALL=C sort -S 2G | docfreq --merge > df.tsv`,
		SeeAlso: []string{"shingle", "sketch"},
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "merge", Usage: "merge tables sorted by hash instead of counting shingle records"},
			&cli.StringFlag{Name: "memory", Value: "1G", Usage: "counting table `SIZE` before it spills a sorted run to disk (K, M, G suffixes)"},
			&cli.StringFlag{Name: "temp-dir", Usage: "directory `DIR` for spilled runs (default: the system's)"},
			jobsFlag(), outputFlag(), compressFlag(), skipBadFlag(), progressFlag(), countersFlag(),
		},
		Action: docfreqAction,
	}
}

func docfreqAction(c *cli.Context, env *Env) error {
	mem, err := parseSize(c.String("memory"))
	if err != nil {
		return usagef("--memory: %v", err)
	}
	opt := docfreq.Options{MemoryBytes: mem, TempDir: c.String("temp-dir")}
	if c.Bool("merge") {
		return writeOutput(c, env, func(w io.Writer, _ stream.Common) error {
			return docfreq.Merge(env.Ctx, c.Args().Slice(), w)
		})
	}
	return runStream(c, env, &opt, &opt.Common, docfreq.Run)
}
