package cli

import (
	"github.com/neardup/neardup/internal/keep"
	"github.com/urfave/cli/v2"
)

// Keep is the keep stage.
func Keep() Stage {
	return Stage{
		Name:  "keep",
		Usage: "write the deduplicated corpus: one document per cluster",
		Args:  "[FILE...]",
		Description: `Reads the documents again, with a cluster file (--clusters FILE, the
"cluster TAB id" records of cluster), and writes the documents that remain,
byte for byte as they came in (a last line without a line end gets one):

   by default    one document per cluster, the one --prefer names, and every
                 document in no cluster (a cluster of its own)
   --drop        the documents removed: the others of each cluster
   --annotate    every document with its cluster: a field (--cluster-field,
                 default "cluster") added last to a JSON object, a last
                 column (TAB cluster) otherwise; a document in no cluster
                 gets its own id

The documents are read as shingle reads them, with the same ids: TSV
"id TAB text", JSON Lines (--id-field, --text-field), --files (each file a
document; what is written is its path, one a line, escaped as ids are) or
--lines (each line a document, its id the line number), or numbered in
arrival order (--number-from). gzip and zstd are read transparently; the
output is not compressed. Ids are compared in the escaped form records carry
them in. Lines that are neardup headers are copied (not with --drop).

By default the documents are read as the shingle header of the --clusters
file says shingle read them (format, id-field, text-field, ids=number
from=N); a flag given that disagrees is refused (status 2), naming both.
Without a shingle header (--no-header upstream), or when its shingle headers
differ (batches shingled apart: said on standard error), the flags and their
defaults say. An --id-field missing from a JSON line is bad input when the
field was given or is not the default "id"; a missing default "id" gives
the line number, counted on standard error.

The ids are checked: when none of the ids of the --clusters file is among
the documents read, keep stops with status 2, showing an id from each side
(the two-pass choices stop before writing; --prefer first and --annotate,
one pass, stop at the end, when part of standard output may be written,
but an -o FILE is not); when some are missing, their number is written on standard error
("keep: N of the M ids in clusters.tsv are not in the input").

--prefer chooses the document that stays:
   first     the first member in input order. One pass: the first member met
             is the first there is, so it is exact as the documents stream.
   id        the member with the smallest id among those in the input
   longest   the longest text (in bytes, after unescaping or JSON decoding;
             a file's bytes); ties to the smallest id, then the first
   shortest  the shortest, ties the same way
id, longest and shortest read the documents twice: a first pass finds each
cluster's choice among the members that are present, a second writes.
Standard input is copied to a temporary file (--temp-dir) for that.

Memory: the cluster map, about 40 bytes plus the id's length per document
in a cluster, and as much plus the name per cluster (16 more bytes with two
passes). The documents stream.

EXAMPLES
   cluster scored.tsv > clusters.tsv
   keep --clusters clusters.tsv corpus.jsonl.zst > deduplicated.jsonl
   keep --clusters clusters.tsv --prefer longest --drop docs.tsv > removed.tsv
   keep --clusters clusters.tsv --annotate corpus.jsonl | jq -c '{id, cluster}'
   find pages -type f | keep --clusters clusters.tsv --files | xargs cat`,
		SeeAlso: []string{"shingle", "cluster"},
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "clusters", Usage: "cluster records `FILE` (cluster TAB id)"},
			&cli.StringFlag{Name: "prefer", Value: keep.PreferFirst, Usage: "the document of a cluster that stays: first, longest, shortest or id"},
			&cli.BoolFlag{Name: "drop", Usage: "write the documents removed instead of those kept"},
			&cli.BoolFlag{Name: "annotate", Usage: "write every document with its cluster"},
			&cli.StringFlag{Name: "cluster-field", Value: "cluster", Usage: "--annotate, JSON Lines: the `NAME` of the field added"},
			&cli.StringFlag{Name: "temp-dir", Usage: "directory `DIR` for the copy of standard input that two passes need (default: the system's)"},
			&cli.BoolFlag{Name: "stats", Usage: "print on standard error how many documents were read, in clusters and written"},
		}, inputDocumentFlags(), []cli.Flag{
			jobsFlag(), outputFlag(), skipBadFlag(), progressFlag(), lineBufferedFlag(), countersFlag(),
		}),
		Action: keepAction,
	}
}

func keepAction(c *cli.Context, env *Env) error {
	rf, err := readingFlags(c)
	if err != nil {
		return err
	}
	opt := keep.Options{
		Clusters:     c.String("clusters"),
		Prefer:       c.String("prefer"),
		Drop:         c.Bool("drop"),
		Annotate:     c.Bool("annotate"),
		ClusterField: c.String("cluster-field"),
		Given:        rf,
		TempDir:      c.String("temp-dir"),
		Stats:        c.Bool("stats"),
	}
	return runStream(c, env, &opt, &opt.Common, keep.Run)
}
