package cli

import (
	"context"
	"io"
	"os"
	"slices"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/stream"
	"github.com/urfave/cli/v2"
)

// Flag categories.
const (
	catInput  = "Input"
	catOutput = "Output"
	catRun    = "Running"
	catSketch = "Sketch (--sketch)"
)

func jobsFlag() cli.Flag {
	return &cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Category: catRun,
		Usage: "worker threads: 1 to 1024, or 0 for one per core (the output is the same for any number)"}
}

func outputFlag() cli.Flag {
	return &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Category: catOutput, Usage: "write to `FILE` (renamed into place when done) instead of standard output; a name ending in .gz or .zst is compressed. Not an input, nor a file another flag names (--state, --report, …): refused, status 2"}
}

func noHeaderFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-header", Category: catOutput, Usage: "leave out the #neardup header lines"}
}

func skipBadFlag() cli.Flag {
	return &cli.BoolFlag{Name: "skip-bad", Category: catInput, Usage: "skip malformed lines, count them and report the count at the end, instead of stopping"}
}

func progressFlag() cli.Flag {
	return &cli.BoolFlag{Name: "progress", Category: catRun, Usage: "report on standard error every second what has been read, records and MB/s, and when the size of the input is known the share read and the time left"}
}

func lineBufferedFlag() cli.Flag {
	return &cli.BoolFlag{Name: "line-buffered", Category: catOutput, Usage: "flush the output as each batch of input is done (the default when it is a terminal)"}
}

func countersFlag() cli.Flag {
	return &cli.BoolFlag{Name: "counters", Category: catRun, Usage: "write Hadoop Streaming counters (reporter:counter:neardup,NAME,N: records in and out, lines skipped) on standard error at the end"}
}

// commonFlags are the flags of every streaming stage; a stage that takes
// only some of them lists those.
func commonFlags() []cli.Flag {
	return []cli.Flag{jobsFlag(), outputFlag(), compressFlag(), noHeaderFlag(), skipBadFlag(), progressFlag(), lineBufferedFlag(), countersFlag()}
}

// commonOptions reads the common flags into the options every stage has
// (a flag the stage does not take reads as its zero value). Line buffering
// is on with --line-buffered and, for a stage that takes the flag, by
// default when out is a terminal.
func commonOptions(c *cli.Context, out *outputFile) stream.Common {
	return stream.Common{
		Jobs:         c.Int("jobs"),
		SkipBad:      c.Bool("skip-bad"),
		NoHeader:     c.Bool("no-header"),
		LineBuffered: takes(c, "line-buffered") && lineBuffered(c, out),
		Progress:     c.Bool("progress"),
		Counters:     c.Bool("counters"),
	}
}

// takes reports whether the command being run has the flag name.
func takes(c *cli.Context, name string) bool {
	return c.Command != nil && slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool {
		return slices.Contains(f.Names(), name)
	})
}

// writeOutput runs a stage that writes a stream, to standard output or to
// -o FILE: it opens the output, reads the common flags, runs the stage on
// both and finishes the output (renamed into place, or removed when the
// stage failed).
func writeOutput(c *cli.Context, env *Env, run func(w io.Writer, common stream.Common) error) error {
	out, err := openOutput(c, env)
	if err != nil {
		return err
	}
	common := commonOptions(c, out)
	if out.z != nil {
		out.z.flushEach = common.LineBuffered
	}
	return out.finish(run(out.w, common))
}

// runStream is writeOutput for a stage's Run: common is the stream.Common
// that opt embeds, filled in before run is called with opt, the arguments
// and the streams.
func runStream[O any](c *cli.Context, env *Env, opt *O, common *stream.Common,
	run func(ctx context.Context, opt O, inputs []string, stdout, stderr io.Writer) error) error {
	return writeOutput(c, env, func(w io.Writer, cm stream.Common) error {
		*common = cm
		return run(env.Ctx, *opt, c.Args().Slice(), w, env.Stderr)
	})
}

// documentFlags are the flags that say how documents are read; the usage
// texts of --format, --files and --lines are given, and jsonPrefix starts
// those of the JSON Lines fields.
func documentFlags(format, files, lines, jsonPrefix string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Category: catInput, Usage: format},
		&cli.BoolFlag{Name: "files", Category: catInput, Usage: files},
		&cli.BoolFlag{Name: "lines", Category: catInput, Usage: lines},
		&cli.StringFlag{Name: "id-field", Value: "id", Category: catInput, Usage: jsonPrefix + "JSON Lines and Parquet: the `NAME` of the id field (column)"},
		&cli.StringFlag{Name: "text-field", Value: "text", Category: catInput, Usage: jsonPrefix + "JSON Lines and Parquet: the `NAME` of the text field (column)"},
		&cli.StringFlag{Name: "text", Value: "raw", Category: catInput, Usage: jsonPrefix + "how a document's text is taken: `MODE` raw (as it is), html (the visible text of HTML) or auto (html for HTML documents: a WARC record's Content-Type text/html, else a start <!doctype html or <html)"},
		&cli.BoolFlag{Name: "main", Category: catInput, Usage: jsonPrefix + "with --text html or auto: only the main content of HTML (nav, header, footer, aside and elements whose class or id says menu, nav, footer, sidebar, cookie dropped)"},
		&cli.Int64Flag{Name: "number-from", Category: catInput, Usage: jsonPrefix + "the ids are the documents' arrival numbers, `N` for the first line read (counted across all inputs), 12 digits zero-padded"},
	}
}

