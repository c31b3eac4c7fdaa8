package cli

import (
	"github.com/neardup/neardup/internal/index"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
	"github.com/urfave/cli/v2"
	"io"
)

// envKey is where NewApp leaves the Env for subcommands.
const envKey = "neardup-env"

// commandEnv returns the Env of the app a subcommand runs in.
func commandEnv(c *cli.Context) *Env {
	for _, ctx := range c.Lineage() {
		if ctx.App != nil {
			if env, ok := ctx.App.Metadata[envKey].(*Env); ok {
				return env
			}
		}
	}
	return &Env{}
}

// subcommand wraps an action the way NewApp wraps a stage's.
func subcommand(cmd *cli.Command, action func(c *cli.Context, env *Env) error) *cli.Command {
	cmd.Action = func(c *cli.Context) error {
		env := commandEnv(c)
		if err := checkArgs(c, env.operands); err != nil {
			return err
		}
		return action(c, env)
	}
	cmd.HideHelpCommand = true
	// A flag value that does not parse is a usage error, as at the top
	// level (NewApp), not a runtime one.
	cmd.OnUsageError = func(c *cli.Context, err error, isSub bool) error {
		return status.Usage(err)
	}
	return cmd
}

// Index is the index binary: a stored fingerprint index.
func Index() Stage {
	return Stage{
		Name:  "index",
		Usage: "keep SimHash fingerprints in a file and find those within k bits of queries",
		Args:  "IDX [FILE...]",
		Description: `Keeps 64-bit SimHash fingerprints (sketch --method simhash) on disk and
finds, for each query fingerprint, every stored one within k bits, without
rebuilding anything (Manku, Jain and Das Sarma 2007, the crawler's case):

   index build -k 3 [--blocks B] -o IDX [FILE...]    from simhash sketch records
   index add IDX [FILE...]                           merge more records in
   index query IDX [FILE...]                         answer queries
   index stats IDX                                   layout, counts, sizes

Queries are simhash sketch records, or bare fingerprints of 16 hex digits
one a line (their own id); the output is

   query_id TAB stored_id TAB distance

for every stored (fingerprint, id) within the distance (--distance, at most
the k of the build), by query in input order, then by distance and stored
id. By default each query is answered as it is read (the online mode:
with --line-buffered, answers leave as soon as a line arrives). --batch reads
all queries first, then for each table sorts them the way the table is
sorted and merges the two in one pass (the paper's batch mode), decoding
only the blocks some query's key falls in: many times the online rate when
the queries are many (about 13 times, on one thread, for a million queries
against 10 million fingerprints). On amd64 the fingerprints that share a
query's key are checked eight at a time with AVX-512 (VPOPCNTQ) where the
processor has it, else four at a time with POPCNT (11 times;
GODEBUG=cpu.avx512vpopcntdq=off chooses it).

The fingerprint is cut into B blocks (--blocks) and every choice of B-k of
them is one table: the fingerprints with those blocks moved to the front,
sorted. A query probes each table on its key and checks the distance of
what it finds; two fingerprints within k bits agree on at least B-k blocks,
so the search is exact, and each match is reported from its first table
only. More blocks make more tables (C(B,k)) with longer keys: fewer stored
fingerprints share a query's key, so a probe reads and checks fewer, but
the index grows with the tables. By default B is the fewest blocks that
leave at most 256 stored fingerprints sharing a key by chance: for k = 3, 4
blocks (4 tables keyed on 16 bits) up to 16 million fingerprints, 5 blocks
(10 tables keyed on 25-26 bits) up to 8 billion. At 10 million fingerprints
--blocks 4 against 5: 33 against 68 bytes per fingerprint on disk (and in
memory once read), 2.8 against 4.6 s to build, online queries about as fast
(7 µs), batch 1.8 times faster. At 16 million the 4 tables' probes
check about 250 fingerprints each and online queries are slower than with
--blocks 5 (9 against 7 µs; batch still 1.7 times faster, the file half the
size); past that the default takes 5 blocks. Use --blocks to trade size for
online latency.

Each table is stored in blocks (--block-size fingerprints): the first
fingerprint whole, then for each next one the position of its first bit
that differs from its predecessor, in a Huffman code (one per table,
canonical, codes of at most 11 bits), and after all the positions the bits
after each position: about 64 - log2(n) + 2 bits per fingerprint instead of
64. Positions are decoded by looking up 11 bits at a time (up to four
codes), the fingerprints then from their positions and bits. index stats
reports the bytes per fingerprint per table against the raw 8.

The file carries a format version, the parameters (k, blocks, block size)
and the header lines of the records it was built from (shingle and sketch
parameters, seeds); add and query refuse records made under other
parameters. Files of an older format version are refused: build them again.
The footer has a checksum, checked when the index is opened, and every
block its own, checked when it is read, once per block in a batch (index
stats --check reads them all): a damaged or truncated file is refused with a
message. build and add write a new file beside IDX (.IDX.tmp-*), sync it and
rename it over IDX, so a crash leaves the previous index intact (and perhaps
that file, which can be removed).

Memory: the last fingerprint and the offset of every block of every table,
about 20 bytes per block (0.3 bytes per fingerprint and table with blocks of
64), and a 16 KB decoding table per table are held in memory; the blocks are
read from a read-only memory map as queries need them, so an index larger
than memory answers (each block not in the page cache costs a disk read). An
online query reads, in each table, the directory entries of its key and the
blocks that hold the key (one or a few of about 360 bytes), and for each
answer a block of the first table and its block of ids; the pages it reads
stay mapped, so a long run of queries ends with most of the file resident.
A batch reads every block. An online query holds its own answers (about
40 bytes each and the id) while it sorts them, and each job passes its
output on whenever it reaches 1 MiB, in input order: memory does not grow
with the answers of the queries around it, however many documents share a
fingerprint, and the first answers leave at once (| head -1). index stats
gives the file's and the directory's sizes. build and add hold the records they read (8 bytes per fingerprint,
the id and 8 bytes more) and, per job, one table being encoded: 8 bytes per
fingerprint and its compressed bytes. query --batch holds the queries (the
id and 16 bytes each), about 50 bytes per query while the tables are merged
(16 more per job), and about 100 bytes per answer and its id.

EXAMPLES
   shingle --unit word -k 1 --counts --files site/ | sketch --method simhash > fp.tsv
   index build -k 3 -o crawl.idx fp.tsv
   index query crawl.idx new-fp.tsv
   index query --batch crawl.idx todays-pages.tsv > near.tsv
   index add crawl.idx new-fp.tsv
   index stats --check crawl.idx`,
		SeeAlso: []string{"sketch", "band", "pairs", "bandindex"},
		Action:  indexAction,
		Commands: []*cli.Command{
			subcommand(&cli.Command{
				Name:      "build",
				Usage:     "build an index from simhash sketch records",
				ArgsUsage: "[FILE...]",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "k", Value: 3, Usage: "the largest distance in bits the index answers"},
					&cli.IntFlag{Name: "blocks", Usage: "blocks the fingerprint is cut into, more than k", DefaultText: "chosen from the number of fingerprints"},
					&cli.IntFlag{Name: "block-size", Value: index.DefaultBlockSize, Usage: "fingerprints per compressed block"},
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the index to `IDX` (required)"},
					jobsFlag(), skipBadFlag(), progressFlag(),
				},
			}, indexBuildAction),
			subcommand(&cli.Command{
				Name:      "add",
				Usage:     "merge simhash sketch records into an index",
				ArgsUsage: "IDX [FILE...]",
				Flags:     []cli.Flag{jobsFlag(), skipBadFlag(), progressFlag()},
			}, indexAddAction),
			subcommand(&cli.Command{
				Name:      "query",
				Usage:     "find the stored fingerprints within k bits of each query",
				ArgsUsage: "IDX [FILE...]",
				Flags: merge([]cli.Flag{
					&cli.IntFlag{Name: "distance", Aliases: []string{"d"}, Value: -1, Usage: "largest distance in bits", DefaultText: "the index's k"},
					&cli.BoolFlag{Name: "batch", Usage: "read all queries, then merge them with each table in one pass"},
				}, commonFlags()),
			}, indexQueryAction),
			subcommand(&cli.Command{
				Name:      "stats",
				Usage:     "print an index's layout, counts and bytes per fingerprint",
				ArgsUsage: "IDX",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "check", Usage: "read every block and verify its checksum, order and count"},
				},
			}, indexStatsAction),
		},
	}
}

