package cli

import (
	"os"

	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/status"
	"github.com/urfave/cli/v2"
)

// Shingle is the shingle stage.
func Shingle() Stage {
	return Stage{
		Name:  "shingle",
		Usage: "turn documents into shingle hashes",
		Args:  "[FILE...]",
		Description: `Reads documents and writes one shingle record per document:

   id TAB h h h …      the distinct 64-bit shingle hashes, ascending, in hex
   id TAB h:c h:c …    with --counts, each with its number of occurrences

Documents come as TSV lines "id TAB text" (a TAB, LF, CR or backslash in the
text written \t, \n, \r, \\), JSON Lines (--id-field, --text-field), one
file per document (--files; the id is the path; directories are walked; with
no FILE the paths are read from standard input, one a line; see SYMLINKS)
or one line per document (--lines; the id is the line number, counted
across all inputs). Without --format the format comes from each file name
(.tsv, .jsonl, .json, also under .gz or .zst); standard input is TSV. gzip
and zstd input is recognised by its first bytes and read transparently. A
TSV line without a TAB that starts with '{' is reported with the hint "the
input looks like JSON Lines: give --format jsonl", and a line read as JSON
that is not JSON but has a TAB with one for TSV.

A JSON Lines document without the id field: when --id-field is given, the
line is bad input (file:line, status 2; skipped and counted with --skip-bad);
with the default field "id", its id is its line number, and the count of
such documents is written on standard error.

--number-from N makes the ids the documents' arrival numbers: N for the first
line read, counted across all inputs as --lines counts them (a header line or
a bad line takes its number too), written as 12 decimal digits, zero-padded,
so that bytewise order (LC_ALL=C sort) is arrival order and the smallest ids
of a group are its earliest documents. TSV ids and JSON id fields are then
not read. It does not go with --files (a file's id is its path).

The header says how the documents were read, after the shingling keys:
format= (tsv, jsonl, files, lines, or auto when taken from each file name),
id-field= and text-field= (when JSON Lines can be read: jsonl or auto), and
ids=given (the id field, TSV first field, path or line number) or
ids=number from=N. keep and verify --documents read the documents again the
same way by default, and refuse a flag that disagrees. These keys say how
ids were made, not how any value was computed: records, indexes and --state
files whose shingle headers differ only in them (or that lack them, written
before they were added) still compare (pairs --against, bandindex add). A
field name with white space can't be written in the header (give --no-header).

SYMLINKS
A symlink named as FILE is followed: to a file, it is that document (its id
the name given); to a directory, the directory is walked, its files named
through the link. Inside a walked directory a symlink to a file is followed;
one to a directory is not walked (links can make cycles: name the directory
to read it) and is counted, like a dangling symlink or a device, pipe or
socket, in a line on standard error ("2 symlink(s) to a directory not walked,
such as …"). keep --files and verify --files --documents walk the same way.

Text is lower-cased. Word tokens are runs of letters and digits; each Han,
Hiragana, Katakana and Hangul character is a token of its own. A word shingle
is k consecutive tokens; a document of fewer than k tokens has one shingle,
of all of them. Char shingles are k consecutive code points after every run
of white space becomes one space. Stop-word shingles are a stop word and the
next k-1 words (MMDS 3.2.4): a good choice for news-like prose.

Hashes (--hash): tok64, the default, hashes every token (XXH64) or code point
once and rolls a polynomial mod 2^64 over the k unit hashes of a shingle,
then mixes in the seed; xxh64 is XXH64 with the seed of the shingle's UTF-8
bytes (tokens joined by a space), which any program can compute. The header
names the scheme so that records of different schemes are never compared.

Memory: one document at a time per worker, plus its shingles (8 bytes
each, and as much again to sort them), and up to 2×workers+2 chunks of
about 1 MiB of input and their output; it streams. Measured peak resident memory (make bench, make scale; two cores):
72 MiB with -j1 and 110-130 MiB with -j2 on the Go source tree (12,183
files, 145 MB); 78 MiB on 1 million synthetic documents (5.1 GB): it does not
grow with the corpus.

EXAMPLES
   shingle -k 9 corpus.jsonl > shingles.tsv
   shingle --unit word -k 5 --files $(go env GOROOT)/src | sketch | band --threshold 0.8 | pairs
   find docs -name '*.txt' | shingle --files --unit word
   shingle --unit word -k 1 --counts docs.tsv.gz > counts.tsv
   shingle --id-field url --number-from 1 corpus.jsonl.zst > shingles.tsv`,
		SeeAlso: []string{"docfreq", "sketch", "verify", "keep"},
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "unit", Value: "char", Usage: "shingle `UNIT`: char, word or stopword"},
			&cli.IntFlag{Name: "k", Usage: "shingle length: code points, words, or words from a stop word on (default 9, 5 and 3)"},
			&cli.StringFlag{Name: "hash", Value: "tok64", Usage: "hash `SCHEME`: tok64 or xxh64"},
			&cli.Uint64Flag{Name: "seed", Usage: "hash seed"},
			&cli.BoolFlag{Name: "counts", Usage: "write each hash with its count (h:c), for weighted sketches"},
			&cli.StringFlag{Name: "stopwords", Usage: "read the stop words from `FILE` (white-space separated; # comments) instead of the built-in English list"},
		}, inputDocumentFlags(), commonFlags()),
		Action: shingleAction,
	}
}

func shingleAction(c *cli.Context, env *Env) error {
	unit, err := shingle.ParseUnit(c.String("unit"))
	if err != nil {
		return status.Usage(err)
	}
	scheme, err := shingle.ParseScheme(c.String("hash"))
	if err != nil {
		return status.Usage(err)
	}
	k := c.Int("k")
	if !c.IsSet("k") {
		k = shingle.DefaultK(unit)
	}
	rf, err := readingFlags(c)
	if err != nil {
		return err
	}
	opt := shingle.StageOptions{
		Shingle:    shingle.Options{Unit: unit, K: k, Scheme: scheme, Seed: c.Uint64("seed")},
		Format:     rf.Format,
		IDField:    rf.IDField,
		TextField:  rf.TextField,
		Number:     rf.Number,
		NumberFrom: rf.NumberFrom,
		IDRequired: rf.IDFieldSet,
		Counts:     c.Bool("counts"),
	}
	if name := c.String("stopwords"); name != "" {
		if unit != shingle.Stopword {
			return usagef("--stopwords is for --unit stopword")
		}
		sw, err := readStopwords(name)
		if err != nil {
			return err
		}
		opt.Shingle.Stopwords = sw
	}
	return runStream(c, env, &opt, &opt.Common, shingle.Run)
}

// readStopwords reads a --stopwords file.
func readStopwords(name string) (*shingle.Stopwords, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sw, err := shingle.ReadStopwords(f)
	if err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	return sw, nil
}
