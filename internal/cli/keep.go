package cli

import (
	"github.com/neardup/neardup/internal/keep"
	"github.com/urfave/cli/v2"
)

// Keep is the keep stage.
func Keep() Stage {
	return Stage{
		Name:  "keep",
		Usage: "write the deduplicated corpus: drop near-duplicates of earlier documents",
		Args:  "[FILE...]",
		Description: `Reads the documents again, with the verified pairs (--pairs FILE, the scored
pairs of verify) or a cluster file (--clusters FILE, the "cluster TAB id"
records of cluster), and writes the documents that remain, byte for byte as
they came in (a last line without a line end gets one):

   by default    the documents that stay, and every document in no pair or
                 cluster
   --drop        the documents removed
   --annotate    every document with its cluster: a field (--cluster-field,
                 default "cluster") added last to a JSON object, a last
                 column (TAB cluster) otherwise; a document in no pair or
                 cluster gets its own id. A cluster is named after the
                 document kept. With --drop: the documents removed,
                 annotated.

WARC
WARC input (see shingle: --format warc, or recognised by its first line)
is written back as WARC, each record written byte for byte as stored: for
a .warc.gz, its gzip member copied unchanged, so that the output is a valid
.warc.gz (a member that holds several records can't be copied one by one:
keep stops, naming the record; recompress the file record by record).
warcinfo records are written. request, metadata and revisit records that
concern a document (one names the other by WARC-Concurrent-To or
WARC-Refers-To, or, failing that, it has the document's WARC-Target-URI and
only such records lie between them) are written with it when --related is
given and it is written, and dropped otherwise; standard error counts them
("keep: WARC request, metadata and revisit records: 4 written with their
document, 1 dropped with theirs, …"), and the records of other kinds (non-HTTP
responses, conversion, continuation), which are not written. --annotate
does not go with WARC.

WHAT A DEDUP DROPS (--pairs)
The documents are read in arrival order (the input order; across
incremental batches, batch after batch). By the arrival rule (--rule
arrival, the default; --rule kept below), a document is dropped when it has
a verified pair (a scored pair of verify, at or above its threshold) with a
document that arrived before it, kept or dropped. So no two kept documents
are near-duplicates, and since it is decided in arrival order, a batch run
against everything seen before drops exactly what a one-shot run over all
the batches drops. Chains: with A~B and B~C, A and C unrelated, arriving A,
B, C, B and C are dropped, and the report shows C -> B -> A: C is dropped
via B, and both belong to A, the kept document the chain ends at.

A pair whose other document is not in the input counts as earlier: it came
in an older batch (pairs --against). Standard error says how many:
"keep: N pair(s) with documents not in the input, taken as seen before".
To know which ids are in the input before deciding, keep reads the
documents twice (standard input is copied to --temp-dir), unless the ids
are arrival numbers: when the pairs' shingle header says ids=number from=N
(shingle --number-from N), an id below N came before, and one pass does.

Memory, with arrival numbers (the dedup job's ids): the pairs are read into
a buffer of --memory (24 bytes a pair), grouped by their later document;
beyond it they are spilled to sorted runs in --temp-dir (20 bytes a pair)
and merged, said on standard error ("keep: N pairs beyond --memory M:
spilled to R sorted run(s) …"), and the output is the same for any
--memory. What stays while the documents stream is a bit per arrival
number between the least and the greatest in a pair (numbers spread wider
than --memory has bits are refused) and 32 bytes per document dropped,
whatever the ids or the number of pairs. Measured on 1
million documents (synthetic: 700,000 pairs, 350,000 dropped; two shared
cores, under load): 99 MB peak resident memory, 69 MB of it what keep
holds with no pairs (the runtime, the documents in flight), so 30 bytes a
document (it was 80 with the ids interned), and 0.8 CPU seconds; 97 MB
with --memory 1M (25 runs). At 10 million documents a third dropped, the
decisions hold 110 MB.

Memory, with other ids (TSV ids, JSON id fields, --files paths): while the
pairs fit in half of --memory (the ids in pairs interned, about 20 bytes
plus the id, and some 54 bytes a pair, graph and decisions included), in
memory. Beyond, keep sorts on disk, within --memory: the pairs' ids (each
with its pair's place) and, in the first pass over the documents, the
documents' ids (each with its place in the input) are sorted by id in
buffers of --memory, spilled to sorted runs in --temp-dir and merged; the
merge turns each pair into a pair of ranks (a document's place; an id not
among the documents ranks before them all, in the order of the ids), and
the rule of arrival numbers above decides from those. The ids of the kept
and via documents that the report and --annotate write are fetched by a
last sort. Standard error says so ("keep: N pairs of ids that are not
arrival numbers beyond --memory M: the pairs' and the D documents' ids
spilled to R sorted run(s) …"), and the output is the same for any --memory
and -j. What is held beyond --memory: a bit per document, 32 bytes per
document dropped and 16 per document repeating an id in a pair. Measured on
1 million documents of 5 to 20 words with ids like page-9e3779b1 and 1
million pairs (700,000 dropped; two shared cores, under load): in memory
(--memory 2G) 3.2 CPU seconds and 182 MB peak resident memory (80 MB with
no pairs); with --memory 64M 5.7 CPU seconds and 171 MB, 183 MB spilled.
At 3 million documents and pairs: 7.9 CPU seconds and 443 MB in memory; 16
CPU seconds and 251 MB with --memory 64M (67 MB of it the decisions).
--containment holds its pairs in memory as above whatever their number
(16 bytes more per id, for the lengths and the decisions made ahead), not
bounded by --memory.

With arrival numbers, every document of a bucket larger than pairs
--max-bucket (default 512) is paired with the bucket's earliest documents
(--reps, 32), so a group of copies, however large, keeps its first
document and drops the rest.

THE KEPT RULE (--rule kept)
--rule kept (the default is --rule arrival, above) drops a document only
when it has a verified pair with an earlier document that was kept, so
every dropped document has a kept near-duplicate (LanceDB's
direct_representative): its via, also its kept document in the report. On
the chain above B is dropped via A and C is kept: nothing kept is near it.
No two kept documents are near-duplicates under either rule. A document
not in the input counts as kept unless it is among the dropped ids (first
column) of the reports of earlier batches given with --dropped FILE
(repeat for more; dedup-incremental --rule kept gives them), so batch by
batch drops what one run drops. Every form of the rule above applies it,
with the same memory; with arrival numbers or spilled, 12 bytes more a
document paired with an older batch, and 8 per arrival number in
--dropped. --dropped with other ids where the pairs pass --memory is
refused (status 1): those ids would be held beyond it. So are pairs made
with shingle --collapse (status 2), which pair a copy with the first of its
set only: a copy whose first was dropped would have no kept partner among
them (examples/dedup.sh collapses for the arrival rule alone).

Measured on 14,913 real documents (man pages, /usr/share/doc, Go source
and modules) with examples/dedup.sh (-t 0.8), a drop "with no kept
near-duplicate" having no pair, in the output of its verify stage, with a
document kept:

   LANGS="en de fr ru ja zh go mod" examples/corpus-multilingual.sh 3000 > c.tsv
   examples/dedup.sh --rule RULE -r report.tsv c.tsv > kept.tsv

char 5-shingles (the default): the arrival rule drops 1,493, of which 300
have no kept near-duplicate (228 English texts, 59 Go module files); the
kept rule drops 1,348. Word 5-shingles (--unit word -k 5): 513, 11 with no
kept near-duplicate; the kept rule 502. The arrival rule stays the
default: it removes a chain whole (10 % more documents here), and runs
made before keep what they kept.

DEDUP BY CONTAINMENT (--pairs with --containment)
With --containment, a document is dropped only when it is contained in a
document that is kept: c(D,K) = |D∩K|/|D|, the containment of verify
--containment, at the threshold or more (--threshold T, by default the
threshold in verify's header). The documents are decided longest first
(their text's length in bytes; ties in arrival order), so a shorter
near-copy inside a longer document goes, and a longer document never goes
for a shorter one; a document contained in several kept ones goes via the
one that contains it most (ties to one not in the input, then the
longest). In the report, kept and
via are that document, similarity the containment. A pair with a document
not in the input counts it as kept (seen before): a new document contained
in it is dropped. Pairs with neither containment at the threshold (verify
keeps them for their Jaccard similarity) are not used, and counted. One
case keeps a contained document, counted on standard error: a document
longer in bytes than the one that contains it (it repeats more of its
text) is decided first, and the other, not contained in it, is kept too.
The documents are always read twice (standard input copied to
--temp-dir). Memory: as --pairs, and 24 bytes more per document in a
pair (its length, the decision, and the order while deciding).

THE REPORT
--report FILE writes one line per document dropped, in input order:

   dropped TAB kept TAB via TAB similarity

With arrival numbers (ids=number in the shingle header: the dedup and
dedup-incremental jobs) and --pairs without --containment, three columns
follow, the documents' own ids (the ids they have without --number-from):

   dropped TAB kept TAB via TAB similarity TAB own-dropped TAB own-kept TAB own-via

An own id is a TSV line's first field, a JSON Lines --id-field or a
Parquet id column (a JSON line or row without one: its ordinal, from 1), a
WARC record's WARC-Target-URI, a --lines line's number. keep knows those of
the documents it reads; for a kept or via document of an earlier batch it
reads them from the maps of --id-map FILE ("number TAB own id", written by
keep --write-id-map for every document read; dedup-incremental keeps one
per batch). One not known is written "-", counted on standard error. Held:
the own ids of the documents named as kept or via.

kept is the kept document its chain ends at (with --pairs; a document of
an older batch when the chain leaves the input), via the earlier document
it was dropped for (its most similar earlier partner, ties to the
earliest; among documents not in the input, whose order keep knows only
from arrival numbers, ties go to the smallest id), similarity theirs;
with --rule kept, kept and via are the same kept document. With --clusters, via is the kept document
and similarity is "-". It combines with --drop and --annotate, and the
cluster --annotate writes is the report's kept document.

CLUSTERS (--clusters)
--prefer chooses the document of a cluster that stays:
   first     the first member in input order. One pass: the first member met
             is the first there is, so it is exact as the documents stream.
   id        the member with the smallest id among those in the input
   longest   the longest text (in bytes, after unescaping or JSON decoding;
             a file's bytes); ties to the smallest id, then the first
   shortest  the shortest, ties the same way
id, longest and shortest read the documents twice: a first pass finds each
cluster's choice among the members that are present, a second writes.
Standard input is copied to a temporary file (--temp-dir) for that.
--pairs has no --prefer: the earliest document stays.

The documents are read as shingle reads them, with the same ids: TSV
"id TAB text", JSON Lines (--id-field, --text-field), --files (each file a
document; what is written is its path, one a line, escaped as ids are;
--files walks directories and symlinks as shingle does, see shingle(1)) or
--lines (each line a document, its id the line number), Parquet (--format
parquet, or files that are Parquet by their content; see shingle(1)), or
numbered in arrival order (--number-from). gzip and zstd are read transparently; the
output is compressed only as -o's name or --compress say. Ids are compared
in the escaped form records carry them in. Lines that are neardup headers
are copied, with --drop too: they say what the records are and how their
documents were read (keep --drop-parts reads the parts header).

By default the documents are read as the shingle header of the --clusters
(or --pairs) file says shingle read them (format, id-field, text-field,
ids=number from=N); a flag given that disagrees is refused (status 2),
naming both. --number-from N with a header of ids=number is taken as the
first number of the documents read now, whatever from= the header has: a
batch's pairs against an index carry the first batch's header. The FILEs
are checked against the inputs the numbers were given to (the shingle
header's inputs=, the pairs header's batches=): a file that is not the one
numbered there is refused (status 2), naming both. Without a shingle header (--no-header upstream), or when its
shingle headers differ (batches shingled apart: said on standard error),
the flags and their defaults say. An --id-field missing from a JSON line is
bad input when the field was given or is not the default "id"; a missing
default "id" gives the line number, counted on standard error.

The ids are checked: when none of the ids of the --clusters file is among
the documents read, keep stops with status 2, showing an id from each side
(the two-pass choices stop before writing; --prefer first and --annotate,
one pass, stop at the end, when part of standard output may be written,
but an -o FILE is not); when some are missing, their number is written on
standard error ("keep: N of the M ids in clusters.tsv are not in the
input").

REPEATED IDS
A document whose id is that of a document read before, and is in the
--pairs or --clusters file, is decided as its first, by every rule (--pairs,
--containment, --clusters with any --prefer): it is kept when its first was
kept, and dropped for the same kept document when its first was dropped.
Standard error counts them ("keep: N document(s) repeat an id met before:
each decided as its first"). A repeated id in no pair or cluster is written,
as every such document is.

Memory (--clusters): the cluster map, about 40 bytes plus the id's length
per document in a cluster, and as much plus the name per cluster (16 more
bytes with two passes). The documents stream.

--stats prints how many documents were read, kept and dropped.

PARTS (--drop-parts)
--drop-parts FILE writes every document with the parts FILE lists cut out
of its text, every other byte as it was: FILE has a part id a line
(parts(1): doc#START-END, the byte range START to END of document doc's
text), alone or followed by TAB and the part's text, as parts writes it and
keep --drop copies it; such a text must be the document's bytes at the
range (else status 2, naming FILE's line and the document's place: the
documents were read in another way). A line of three fields is a record
of seen(1), doc#START-END TAB seen TAB total, or of spans(1),
doc#START-END TAB count TAB first#START-END (the first occurrence too: awk
'$1 != $3' leaves it out): its part id is cut. The documents are read as
the parts or spans header of FILE says. Ranges that overlap or touch
(windows with a stride) are cut as one. A document left with white space only is
dropped; standard error counts the ranges and bytes cut, the documents cut
and those dropped. A part of a document that is not among the documents
read, a range past the end of its text, or one that starts or ends inside
a character (a UTF-8 sequence of several bytes: the cut would leave
invalid UTF-8), is bad input (FILE:line, status
2; found at the end, or when the document is read: part of the output may
be written, an -o FILE is not).

What is rewritten: a TSV text in its escaped form (a backslash that stands
for itself, \q, written \\q only where a cut would make it an escape); a
JSON Lines text field in place, its escapes as written (a cut inside the
bytes of one \u escape writes the field encoded anew), the other fields as
they were; a --lines line. --files documents (read whole: a stream can't
hold files) are written as TSV documents, path TAB text escaped, which
every stage reads. WARC and Parquet, and --text html, are refused: the
ranges are in the text as stored.

The documents are read as the parts header of FILE says (format=,
id-field=, text-field=, ids=; keep --drop copies it from the parts), a flag
that disagrees refused; without one, as the flags say. --report FILE writes a line per
range cut, ranges merged, in input order:

   doc TAB start TAB end TAB bytes

Memory: the part ids, 24 bytes a part plus, per document named, its id
(about 24 bytes and the id's length); the documents stream (-j). The
recipe for near-duplicate paragraphs is in parts(1) and docs/jobs.md.

PARQUET
With Parquet documents keep writes Parquet: the schema, key-value metadata
and every column of the first file as they are, the rows that remain in
order, a row group for each row group read (so of the input's size, less
the rows dropped), compressed with the codec of the input's text column
(zstd when that codec can't be written, said on standard error). Several
files must have the same schema; their rows go to one file. --annotate is
refused (the schema has no cluster column: --report FILE names the
clusters). Each row group's kept rows are copied in the writing
goroutine; a row group is held in memory while it is written.

EXAMPLES
   verify --shingles s.tsv candidates.tsv > scored.tsv
   keep --pairs scored.tsv --report dropped.tsv corpus.jsonl.zst > deduplicated.jsonl
   keep --pairs scored.tsv --drop --annotate docs.tsv > removed.tsv
   verify --shingles s.tsv --containment --threshold 0.9 candidates.tsv > scored.tsv
   keep --pairs scored.tsv --containment --report contained.tsv docs.tsv > kept.tsv
   cluster scored.tsv > clusters.tsv
   keep --clusters clusters.tsv corpus.jsonl.zst > deduplicated.jsonl
   keep --clusters clusters.tsv --prefer longest --drop docs.tsv > removed.tsv
   keep --clusters clusters.tsv --annotate corpus.jsonl | jq -c '{id, cluster}'
   find pages -type f | keep --clusters clusters.tsv --files | xargs cat
   keep --pairs scored.tsv train-00000-of-00002.parquet > deduplicated.parquet
   keep --pairs scored.tsv --drop parts.tsv > dropped.tsv
   keep --drop-parts dropped.tsv --report removed.tsv corpus.jsonl > clean.jsonl`,
		SeeAlso: []string{"parts", "seen", "spans", "shingle", "verify", "cluster"},
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "pairs", Usage: "scored pairs `FILE` (verify): drop each document with a verified pair with an earlier one"},
			&cli.StringFlag{Name: "rule", Value: keep.RuleArrival, Usage: "--pairs: drop a document for an earlier partner (arrival) or only for a kept one (kept)"},
			&cli.StringSliceFlag{Name: "dropped", Usage: "--rule kept: the reports `FILE` of earlier batches (keep --report; repeat for more): their dropped ids are not kept"},
			&cli.BoolFlag{Name: "containment", Usage: "with --pairs (scored by verify --containment): drop a document only when a kept one contains it"},
			&cli.Float64Flag{Name: "threshold", Usage: "--containment: the least containment `T` that drops (default: verify's threshold, from the pairs' header)"},
			&cli.StringFlag{Name: "clusters", Usage: "cluster records `FILE` (cluster TAB id)"},
			&cli.StringFlag{Name: "prefer", Value: keep.PreferFirst, Usage: "the document of a cluster that stays: first, longest, shortest or id"},
			&cli.BoolFlag{Name: "drop", Usage: "write the documents removed instead of those kept"},
			&cli.StringFlag{Name: "report", Usage: "write to `FILE` a line per document dropped: dropped TAB kept TAB via TAB similarity (--drop-parts: doc TAB start TAB end TAB bytes, a line per range cut)"},
			&cli.StringSliceFlag{Name: "id-map", Usage: "arrival numbers: the map `FILE` \"number TAB own id\" of an earlier batch (--write-id-map; repeat for more), for the own ids in the report"},
			&cli.StringFlag{Name: "write-id-map", Usage: "arrival numbers: write to `FILE` \"number TAB own id\" for every document read"},
			&cli.StringFlag{Name: "drop-parts", Usage: "write every document with the parts listed in `FILE` (part ids of parts, seen or spans: doc#START-END) cut out of its text"},
			&cli.BoolFlag{Name: "annotate", Usage: "write every document with its cluster"},
			&cli.BoolFlag{Name: "related", Usage: "WARC: write the request, metadata and revisit records that concern a document written with it (dropped and counted otherwise)"},
			&cli.StringFlag{Name: "cluster-field", Value: "cluster", Usage: "--annotate, JSON Lines: the `NAME` of the field added"},
			&cli.StringFlag{Name: "vector-field", Category: catInput, Usage: "JSON Lines whose documents are vectors (sketch --method hyperplane): the `NAME` of their vector field, read where a text field would be"},
			memoryFlag("--pairs: the pairs and ids held while they are read, `SIZE`, spilled to sorted runs in --temp-dir beyond"),
			&cli.StringFlag{Name: "temp-dir", Usage: "directory `DIR` for the copy of standard input that two passes need and for spilled pairs (default: the system's)"},
			&cli.BoolFlag{Name: "stats", Usage: "print on standard error how many documents were read, in clusters or pairs, kept, dropped and written"},
		}, inputDocumentFlags(), []cli.Flag{
			jobsFlag(), outputFlag(), compressFlag(), skipBadFlag(), progressFlag(), lineBufferedFlag(), countersFlag(),
		}),
		Action: keepAction,
	}
}