// indexAction runs when no known command is given.
func indexAction(c *cli.Context, env *Env) error {
	if c.NArg() == 0 {
		cli.ShowAppHelp(c)
		return usagef("give a command: build, add, query or stats")
	}
	return usagef("unknown command %q: want build, add, query or stats", c.Args().First())
}

// indexOptions reads the common flags of build and add, which write no
// stream.
func indexOptions(c *cli.Context) index.Options {
	return index.Options{Common: commonOptions(c, nil)}
}

func indexBuildAction(c *cli.Context, env *Env) error {
	opt := indexOptions(c)
	opt.K, opt.Blocks, opt.BlockSize = c.Int("k"), c.Int("blocks"), c.Int("block-size")
	if c.String("output") == "" {
		return usagef("give the index file to write: index build -o IDX [FILE...]")
	}
	if opt.K < 0 || opt.K > 63 {
		return usagef("-k %d: want a distance of 0 to 63 bits", opt.K)
	}
	if c.IsSet("blocks") && (opt.Blocks <= opt.K || opt.Blocks > 64) {
		return usagef("--blocks %d: want more blocks than k = %d, at most 64", opt.Blocks, opt.K)
	}
	if opt.BlockSize < 1 || opt.BlockSize > 0xffff {
		return usagef("--block-size %d: want 1 to 65535", opt.BlockSize)
	}
	return index.RunBuild(env.Ctx, opt, c.String("output"), c.Args().Slice(), env.Stderr)
}

// indexArgs splits IDX from the files.
func indexArgs(c *cli.Context) (string, []string, error) {
	if c.NArg() < 1 {
		return "", nil, usagef("give the index: %s IDX [FILE...]", c.Command.Name)
	}
	return c.Args().First(), c.Args().Tail(), nil
}

func indexAddAction(c *cli.Context, env *Env) error {
	path, files, err := indexArgs(c)
	if err != nil {
		return err
	}
	return index.RunAdd(env.Ctx, indexOptions(c), path, files, env.Stderr)
}

func indexQueryAction(c *cli.Context, env *Env) error {
	path, files, err := indexArgs(c)
	if err != nil {
		return err
	}
	opt := index.Options{Distance: c.Int("distance"), Batch: c.Bool("batch")}
	if opt.Distance < -1 || opt.Distance > 63 {
		return usagef("--distance %d: want 0 to 63 bits", opt.Distance)
	}
	return writeOutput(c, env, func(w io.Writer, common stream.Common) error {
		opt.Common = common
		return index.RunQuery(env.Ctx, opt, path, files, w, env.Stderr)
	})
}

func indexStatsAction(c *cli.Context, env *Env) error {
	if c.NArg() != 1 {
		return usagef("give one index: index stats IDX")
	}
	ix, err := index.Open(c.Args().First())
	if err != nil {
		return err
	}
	defer ix.Close()
	return index.Stats(ix, c.Bool("check"), env.Stdout)
}
