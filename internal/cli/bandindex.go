package cli

import (
	"github.com/neardup/neardup/internal/bandindex"
	"github.com/neardup/neardup/internal/stream"
	"github.com/urfave/cli/v2"
	"io"
)

// BandIndex is the bandindex binary: a stored index of MinHash band keys.
func BandIndex() Stage {
	return Stage{
		Name:  "bandindex",
		Usage: "keep MinHash band keys on disk, for new documents to be paired with everything seen before",
		Args:  "IDX [FILE...]",
		Description: `Keeps the band records ("key TAB id", from band) of every document seen so
far in a directory, so that a batch of new documents is paired with them
without the old ones being recomputed (the crawler's daily batch, the
training corpus's update):

   bandindex build -o IDX [FILE...]     a new index from band records
   bandindex add IDX [FILE...]          a batch of band records, as new runs
   bandindex merge [--max-runs N] IDX   merge the newest runs into one
   bandindex stats [--check] IDX        parameters, runs, sizes, memory
   bandindex dump IDX                   every record, as band records

and pairs --against IDX reads a batch's band records and writes its
candidate pairs: among the new documents and between new and old, never
between two old ones, each once (see pairs(1)). The daily cycle:

   shingle new.jsonl > new-shingles.tsv
   sketch new-shingles.tsv | band -b 20 -r 5 > new-keys.tsv
   pairs --against crawl.idx new-keys.tsv > new-pairs.tsv
   bandindex add crawl.idx new-keys.tsv
   bandindex merge --max-runs 8 crawl.idx

It keeps containment keys too (band --containment T --containment-mode
stored: "key TAB id TAB role TAB size", stored as the key and the rest of
the record), for a query mode: a few documents the corpus's docfreq table
does not count (a licence, an article) against the stored corpus, without
banding it again. Every stored document that holds a query at
containment >= T, and every one the query holds, becomes a candidate:

   shingle --unit word -k 5 --files corpus > corpus.tsv
   docfreq corpus.tsv > df.tsv
   band --containment 0.9 --df df.tsv --containment-mode stored corpus.tsv |
       bandindex build -o corpus.idx
   shingle --unit word -k 5 --files query > query.tsv
   band --containment 0.9 --df df.tsv --containment-mode query query.tsv |
       pairs --against corpus.idx |
       verify --shingles both.tsv --containment --threshold 0.9

(both.tsv: the corpus's and the queries' shingle records, cat corpus.tsv
query.tsv). build and add take containment keys of mode=stored only (corpus
keys leave out shingles a query may share; query keys are paired, never
added), and add only under the same table (df= in the band header); pairs
--against takes a batch of mode=query or stored under the same parameters
otherwise. MinHash and containment keys never share an index.

The index is a log-structured set of sorted runs: each run (NNNNNN.run)
holds records sorted by key, then id, in zstd-compressed blocks of about
64 KiB, each key sharing its prefix with the one before, and a footer that
lists the first key of every block. add writes a batch as a new run (a
batch larger than --memory as several); lookups read every run, so merge
from time to time: it merges the newest runs into one, leaving --max-runs
(1 by default: the whole index in one run). A record stored twice counts
once. An index of more runs than files can be open at once (the open-file
limit, ulimit -n, less 128 kept for other files, or less half of a limit
below 256) still works: merge merges in rounds, the newest runs first,
each round committed as a merge of its own, to the run one merge would
write; pairs --against and dump first merge the newest runs into a
temporary run (in pairs' --temp-dir; dump's in the system's temporary
directory), removed when done. Each says so on standard error.

The manifest (IDX/MANIFEST, text) names the format version, the parameters
(the header lines of the records the index was built from: shingle, sketch
and band) and the runs with their sizes and checksums. add and pairs
--against refuse records made under other parameters, or without their
header lines, naming both values; a batch whose band header adds only
threshold=T to the index's (an index built before band wrote the threshold,
or from -b and -r) is accepted, as the keys are the same. With arrival
numbers (shingle --number-from) the manifest holds a line for each batch,
batch from=F next=N inputs=... (the shingle header's from= and inputs=, one
past the largest id); add refuses a batch numbered over them, naming both,
and adds nothing, said on standard error, for one it holds already (the
same from= and inputs=): a job that stopped after its add can run again.
Every block has a checksum, checked when
it is read (stats --check reads them all), and so have each run's footer
and the manifest, checked when the index is opened: damage is reported,
never read as records.

A change never alters a file the manifest names: new runs are written
beside the old ones (synced, renamed into place, the directory synced),
then a new manifest replaces the old one by a rename. A crash at any step
leaves the previous index readable, or the new one once the rename is
done; files left by an interrupted change are removed by the next one. One
command changes an index at a time (IDX/LOCK); any number may read it.

Memory: an open index holds the first key and place of every block (about
70 bytes per block of some 3000 records: 20 KB per million records); a
lookup reads one block of each run at a time. build and add hold up to
--memory of records (their bytes and 16 more each) before writing a run;
merge holds one block per run merged.

EXAMPLES
   sketch shingles.tsv | band -b 20 -r 5 | bandindex build -o crawl.idx
   bandindex add crawl.idx todays-keys.tsv
   pairs --against crawl.idx todays-keys.tsv | verify --shingles all-shingles.tsv
   bandindex merge crawl.idx
   bandindex stats --check crawl.idx
   bandindex dump crawl.idx | head`,
		SeeAlso: []string{"band", "pairs", "index"},
		Action:  bandIndexAction,
		Commands: []*cli.Command{
			subcommand(&cli.Command{
				Name:      "build",
				Usage:     "make a new index from band records",
				ArgsUsage: "[FILE...]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the index directory `IDX` to make (required)"},
					bandIndexMemoryFlag(), skipBadFlag(), progressFlag(),
				},
			}, bandIndexBuildAction),
			subcommand(&cli.Command{
				Name:      "add",
				Usage:     "add a batch of band records to an index as new runs",
				ArgsUsage: "IDX [FILE...]",
				Flags:     []cli.Flag{bandIndexMemoryFlag(), skipBadFlag(), progressFlag()},
			}, bandIndexAddAction),
			subcommand(&cli.Command{
				Name:      "merge",
				Usage:     "merge the newest runs of an index into one",
				ArgsUsage: "IDX",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "max-runs", Value: 1, Usage: "the runs to leave: the newest are merged until `N` remain"},
				},
			}, bandIndexMergeAction),
			subcommand(&cli.Command{
				Name:      "stats",
				Usage:     "print an index's parameters, runs, sizes and memory",
				ArgsUsage: "IDX",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "check", Usage: "read every block and verify its checksum, order and count"},
				},
			}, bandIndexStatsAction),
			subcommand(&cli.Command{
				Name:      "dump",
				Usage:     "write every record of an index once, sorted by key, then id",
				ArgsUsage: "IDX",
				Flags:     []cli.Flag{outputFlag(), compressFlag(), noHeaderFlag()},
			}, bandIndexDumpAction),
		},
	}
}