func keepAction(c *cli.Context, env *Env) error {
	rf, err := readingFlags(c)
	if err != nil {
		return err
	}
	if c.IsSet("vector-field") {
		if c.IsSet("text-field") {
			return usagef("--vector-field and --text-field exclude each other: a document's vector stands for its text")
		}
		// The documents are written as they are: their vectors are
		// only where their text would be.
		rf.TextField, rf.TextFieldSet, rf.Vector = c.String("vector-field"), true, true
	}
	if err := detectParquet(&rf, c.Args().Slice()); err != nil {
		return err
	}
	mem, err := memoryOption(c)
	if err != nil {
		return err
	}
	// The options take 0 for "not given" (verify's threshold).
	if c.IsSet("threshold") && c.Float64("threshold") == 0 {
		return usagef("--threshold 0: want a containment above 0, at most 1")
	}
	opt := keep.Options{
		MemoryBytes:  mem,
		Clusters:     c.String("clusters"),
		Pairs:        c.String("pairs"),
		Containment:  c.Bool("containment"),
		Rule:         c.String("rule"),
		Dropped:      c.StringSlice("dropped"),
		Threshold:    c.Float64("threshold"),
		Report:       c.String("report"),
		Prefer:       c.String("prefer"),
		Drop:         c.Bool("drop"),
		Annotate:     c.Bool("annotate"),
		Related:      c.Bool("related"),
		ClusterField: c.String("cluster-field"),
		Given:        rf,
		TempDir:      c.String("temp-dir"),
		Stats:        c.Bool("stats"),
		DropParts:    c.String("drop-parts"),
		IDMaps:       c.StringSlice("id-map"),
		WriteIDMap:   c.String("write-id-map"),
	}
	return runStream(c, env, &opt, &opt.Common, keep.Run)
}
