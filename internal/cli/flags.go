package cli

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"
)

// Flag categories.
const (
	catInput  = "Input"
	catOutput = "Output"
	catRun    = "Running"
)

func jobsFlag() cli.Flag {
	return &cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Category: catRun,
		Usage: "worker threads; 0 means one per core (the output is the same for any number)"}
}

func outputFlag() cli.Flag {
	return &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Category: catOutput, Usage: "write to `FILE` (renamed into place when done) instead of standard output"}
}

func noHeaderFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-header", Category: catOutput, Usage: "leave out the #neardup header lines"}
}

func skipBadFlag() cli.Flag {
	return &cli.BoolFlag{Name: "skip-bad", Category: catInput, Usage: "skip malformed lines, count them and report the count at the end, instead of stopping"}
}

func progressFlag() cli.Flag {
	return &cli.BoolFlag{Name: "progress", Category: catRun, Usage: "report on standard error what has been read, records and MB/s, every second"}
}

func lineBufferedFlag() cli.Flag {
	return &cli.BoolFlag{Name: "line-buffered", Category: catOutput, Usage: "flush the output as each batch of input is done (the default when it is a terminal)"}
}

func countersFlag() cli.Flag {
	return &cli.BoolFlag{Name: "counters", Category: catRun, Usage: "write Hadoop Streaming counters (reporter:counter:neardup,NAME,N: records in and out, lines skipped) on standard error at the end"}
}

// commonFlags are the flags of every streaming stage.
func commonFlags() []cli.Flag {
	return []cli.Flag{jobsFlag(), outputFlag(), noHeaderFlag(), skipBadFlag(), progressFlag(), lineBufferedFlag(), countersFlag()}
}

// counterStderr is standard error when --counters is given.
type counterStderr struct{ io.Writer }

func (counterStderr) WantsCounters() bool { return true }

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
