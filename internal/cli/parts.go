package cli

import (
	"slices"

	"github.com/neardup/neardup/internal/parts"
	"github.com/urfave/cli/v2"
)

// Parts is the parts stage.
func Parts() Stage {
	return Stage{
		Name:  "parts",
		Usage: "cut documents into parts (paragraphs or token windows), each a document of its own",
		Args:  "[FILE...]",
		Description: `Reads documents as shingle reads them and writes each part of each
document as a TSV document of its own, so that shingle, sketch, band,
pairs, verify and cluster find near-duplicate parts unchanged, and keep
--drop-parts writes the corpus back without the parts chosen:

   doc#START-END TAB text

doc is the document's id as records carry it, START and END the byte
offsets of the part in the document's text (START inclusive, END
exclusive, in decimal), the text as the reader gives it: a TSV text
unescaped, a JSON Lines string decoded, a file's bytes (--files), a line
(--lines). The part's text is escaped as the TSV document format says (a
TAB, LF, CR or backslash written \t, \n, \r, \\). The document id is
everything before the last '#': an id may hold '#' itself
(http://x/a#b#0-120 is bytes 0-120 of http://x/a#b). To get the
document of a part in awk: sub(/#[0-9]+-[0-9]+$/, "", id).

--by paragraph (the default): a paragraph is a run of non-blank lines;
blank lines (empty, or white space only: spaces, TAB, CR, NBSP, …)
separate them and are in no part. A part runs from the first byte of its
first line to the end of its last line, its LF (or CRLF) included, or to
the end of the text when the last line has none. A lone CR does not end a
line.

--by window --tokens N [--stride S]: windows of N word tokens, by
shingle's word tokenizer (runs of letters and digits; each Han, kana and
Hangul character a token; no width folding), one starting every S tokens
(default N: side by side; S below N overlaps them). A window runs from the
first byte of its first token to the last byte of its last, so the white
space and punctuation around it are not in it. The windows end with the
first that reaches the last token, which may have fewer than N tokens; a
document of fewer than N tokens is one window.

--min-bytes B and --min-tokens T leave out parts of fewer bytes or tokens
(a heading, a line of code); standard error counts them and their bytes.
A document with no part (no text but white space, or no token) writes
nothing and is counted too.

The documents are read as shingle reads them (see shingle(1)): TSV, JSON
Lines (--id-field, --text-field), --files, --lines, WARC and Parquet,
gzip and zstd, --number-from N for arrival numbers as ids. The text is
the text as stored (there is no --text html: keep --drop-parts cuts the
byte ranges out of the documents as stored, which it can't do in a text
made from HTML). keep --drop-parts writes back TSV, JSON Lines, --lines
and --files documents.

The header names how the documents were cut and read:
#neardup stage=parts by=paragraph min-bytes=0 min-tokens=0 format=… ids=…
keep --drop-parts reads the corpus as it says. It goes on through the
pipeline: shingle copies it as it copies the headers it reads.

Parts of a corpus to near-duplicate parts removed (see docs/jobs.md,
"Paragraphs"): the parts, numbered in arrival order, through the
document pipeline; keep --pairs --drop writes the parts that a near-copy
came before (the arrival rule), and keep --drop-parts cuts them:

   parts --id-field url corpus.jsonl > parts.tsv
   shingle --number-from 1 --sketch minhash --band 0.8 parts.tsv | pairs |
       verify --documents parts.tsv > scored.tsv
   keep --pairs scored.tsv --drop parts.tsv > dropped.tsv
   keep --drop-parts dropped.tsv corpus.jsonl > clean.jsonl

The corpus's flags are given to parts only: keep --drop copies the parts
header, and keep --drop-parts reads the corpus as it says.

The output is the same for any -j. Memory: a document per worker (and
the starts of its windows under way: parts are written as they are cut,
however many), and up to 2×workers+2 chunks of about 1 MiB of input and
their output (passed on whenever it reaches 1 MiB); it streams.

EXAMPLES
   parts corpus.jsonl > parts.tsv
   parts --min-bytes 40 --files $(go env GOROOT)/src > parts.tsv
   parts --by window --tokens 50 --stride 25 docs.tsv.gz | shingle --unit word -k 5 > s.tsv
   parts --id-field url --text-field body crawl.jsonl.zst | head`,
		SeeAlso: []string{"seen", "shingle", "verify", "keep"},
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "by", Value: parts.ByParagraph, Usage: "cut documents into `UNIT`s: paragraph or window"},
			&cli.IntFlag{Name: "tokens", Usage: "--by window: `N` word tokens a window"},
			&cli.IntFlag{Name: "stride", Usage: "--by window: a window starts every `S` tokens (default --tokens)"},
			&cli.IntFlag{Name: "min-bytes", Usage: "leave out parts of fewer than `B` bytes (counted)"},
			&cli.IntFlag{Name: "min-tokens", Usage: "leave out parts of fewer than `T` word tokens (counted)"},
		}, documentFlagsExcept("text", "main"), commonFlags()),
		Action: partsAction,
	}
}

// documentFlagsExcept is inputDocumentFlags without the flags named.
func documentFlagsExcept(names ...string) []cli.Flag {
	return slices.DeleteFunc(inputDocumentFlags(), func(f cli.Flag) bool {
		return slices.Contains(names, f.Names()[0])
	})
}

func partsAction(c *cli.Context, env *Env) error {
	rd, err := documentReading(c)
	if err != nil {
		return err
	}
	if err := checkWindowFlags(c); err != nil {
		return err
	}
	opt := parts.Options{
		By: c.String("by"), Tokens: c.Int("tokens"), Stride: c.Int("stride"),
		MinBytes: c.Int("min-bytes"), MinTokens: c.Int("min-tokens"),
		Reading: rd,
	}
	return runStream(c, env, &opt, &opt.Common, parts.Run)
}

// checkWindowFlags refuses --tokens and --stride without --by window, and
// a --stride under 1 (parts, seen).
func checkWindowFlags(c *cli.Context) error {
	if c.String("by") != parts.ByWindow {
		for _, f := range []string{"tokens", "stride"} {
			if c.IsSet(f) {
				return usagef("--%s is for --by window", f)
			}
		}
	}
	if c.IsSet("stride") && c.Int("stride") < 1 {
		return usagef("--stride %d: want 1 to --tokens", c.Int("stride"))
	}
	return nil
}
