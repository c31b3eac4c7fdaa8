package cli

import (
	"context"
	"io"
	"os"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/pairs"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/sketch"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/token"
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
across all inputs). Without --format the format comes from each file's
first bytes (WARC; JSON Lines: a first line starting {"), else from its
name (.tsv, .jsonl, .json, .warc, also under .gz or .zst); standard input
is TSV unless its first bytes say otherwise. gzip
and zstd input is recognised by its first bytes and read transparently. A
TSV line without a TAB that starts with '{' is reported with the hint "the
input looks like JSON Lines: give --format jsonl", and a line read as JSON
that is not JSON but has a TAB with one for TSV.

An id is bytes, written as records carry it: a TSV id is taken as written,
and one with an escape other than \t, \n, \r and \\ (a\qb, or a lone
backslash at its end) is bad input (file:line, status 2), never the id a\\qb;
a JSON string id is escaped. An empty id (a TSV line that starts with a TAB,
"id":"") is bad input too, reported with the file and line of the document.
(In the text, a backslash before anything else stands for itself.)

WARC (--format warc, or any file whose first line is WARC/1.0 or WARC/1.1,
also inside gzip, under the default --format): WARC/1.0 and 1.1 files,
plain or gzip-compressed record by record (.warc.gz). The documents are
response records holding HTTP (Content-Type application/http) and resource
records; their id is the WARC-Target-URI (without its angle brackets), or
with --id-field record-id the WARC-Record-ID, or with --id-field NAME the
header field NAME. The text of a response is its HTTP body once a chunked
transfer encoding and a Content-Encoding gzip, deflate or br are undone (any
other is bad input: file, record number and byte offset, status 2, skipped
and counted with --skip-bad); a resource's text is its block.
Other records are not documents: standard error counts them by type ("6 WARC
record(s) not documents: 1 warcinfo, 4 request, 1 metadata", non-HTTP
responses too). A gzip member is decompressed whole (up to 1 GiB). A record
is named in messages by its number and the byte it starts at in the file as
stored (a zstd-compressed WARC, which is read decompressed: in the
decompressed stream). keep writes WARC back (see keep).

HTML (--text): raw, the default, shingles the text as it is, markup too;
html shingles the visible text of HTML (golang.org/x/net/html): the
content of script, style, template, noscript, svg, math, iframe, object
and select dropped, tags dropped, entities decoded, runs of white space one
space, a line break between block elements (p, div, li, h1-h6, br, tr, td,
…); auto takes html for HTML documents (a WARC response whose HTTP
Content-Type is text/html or application/xhtml+xml; other documents that
start with <!doctype html or <html) and raw for the others. --main keeps
only the main content: nav, header, footer and aside dropped, and elements
whose class or id holds menu, nav, footer, sidebar, cookie, breadcrumb or
related (or whose role is navigation, banner or contentinfo). They apply to
every format. The header records them (text=html, main=yes; nothing for
raw), so that verify --documents and keep read the text the same way, and
records shingled in other modes do not compare. Measured on Python's HTML
documentation: see docs/DESIGN.md.

PARQUET
--format parquet reads Parquet files (as Hugging Face datasets, datatrove
and NeMo Curator keep them): a row is a document, its id and text the
columns --id-field and --text-field name (a dotted path names a nested
column: meta.url). The text column holds strings (byte arrays); the id
column strings or integers (written as their decimal digits); neither may
be a list. A null text is bad input (file:row, status 2; skipped with
--skip-bad); a null id, or no id column when --id-field was not given, gives
the row's number, counted on standard error as for JSON Lines. Without
--format, files that are Parquet by their content ("PAR1" at both ends) are
read as Parquet; Parquet and other files together are refused. Row groups
are decoded in parallel (-j), their documents written in file order.
Parquet is read from a named file (its index is at its end), not standard
input. A malformed file is an error naming it: the metadata is read up to
64 MiB, a page of the id or text column up to 1 GiB (stored or decoded)
and 2^26 values. Memory: a row group's output per chunk in flight (up to
2×jobs+2), a page of each of the two columns per worker.

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
format= (tsv, jsonl, files, lines, warc, parquet, or auto when taken from
each file's first bytes or name), id-field= and text-field= (when JSON
Lines can be read: jsonl or auto; and for warc and parquet), and
ids=given (the id field, TSV first field, path or line number) or
ids=number from=N inputs=SIZE:HEX,... (each input's size and a digest of its
size and first and last 64 KiB, in the order read; - for standard input).
keep and verify --documents read the documents again the same way by
default, refuse a flag that disagrees, and refuse files that are not the
inputs numbered, in their order. These keys say how
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
such as …"). A file named or listed that is a device, pipe or socket is not
read either (it may wait for a writer for ever, or never end: /dev/zero) and
is counted the same way; a pipe is read as an input FILE without --files
(shingle <(zcat x.tsv.gz)). A directory that cannot be read is an error, and
with --skip-bad is skipped and counted. keep --files and verify --files
--documents walk the same way.

Text is lower-cased. Word tokens are runs of letters and digits; each Han,
Hiragana, Katakana and Hangul character is a token of its own. A word shingle
is k consecutive tokens; a document of fewer than k tokens has one shingle,
of all of them. Char shingles are k consecutive code points of the
normalized text. Stop-word shingles are a stop word and the next k-1 words
(MMDS 3.2.4): a good choice for news-like prose.

Normalization (--normalize, the header's normalize=) folds the text before
it is shingled, so that copies that differ in the forms a person does not
see as a change are near-duplicates:
   width   full-width and half-width forms as NFKC folds them: Ａ１，！ to
           A1,! and ｶﾞｲﾄﾞ to ガイド (U+FF01 to U+FFEE, but ￣ and the
           half-width Hangul)
   punct   (char only) keeps letters, digits and marks: a run of anything
           else (white space, punctuation, symbols) is one space between two
           words, and nothing next to a Han, kana or Hangul character or at
           the ends; "子曰：「学而时习之」" and "子曰 学而时习之" are the same
   none    only white space runs become one space (the values of files made
           before normalize= existed, whose headers lack it)
The defaults are width,punct for char and width for word and stopword
(which ignore punctuation and spacing anyway).

Defaults: char 5-shingles with width,punct, chosen by measurement on real
text: man pages, Debian READMEs, Chinese fortunes and Go source, from
examples/corpus-multilingual.sh, by

   N=500 CONFIGS="char:9:none char:4:width,punct char:5:width,punct \
     char:6:width,punct char:7:width,punct char:9:width,punct \
     word:3:width word:5:width" examples/languages.sh

 Each document
gets a planted copy with one kind of change: punct (ASCII and full-width
marks swapped, quotes and 「」, a mark in four dropped), space (lines joined
or split, spaces after marks, between Han characters), width (full-width
ASCII, half-width katakana), case, edit (a word, or a Han or kana
character, substituted or deleted every ~50 tokens), all (punct, space,
case and edit). The figures are the share of planted pairs whose exact
Jaccard is at least 0.8, and "false", the pairs of distinct real documents
the pipeline finds at 0.8 (copies already in the corpus, and templated
pages: in English, all of them gcloud pages that differ in a command name).
The old default, char 9 without normalization, found almost no copy with
other punctuation or spacing in any language. Word shingles lose a copy
where a dropped mark joins two words (file.h, e.g.); longer char shingles
lose short Chinese and Japanese texts with an edit, where a character is a
word. For Chinese alone, --unit word -k 3 finds more edited copies.

   ## en (500 documents)
   unit k normalize          punct  space  width   case   edit    all  false
   char 9 none                0.2%   5.0%   0.0% 100.0% 100.0%   0.0%     14
   char 4 width,punct       100.0% 100.0% 100.0% 100.0% 100.0% 100.0%     89
   char 5 width,punct       100.0% 100.0% 100.0% 100.0% 100.0% 100.0%     50
   char 6 width,punct       100.0% 100.0% 100.0% 100.0% 100.0% 100.0%     31
   char 7 width,punct       100.0% 100.0% 100.0% 100.0% 100.0%  99.8%     21
   char 9 width,punct        99.8% 100.0% 100.0% 100.0% 100.0%  98.0%     16
   word 3 width              79.6% 100.0% 100.0% 100.0% 100.0%  32.2%      7
   word 5 width              47.4% 100.0% 100.0% 100.0%  93.0%   4.2%      2

   ## de (496 documents)
   unit k normalize          punct  space  width   case   edit    all  false
   char 9 none                0.0%   4.8%   0.0% 100.0% 100.0%   0.0%      8
   char 4 width,punct       100.0% 100.0% 100.0% 100.0% 100.0%  99.8%     20
   char 5 width,punct        99.8% 100.0% 100.0% 100.0% 100.0%  99.6%     13
   char 6 width,punct        99.6% 100.0% 100.0% 100.0% 100.0%  99.6%     11
   char 7 width,punct        99.6% 100.0% 100.0% 100.0% 100.0%  99.6%     10
   char 9 width,punct        99.4% 100.0% 100.0% 100.0% 100.0%  98.8%      9
   word 3 width              81.0% 100.0% 100.0% 100.0% 100.0%  28.6%      6
   word 5 width              46.6% 100.0% 100.0% 100.0%  97.0%   0.6%      3

   ## fr (500 documents)
   unit k normalize          punct  space  width   case   edit    all  false
   char 9 none                0.2%   0.8%   0.0% 100.0% 100.0%   0.0%     21
   char 4 width,punct       100.0% 100.0% 100.0% 100.0% 100.0% 100.0%     55
   char 5 width,punct       100.0% 100.0% 100.0% 100.0% 100.0% 100.0%     27
   char 6 width,punct       100.0% 100.0% 100.0% 100.0% 100.0% 100.0%     24
   char 7 width,punct       100.0% 100.0% 100.0% 100.0% 100.0%  99.8%     24
   char 9 width,punct        99.4% 100.0% 100.0% 100.0% 100.0%  94.8%     21
   word 3 width              68.2% 100.0% 100.0% 100.0% 100.0%  12.4%     15
   word 5 width              26.6% 100.0% 100.0% 100.0%  98.4%   0.4%     13

   ## ru (239 documents)
   unit k normalize          punct  space  width   case   edit    all  false
   char 9 none                1.7%  12.1%   0.0% 100.0% 100.0%   0.0%      7
   char 4 width,punct       100.0% 100.0% 100.0% 100.0% 100.0% 100.0%     21
   char 5 width,punct       100.0% 100.0% 100.0% 100.0% 100.0% 100.0%      8
   char 6 width,punct       100.0% 100.0% 100.0% 100.0% 100.0% 100.0%      8
   char 7 width,punct       100.0% 100.0% 100.0% 100.0% 100.0% 100.0%      7
   char 9 width,punct        99.6% 100.0% 100.0% 100.0% 100.0%  98.3%      7
   word 3 width              82.8% 100.0% 100.0% 100.0% 100.0%  39.3%      6
   word 5 width              49.8% 100.0% 100.0% 100.0%  96.2%   2.1%      6

   ## zh (500 documents)
   unit k normalize          punct  space  width   case   edit    all  false
   char 9 none                0.0%   0.4%  21.6% 100.0%  50.8%   0.0%      0
   char 4 width,punct        99.6%  99.8%  99.8%  99.8%  80.8%  80.6%      0
   char 5 width,punct        99.6%  99.8%  99.8%  99.8%  71.4%  68.8%      0
   char 6 width,punct        99.2%  99.8%  99.8%  99.8%  57.4%  55.2%      0
   char 7 width,punct        99.0%  99.8%  99.8%  99.8%  49.8%  45.4%      0
   char 9 width,punct        98.2%  99.8%  99.8%  99.8%  42.8%  39.4%      0
   word 3 width              99.2%  99.8%  99.8%  99.8%  87.0%  81.6%      0
   word 5 width              96.6%  99.8%  99.8%  99.8%  68.8%  63.6%      0

   ## ja (500 documents)
   unit k normalize          punct  space  width   case   edit    all  false
   char 9 none                0.8%   0.2%   0.0% 100.0%  58.0%   0.0%      6
   char 4 width,punct       100.0% 100.0% 100.0% 100.0% 100.0%  98.6%      8
   char 5 width,punct        99.8% 100.0% 100.0% 100.0% 100.0%  94.4%      6
   char 6 width,punct        99.4% 100.0% 100.0% 100.0%  99.0%  66.0%      6
   char 7 width,punct        99.2% 100.0% 100.0% 100.0%  77.4%  28.8%      6
   char 9 width,punct        97.8% 100.0% 100.0% 100.0%  30.2%   7.0%      6
   word 3 width              98.4% 100.0% 100.0% 100.0%  99.8%  87.4%      6
   word 5 width              96.2% 100.0% 100.0% 100.0%  97.4%  24.2%      6

   ## go (500 documents)
   unit k normalize          punct  space  width   case   edit    all  false
   char 9 none                0.4%   0.4%   0.0% 100.0%  99.6%   0.0%      2
   char 4 width,punct       100.0% 100.0% 100.0% 100.0% 100.0%  99.0%      4
   char 5 width,punct        99.6% 100.0% 100.0% 100.0% 100.0%  96.8%      3
   char 6 width,punct        99.2% 100.0% 100.0% 100.0%  99.6%  90.6%      3
   char 7 width,punct        96.8% 100.0% 100.0% 100.0%  99.6%  82.2%      3
   char 9 width,punct        88.8% 100.0% 100.0% 100.0%  99.6%  60.8%      3
   word 3 width              33.0% 100.0% 100.0% 100.0%  99.8%  14.4%      2
   word 5 width              17.0% 100.0% 100.0% 100.0%  88.4%   5.0%      2

Hashes (--hash): tok64, the default, hashes every token (XXH64) or code point
once and rolls a polynomial mod 2^64 over the k unit hashes of a shingle,
then mixes in the seed; xxh64 is XXH64 with the seed of the shingle's UTF-8
bytes (tokens joined by a space), which any program can compute. The header
names the scheme so that records of different schemes are never compared.

SKETCH (--sketch)
--sketch METHOD writes each document's sketch instead of its shingles:
shingle | sketch --method METHOD in one process, the records and both
header lines byte for byte what the pipe writes, without the shingle
records between them (17 bytes a shingle, about twice the text, written,
piped and parsed again). -n, -s, -m
and --sketch-seed are sketch's -n, -s, -m and --seed. The methods are
minhash, oph, bottomk and modm; SimHash weighs each shingle by its count or
document frequency: shingle --counts | sketch --method simhash. With no
shingle file, verify --documents scores the pairs from the documents:

   shingle --sketch minhash corpus.jsonl | band | pairs |
       verify --documents corpus.jsonl > scored.tsv

--band T (with --sketch minhash or oph) writes the band records of the
signatures instead: shingle | sketch | band --threshold T in one process,
the records, the three header lines and band's message on standard error
byte for byte what the pipe writes (the message as shingle's), the
signatures never written as text (about 17 bytes a value: 2.2 KB a
document at n = 128, which band spent more than half of its time reading
and parsing). --bbit
FILE is band's --bbit: each signature at 4 bits a value, for pairs --bbit;
with --sketch oph, of the signature of twice the bins, made in the same
pass (header bbit-values=2n): pairs --bbit sets aside more of the pairs far
below T by them (on make speed's corpus, char 5-shingles, 30 % fewer
candidates).
-b, -r and band's weights are for band itself (the banding here is the one
band chooses for T). --collapse gives each document a copy key (band ffff,
a hash of its set of shingles: the documents of one set share it, and pairs
pairs them with the first only) before its band keys, and a document whose
text an earlier one had (in a table of the last texts met, 16 MiB,
consulted in arrival order) its copy key alone: 100,000 copies of a page
make 99,999 pairs, not the pairs of a bucket of 100,000 in every band; a
cache of what recent texts made (5 MiB) spares a copy its shingling. A
copy's other pairs are its original's, and keep's arrival rule drops the
same documents and writes the same report (keep(1)); the ids must be
arrival numbers (--number-from); standard error counts the copies, the
header says collapse=text.

--pairs (with --band T) writes the candidate pairs of the band records
instead: shingle ... --band T | pairs in one process, the pairs, the four
header lines and pairs' messages on standard error (after shingle's) byte
for byte what the pipe writes, the band records never written (about 55
bytes each, 18 a document at --band 0.8: on one core, pairs' process, its
start and its reading of them were 6 % of shingle | pairs | verify on make
peers' corpus). The pairs part has pairs' defaults: --max-bucket 512
--reps 32, --memory this machine's default, spilling to TMPDIR; with
--bbit FILE it is pairs --bbit FILE. For other settings, pipe to pairs.
What examples/dedup.sh runs:

   shingle --number-from 0 --sketch oph --band 0.8 --bbit bits.tsv --offsets off.tsv --collapse --pairs corpus.jsonl > pairs.tsv

OFFSETS (--offsets)
--offsets FILE also writes where each document's line is in its input,
one record a document, "id TAB input TAB line TAB ordinal TAB offset TAB
length TAB digest" (the input's number among those given, from 1; the
line's number in it and across all of them; its first byte's offset and
its length in bytes, without the line end; a digest of its length and
its ends), after shingle's header and "#neardup stage=offsets sizes=..."
(the inputs' sizes). verify --documents --offsets FILE then reads only
the lines of the documents in some pair, not the whole corpus: on make
peers' corpus, 18 % of its bytes (verify: 80 to 64 ms). Only documents
read as lines have offsets (TSV, JSON Lines, --lines), from files that
are not compressed. Standard input is refused; an input compressed, or
read as records or files, is named on standard error, has the size -1 in
the header and no records, and verify --offsets then reads every
document whole. The file is written beside FILE and put in its place
when the run ends without an error.

   shingle --sketch oph --band 0.8 --offsets off.tsv corpus.jsonl | pairs |
       verify --documents corpus.jsonl --offsets off.tsv > scored.tsv

Memory: one document at a time per worker, plus its shingles (8 bytes
each, 16 to 32 bytes each for the hash table that makes them distinct and
sorted, or with --sketch minhash or oph, which need them distinct but not
sorted, only distinct; and 8 bytes each distinct), and up to 2×workers+2 chunks of
about 1 MiB of input and their output, which each worker passes on
whenever it reaches 1 MiB; it streams (26 MiB with -j2 on 1 million
one-word documents; examples/degenerate-bench.sh). Measured peak resident memory (make bench, make scale; two cores):
72 MiB with -j1 and 110-130 MiB with -j2 on the Go source tree (12,183
files, 145 MB); 78 MiB on 1 million synthetic documents (5.1 GB): it does not
grow with the corpus. With --pairs, besides, what pairs holds: the band
records (about 52 bytes each with their ids) up to pairs' default
--memory (an eighth of the machine's memory or of its cgroup limit, at
least 64M, at most 2G), spilled to TMPDIR past it; the collector's soft
limit is that and 256 MiB (10 M crawl documents: 2,291 MiB at the peak).

EXAMPLES
   shingle corpus.jsonl > shingles.tsv
   shingle --unit char -k 9 --normalize none old.tsv   # as before normalize=
   shingle --unit word -k 5 --files $(go env GOROOT)/src | sketch | band --threshold 0.8 | pairs
   find docs -name '*.txt' | shingle --files --unit word
   shingle --unit word -k 1 --counts docs.tsv.gz > counts.tsv
   shingle --id-field url --number-from 1 corpus.jsonl.zst > shingles.tsv
   shingle --sketch minhash corpus.jsonl | band --threshold 0.8 | pairs | verify --documents corpus.jsonl`,
		SeeAlso: []string{"docfreq", "sketch", "verify", "keep"},
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "unit", Value: "char", Usage: "shingle `UNIT`: char, word or stopword"},
			&cli.IntFlag{Name: "k", Usage: "shingle length: code points, words, or words from a stop word on (default 5, 5 and 3)"},
			&cli.StringFlag{Name: "hash", Value: "tok64", Usage: "hash `SCHEME`: tok64 or xxh64"},
			&cli.Uint64Flag{Name: "seed", Usage: "hash seed"},
			&cli.StringFlag{Name: "normalize", Usage: "fold the text by `LIST` before shingling: none, or width and punct separated by a comma (default width,punct for char, width for word and stopword)"},
			&cli.BoolFlag{Name: "counts", Usage: "write each hash with its count (h:c), for weighted sketches"},
			&cli.StringFlag{Name: "stopwords", Usage: "read the stop words from `FILE` (white-space separated; # comments) instead of the built-in English list"},
			&cli.StringFlag{Name: "offsets", Usage: "also write where each document's line is in its input to `FILE`, for verify --offsets (documents read as lines, from files not compressed; others are named)"},
			&cli.StringFlag{Name: "sketch", Category: catSketch, Usage: "write each document's sketch by `METHOD` (minhash, oph, bottomk or modm) instead of its shingles: shingle | sketch in one process"},
			&cli.IntFlag{Name: "n", Value: 128, Category: catSketch, Usage: "--sketch: signature length (minhash, oph)"},
			&cli.IntFlag{Name: "s", Value: 128, Category: catSketch, Usage: "--sketch: sample size (bottomk)"},
			&cli.Uint64Flag{Name: "m", Value: 32, Category: catSketch, Usage: "--sketch: modulus (modm)"},
			&cli.Uint64Flag{Name: "sketch-seed", Category: catSketch, Usage: "--sketch: seed of the sketch's hash functions (sketch --seed)"},
			&cli.Float64Flag{Name: "band", Category: catSketch, Usage: "--sketch minhash or oph: write the band records of the signatures for similarity threshold `T` instead of the signatures: shingle | sketch | band --threshold T in one process"},
			&cli.StringFlag{Name: "bbit", Category: catSketch, Usage: "--band: also write each signature at 4 bits a value to `FILE`, for pairs --bbit (band --bbit)"},
			&cli.BoolFlag{Name: "collapse", Category: catSketch, Usage: "--band: each document writes a copy key of its set; one with the text of an earlier one that alone, not its band keys"},
			&cli.BoolFlag{Name: "pairs", Category: catSketch, Usage: "--band: write the candidate pairs of the band records instead: shingle ... | pairs in one process (pairs' defaults; with --bbit FILE, pairs --bbit FILE)"},
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
	norm := shingle.DefaultNormalization(unit)
	if c.IsSet("normalize") {
		if norm, err = token.ParseNormalization(c.String("normalize")); err != nil {
			return status.Usage(err)
		}
	}
	rd, err := documentReading(c)
	if err != nil {
		return err
	}
	if rd.Main && rd.Text == "" {
		return usagef("--main is for --text html or auto")
	}
	opt := shingle.StageOptions{
		Shingle: shingle.Options{Unit: unit, K: k, Scheme: scheme, Seed: c.Uint64("seed"), Norm: norm},
		Reading: rd,
		Counts:  c.Bool("counts"),
		Offsets: c.String("offsets"),
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
	if !c.IsSet("sketch") {
		for _, f := range []string{"n", "s", "m", "sketch-seed", "band", "bbit", "collapse", "pairs"} {
			if c.IsSet(f) {
				return usagef("%s is for --sketch", flagName(f))
			}
		}
		return runStream(c, env, &opt, &opt.Common, shingle.Run)
	}
	sk := sketch.Options{Method: c.String("sketch"), N: c.Int("n"), S: c.Int("s"), M: c.Uint64("m"), Seed: c.Uint64("sketch-seed")}
	var bo *band.Options
	if c.IsSet("band") {
		o := band.SketchOptions(c.Float64("band"), c.String("bbit"))
		o.Collapse = c.Bool("collapse")
		if o.Collapse && !c.IsSet("number-from") {
			return usagef("--collapse pairs a copy with the smallest id of its set, which must be the first: give the documents arrival numbers (--number-from)")
		}
		bo = &o
	} else {
		for _, f := range []string{"bbit", "collapse", "pairs"} {
			if c.IsSet(f) {
				return usagef("%s is for --band T", flagName(f))
			}
		}
	}
	if c.Bool("pairs") {
		if c.IsSet("bbit") && c.Bool("no-header") {
			return usagef("--pairs with --bbit reads the b-bit file back, by its header, which --no-header leaves out: drop --no-header")
		}
		// The process holds the band records as pairs does, and its
		// collector keeps to pairs' pace, with a soft limit above what
		// pairs holds by shingle's own memory: at the limit itself the
		// garbage shingle makes as it reads had the collector run
		// every few megabytes, each time marking every id held (10 M
		// crawl documents: 28 CPU-s more than with no limit).
		po := pairs.Options{MaxBucket: pairs.DefaultMaxBucket, Reps: pairs.DefaultReps,
			HoldLimit: func(limit int64) { holdLimit(limit + shingleReserve) }}
		holdGC()
		return runStream(c, env, &opt, &opt.Common, func(ctx context.Context, opt shingle.StageOptions, inputs []string, stdout, stderr io.Writer) error {
			return sketch.RunPairs(ctx, opt, sk, bo, po, inputs, stdout, stderr)
		})
	}
	return runStream(c, env, &opt, &opt.Common, func(ctx context.Context, opt shingle.StageOptions, inputs []string, stdout, stderr io.Writer) error {
		return sketch.RunDocuments(ctx, opt, sk, bo, inputs, stdout, stderr)
	})
}

// shingleReserve is what shingle --pairs allows its own memory above what
// pairs holds, in its soft limit: its chunks in flight, their output, the
// --collapse tables (about 110 to 130 MiB at -j2), and room for garbage.
const shingleReserve = 256 << 20

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
