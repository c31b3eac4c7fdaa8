package cli

import (
	"github.com/neardup/neardup/internal/spans"
	"github.com/neardup/neardup/internal/token"
	"github.com/urfave/cli/v2"
)

// Spans is the spans stage.
func Spans() Stage {
	return Stage{
		Name:  "spans",
		Usage: "find every span of N or more word tokens that occurs in two places or more, exactly",
		Args:  "[FILE...]",
		Description: `Reads documents as shingle reads them and writes a record for each
occurrence of a span of at least N word tokens (--tokens N, default 50,
at most 1048576) that occurs in two places or more of the corpus (two
documents, or twice in one): a licence header, a cookie banner, a
navigation menu, a boilerplate paragraph. A record is

   doc#START-END TAB COUNT TAB FIRST#START-END

doc#START-END is a part id, as parts writes them: the document's id and
the byte range of the occurrence in its text as the reader gives it (a TSV
text unescaped, a JSON string decoded, a file's bytes), from the first
byte of its first token to the last byte of its last, so that keep
--drop-parts cuts it out. COUNT is the number of places in the corpus
where each window of N tokens of the range occurs (overlapping places
count), at least 2 (a window in more than 2147483647 places says that
many, and standard error counts them). FIRST#START-END is the first of
those places in arrival order (the input order): the occurrence itself
when it is the first, so that the usual dedup, every occurrence but the
first, is the records whose first and third fields differ.

Tokens are the tokens of word shingles (see shingle(1)): runs of letters
and digits, each Han, kana and Hangul character a token, lower-cased, and
with --normalize width (the default, as for shingle --unit word) the
full-width and half-width forms folded; the spaces and punctuation between
tokens do not matter ("Foo, bar" repeats "foo bar").

A repeated span of N tokens or more is a union of repeated windows of N
tokens, which the stage finds all: each window's key is two independent
polynomial hashes modulo 2^61-1 of its tokens' two independent 64-bit
hashes (128 bits), all keys are sorted, and a key found in two places or
more is a repeated window. The repeated windows of a document are joined
into one record while they follow each other token by token, have the
same COUNT and their first places follow each other in one document too:
a record is a range whose windows all have COUNT places, first at FIRST,
which holds the same tokens. Where the count or the first place changes
the range is split into records that overlap by up to N-1 tokens, and
keep --drop-parts joins what it cuts. Exact means: no window that is not
repeated is reported, none that is is missed; two different windows with
equal 128-bit keys would be taken as one, with probability under 1e-12
for all the pairs of windows of 10^10 tokens (docs/DESIGN.md, "Repeated
spans"). A near-repeat (one token changed) is not a repeat: its windows
around the change are not repeated.

Records come in arrival order of the documents and, within a document,
in text order. The header names N and how the documents were read:
#neardup stage=spans tokens=50 unit=word normalize=width format=… ids=…
keep --drop-parts reads the corpus as it says. Standard error says how
many documents, tokens and windows were read, how many windows are
repeated, how many records were written and how many bytes they cover
(and of those, the bytes of occurrences after the first).

Every occurrence but the first of each repeated span cut out of a corpus
(see docs/jobs.md, "Repeated spans"):

   spans --tokens 50 corpus.jsonl > spans.tsv
   awk -F'\t' '/^#neardup / || $1 != $3 {print $1}' spans.tsv |
       keep --drop-parts - --report removed.tsv corpus.jsonl > clean.jsonl

The documents are read as shingle reads them: TSV, JSON Lines
(--id-field, --text-field), --files, --lines, WARC and Parquet, gzip and
zstd, --number-from N for arrival numbers as ids; the text as stored
(there is no --text html: keep cuts ranges of the text as stored).

The output is the same for any -j and --memory. Memory: the workers
tokenize and key the documents as they read them, holding a document's
text and N tokens each and passing on their output, 24 bytes a window,
in pieces of about 1 MiB (up to 2×workers+2 chunks of about 1 MiB in
flight); the stage holds the id of every document of N tokens or more
(8 bytes and the id, up to twice that while the table grows) and sorts
in a buffer of --memory, mapped whole but resident only as it fills: 32
bytes a window (a window starts at every token but the last N-1 of a
document), spilled as sorted runs to --temp-dir when full (32 bytes a
window on disk), then the repeated windows, 40 bytes each in the memory
the windows leave (all of it when they spilled or held more than 3/4 of
it, which then go to a run first; 36 bytes on disk). At 128 runs a sort
merges them into one, so that it never has more files open. The windows
of one key are held up to 65536 of them, the rest in a temporary file. A
corpus of G GB of English text has about 0.2·G billion tokens: about
6.4·G GB of windows, in memory or in runs on disk. The peak resident size
is about --memory plus 100 to 250 MiB (make degenerate-bench: one huge
document, one-word documents).

EXAMPLES
   spans corpus.jsonl > spans.tsv
   spans --tokens 30 --files $(go env GOROOT)/src > spans.tsv
   spans --memory 1G --temp-dir /scratch crawl.jsonl.zst > spans.tsv
   awk -F'\t' '$1 != $3' spans.tsv | sort -t$'\t' -k2,2nr | head`,
		SeeAlso: []string{"parts", "shingle", "keep"},
		Flags: merge([]cli.Flag{
			&cli.IntFlag{Name: "tokens", Value: spans.DefaultTokens, Usage: "find spans of at least `N` word tokens"},
			&cli.StringFlag{Name: "normalize", Value: "width", Usage: "fold the text by `LIST` before tokenizing: width or none (as shingle --unit word)"},
			memoryFlag("sort buffer `SIZE` before it spills sorted runs to disk"),
			&cli.StringFlag{Name: "temp-dir", Usage: "directory `DIR` for spilled runs (default: the system's)"},
		}, documentFlagsExcept("text", "main"), commonFlags()),
		Action: spansAction,
	}
}

func spansAction(c *cli.Context, env *Env) error {
	rd, err := documentReading(c)
	if err != nil {
		return err
	}
	norm, err := token.ParseNormalization(c.String("normalize"))
	if err != nil {
		return usagef("--normalize: %v", err)
	}
	if norm.Punct {
		return usagef("--normalize punct is for char shingles: word tokens ignore punctuation and spacing already")
	}
	mem, err := memoryOption(c)
	if err != nil {
		return err
	}
	opt := spans.Options{
		Tokens: c.Int("tokens"), Width: norm.Width, MemoryBytes: mem, TempDir: c.String("temp-dir"),
		Reading: rd,
	}
	return runStream(c, env, &opt, &opt.Common, spans.Run)
}