func bandIndexMemoryFlag() cli.Flag {
	return memoryFlag("records held before they are written as a run: `SIZE`")
}

// bandIndexAction runs when no known command is given.
func bandIndexAction(c *cli.Context, env *Env) error {
	if c.NArg() == 0 {
		cli.ShowAppHelp(c)
		return usagef("give a command: build, add, merge, stats or dump")
	}
	return usagef("unknown command %q: want build, add, merge, stats or dump", c.Args().First())
}

func bandIndexOptions(c *cli.Context) (bandindex.Options, error) {
	opt := bandindex.Options{Common: commonOptions(c, nil)}
	if takes(c, "memory") {
		mem, err := memoryOption(c)
		if err != nil {
			return opt, err
		}
		opt.MemoryBytes = mem
	}
	return opt, nil
}

func bandIndexBuildAction(c *cli.Context, env *Env) error {
	opt, err := bandIndexOptions(c)
	if err != nil {
		return err
	}
	if c.String("output") == "" {
		return usagef("give the index directory to make: bandindex build -o IDX [FILE...]")
	}
	return bandindex.RunBuild(env.Ctx, opt, c.String("output"), c.Args().Slice(), env.Stderr)
}

// bandIndexArg returns the one argument of a command that takes only IDX.
func bandIndexArg(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("give one index: bandindex %s IDX", c.Command.Name)
	}
	return c.Args().First(), nil
}

func bandIndexAddAction(c *cli.Context, env *Env) error {
	opt, err := bandIndexOptions(c)
	if err != nil {
		return err
	}
	if c.NArg() < 1 {
		return usagef("give the index: bandindex add IDX [FILE...]")
	}
	return bandindex.RunAdd(env.Ctx, opt, c.Args().First(), c.Args().Tail(), env.Stderr)
}

func bandIndexMergeAction(c *cli.Context, env *Env) error {
	dir, err := bandIndexArg(c)
	if err != nil {
		return err
	}
	if c.Int("max-runs") < 1 {
		return usagef("--max-runs %d: want 1 or more", c.Int("max-runs"))
	}
	return bandindex.RunMerge(env.Ctx, bandindex.Options{MaxRuns: c.Int("max-runs")}, dir, env.Stderr)
}

func bandIndexStatsAction(c *cli.Context, env *Env) error {
	dir, err := bandIndexArg(c)
	if err != nil {
		return err
	}
	ix, err := bandindex.Open(dir)
	if err != nil {
		return err
	}
	defer ix.Close()
	return bandindex.Stats(ix, c.Bool("check"), env.Stdout)
}

func bandIndexDumpAction(c *cli.Context, env *Env) error {
	dir, err := bandIndexArg(c)
	if err != nil {
		return err
	}
	ix, err := bandindex.OpenAll(dir, "", "bandindex", env.Stderr)
	if err != nil {
		return err
	}
	defer ix.Close()
	return writeOutput(c, env, func(w io.Writer, common stream.Common) error {
		return bandindex.Dump(env.Ctx, ix, common.NoHeader, w)
	})
}