// inputDocumentFlags are the document flags of a stage whose input is the
// documents (shingle, keep).
func inputDocumentFlags() []cli.Flag {
	return documentFlags("document format: "+input.FormatNames()+" (default: from the file's first bytes, parquet by content at both ends, else its name)",
		"each FILE (or each path read from standard input) is one document; same as --format files",
		"each line is one document, its id the line number; same as --format lines", "")
}

// documentFormat reads --format, --files and --lines.
func documentFormat(c *cli.Context) (string, error) {
	format, err := input.ParseFormat(c.String("format"))
	if err != nil {
		return "", usagef("%v", err)
	}
	if c.Bool("files") && c.Bool("lines") {
		return "", usagef("--files and --lines exclude each other")
	}
	for _, f := range []string{"files", "lines"} {
		if c.Bool(f) {
			if format != "" && format != f {
				return "", usagef("--%s and --format %s exclude each other", f, format)
			}
			format = f
		}
	}
	return format, nil
}

// readingFlags reads the document flags: --format (--files, --lines),
// --id-field, --text-field and --number-from, and which were given.
func readingFlags(c *cli.Context) (input.ReadingFlags, error) {
	format, err := documentFormat(c)
	if err != nil {
		return input.ReadingFlags{}, err
	}
	f := input.ReadingFlags{Reading: input.Reading{
		Format: format, IDField: c.String("id-field"), TextField: c.String("text-field"),
		Number: c.IsSet("number-from"), NumberFrom: c.Int64("number-from"),
	}}
	switch {
	case c.Bool("files"):
		f.FormatFlag = "--files"
	case c.Bool("lines"):
		f.FormatFlag = "--lines"
	case c.IsSet("format"):
		f.FormatFlag = "--format " + format
	}
	f.IDFieldSet, f.TextFieldSet, f.NumberSet = c.IsSet("id-field"), c.IsSet("text-field"), c.IsSet("number-from")
	text := input.TextRaw // (a stage without --text: parts)
	if takes(c, "text") {
		text = c.String("text")
	}
	if f.Text, err = input.ParseText(text); err != nil {
		return f, usagef("%v", err)
	}
	if f.Text == input.TextRaw {
		f.Text = ""
	}
	f.Main, f.TextSet, f.MainSet = c.Bool("main"), c.IsSet("text"), c.IsSet("main")
	if f.Main && f.Text == "" && f.TextSet {
		return f, usagef("--main is for --text html or auto")
	}
	if f.Number {
		if err := input.CheckNumberFrom(f.NumberFrom); err != nil {
			return f, err
		}
	}
	return f, nil
}

// documentReading reads the document flags of a stage that reads the
// documents first hand (shingle, parts, seen, spans): Parquet files are
// recognised by their content, and an id field given is required.
func documentReading(c *cli.Context) (input.Reading, error) {
	rf, err := readingFlags(c)
	if err != nil {
		return input.Reading{}, err
	}
	if err := detectParquet(&rf, c.Args().Slice()); err != nil {
		return input.Reading{}, err
	}
	r := rf.Reading
	r.IDRequired = rf.IDFieldSet
	return r, nil
}

// detectParquet sets the format of documents read by file name (no
// --format) to Parquet when the files given are Parquet files by their
// content ("PAR1" at both ends); some Parquet and some not is a usage error.
func detectParquet(f *input.ReadingFlags, names []string) error {
	if f.Format != input.FormatAuto || len(names) == 0 {
		return nil
	}
	var pq, other []string
	for _, n := range names {
		if n != "-" && input.IsParquet(n) {
			pq = append(pq, n)
		} else {
			other = append(other, n)
		}
	}
	switch {
	case len(pq) == 0:
		return nil
	case len(other) > 0:
		return usagef("%s is a Parquet file and %s is not: read them apart, or give --format", pq[0], other[0])
	}
	f.Format = input.FormatParquet
	if f.FormatFlag == "" {
		f.FormatFlag = "Parquet files (by their content)"
	}
	return nil
}

// merge joins flag groups.
func merge(groups ...[]cli.Flag) []cli.Flag {
	var all []cli.Flag
	for _, g := range groups {
		all = append(all, g...)
	}
	return all
}

// lineBuffered reports whether output should be flushed as it comes.
func lineBuffered(c *cli.Context, o *outputFile) bool {
	if c.Bool("line-buffered") {
		return true
	}
	if o.f != nil {
		return false
	}
	f, ok := o.w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// flagName writes a flag's name as it is typed: -n, --sketch-seed.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// memoryFlag is the --memory flag of a stage that holds state: usage says
// what it bounds. Its default is the machine's (stream.DefaultMemory),
// stated in the help by its rule, so that the man pages are the same on
// every machine.
func memoryFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "memory", Usage: usage + " (K, M, G suffixes; " + stream.MemoryFloorRule + ")", DefaultText: stream.DefaultMemoryRule}
}

// memoryOption reads --memory: the size given, else 0, which the stage's
// options resolve to the one default (stream.Memory).
func memoryOption(c *cli.Context) (int64, error) {
	if !c.IsSet("memory") {
		return 0, nil
	}
	mem, err := parseSize(c.String("memory"))
	if err != nil {
		return 0, usagef("--memory: %v", err)
	}
	return mem, nil
}
