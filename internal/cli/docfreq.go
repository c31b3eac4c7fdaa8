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

The pass is a map/reduce keyed on the hash. Counting keeps every hash it
reads, 8 bytes each, in one buffer of 8/9 of --memory (the rest is the
scratch of sorting it), cut into 256 regions by the top 8 bits of the
hashes: the jobs put each chunk's hashes in their regions as they parse
them (a region full while the buffer is less than 7/8 full has the
regions laid out again by how much each holds). When the buffer is full
each region is sorted in place, by up to 8 jobs, and the distinct hashes
with their counts are written to a run file in --temp-dir, 9 to 18 bytes
each, and counting starts again. The runs are merged at the end, 64 at most at
once (past 64 the runs are merged into one on the way): any input size
works, at the cost of disk space for the runs. Sorting is a few linear
passes over the buffer, so counting takes about as long as sketch on the
same shingles.

Memory: the peak resident size is at most --memory plus about 10 MiB, plus
10 MiB per job (the chunks in flight and their parsed hashes), whatever the
input: one-word documents, one huge document or one hash in every document.
Pages of the buffer that are never written are never resident, so a small
input takes little whatever --memory says.

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
			memoryFlag("counting buffer `SIZE` before it spills a sorted run to disk"),
			&cli.StringFlag{Name: "temp-dir", Usage: "directory `DIR` for spilled runs (default: the system's)"},
			jobsFlag(), outputFlag(), compressFlag(), skipBadFlag(), progressFlag(), countersFlag(),
		},
		Action: docfreqAction,
	}
}

func docfreqAction(c *cli.Context, env *Env) error {
	mem, err := memoryOption(c)
	if err != nil {
		return err
	}
	opt := docfreq.Options{MemoryBytes: mem, TempDir: c.String("temp-dir")}
	if c.Bool("merge") {
		return writeOutput(c, env, func(w io.Writer, _ stream.Common) error {
			return docfreq.Merge(env.Ctx, c.Args().Slice(), w)
		})
	}
	return runStream(c, env, &opt, &opt.Common, docfreq.Run)
}
