package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
	"github.com/urfave/cli/v2"
)

// Version is set at build time with -ldflags "-X …/internal/cli.Version=…".
var Version = "dev"

// Exit statuses, the only place they are named: report maps every error
// to one by its class (package status).
const (
	// ExitOK is success, also when the reader of the output goes away.
	ExitOK = 0
	// ExitRuntime: a file could not be read or written (status.Runtime);
	// the run may succeed when retried.
	ExitRuntime = 1
	// ExitBadInput: bad input or bad usage (status.BadInput,
	// status.BadUsage); the command or the data must change first.
	ExitBadInput = 2
	// ExitInterrupted: the stage was interrupted.
	ExitInterrupted = 130
)

// usagef returns a usage error (a *status.UsageError).
var usagef = status.Usagef

// exitCoder is an error of urfave/cli that carries its own exit status.
type exitCoder interface{ ExitCode() int }

// Stage describes one binary.
type Stage struct {
	Name  string
	Usage string
	// Args names the positional arguments, as in "[FILE...]".
	Args string
	// Description is the manual text: what the stage does, what it holds in
	// memory, examples. EXIT STATUS is added. The man page and doc.go have
	// it all; -h only the first examples (help.go).
	Description string
	Flags       []cli.Flag
	Action      func(c *cli.Context, env *Env) error
	// Commands are subcommands (index build, index query, …).
	Commands []*cli.Command
	// SeeAlso names the stages this one is used with, for SEE ALSO.
	SeeAlso []string
}

// Env is what an action needs besides its flags.
type Env struct {
	Ctx    context.Context
	Stdout io.Writer
	Stderr io.Writer
	// operands counts the arguments after "--": they are file names even
	// when they start with '-'.
	operands int
}

// limitsText is the one line limit of the pipeline (stream.MaxLine), in
// every manual.
const limitsText = `LIMITS
   A line read (a document line, a record) is at most 1 GiB (1073741824
   bytes) before its newline, and so is a document read whole (--files),
   once decompressed, a WARC record (a gzip member once decompressed) and
   an HTTP body once its Content-Encoding is undone; a longer one is bad
   input, reported with its place, so that no small compressed input
   expands without bound.
   No stage writes a longer record: shingle refuses (with --skip-bad,
   skips and counts) a document whose record would be longer, so every
   stage reads what the one before it wrote.`

const exitStatusText = `EXIT STATUS
   0 success, also when the reader of the output goes away (| head);
   1 a file could not be read or written; 2 bad input, reported as
   file:line: what is wrong, or bad usage; 130 interrupted (SIGINT or
   SIGTERM: a stage not done 2 seconds later, or at a second signal, is
   ended, and its temporary files are removed; a stage killed outright
   leaves .NAME.tmp-* beside an -o file, safe to delete). Under a hard
   limit on memory (ulimit -d or -v) a stage runs as a child of itself,
   which passes everything through, so that one out of memory ends with
   status 1 and "NAME: out of memory (limit N MiB, ulimit -d): lower
   --memory, or raise the limit". Under a cgroup's limit the kernel's OOM
   killer ends it (status 137). What one line or record takes is bounded
   (LIMITS), and what a stage holds by its --memory where it has one.`

// NewApp builds the urfave/cli App of a stage.
func NewApp(s Stage, stdout, stderr io.Writer, env *Env) *cli.App {
	app := &cli.App{
		Name:            s.Name,
		Usage:           s.Usage,
		UsageText:       s.Name + " [options] " + s.Args,
		Description:     strings.TrimSpace(s.Description) + "\n\n" + limitsText + "\n\n" + exitStatusText,
		Version:         Version,
		Flags:           s.Flags,
		Commands:        s.Commands,
		HideHelpCommand: true,
		Writer:          stdout,
		ErrWriter:       stderr,
		// Subcommands find the Env here (commandEnv).
		Metadata: map[string]any{envKey: env},
		// Errors come back to Main, which alone decides the exit status.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, isSub bool) error {
			return status.Usage(err)
		},
	}
	if len(s.Commands) > 0 {
		app.UsageText = s.Name + " COMMAND [options] " + s.Args
	}
	if s.Action != nil {
		app.Action = func(c *cli.Context) error {
			if err := checkArgs(c, env.operands); err != nil {
				return err
			}
			return s.Action(c, env)
		}
	}
	return app
}

// checkArgs refuses a flag given after the positional arguments, which
// urfave/cli v2 would otherwise take as a file name. The last operands
// arguments came after "--" and are names whatever they look like.
func checkArgs(c *cli.Context, operands int) error {
	args := c.Args().Slice()
	for _, a := range args[:max(0, len(args)-operands)] {
		if len(a) > 1 && a[0] == '-' {
			return usagef("%s given after the file arguments: flags come first (%s [options] FILE...)", a, c.App.Name)
		}
	}
	return nil
}

// maxLineEnv names the environment variable that sets stream.MaxLine, the
// longest line, for tests only: they try the limit of 1 GiB on small data.
const maxLineEnv = "NEARDUP_MAX_LINE"

// profileEnv names the environment variable that has each stage write a
// CPU profile (go tool pprof) to its value followed by "." and the stage's
// name, so that every stage of a pipeline writes its own.
const profileEnv = "NEARDUP_CPUPROFILE"

// Main runs a stage with the process's arguments and streams, and returns
// the exit status.
func Main(s Stage) int {
	if code, done := superviseMemory(s); done {
		return code
	}
	paceGC()
	growPipes()
	if v := os.Getenv(maxLineEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "%s: %s=%q: want a number of bytes\n", s.Name, maxLineEnv, v)
			return ExitBadInput
		}
		stream.SetMaxLine(n)
	}
	if p := os.Getenv(profileEnv); p != "" {
		f, err := os.Create(p + "." + s.Name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s: %v\n", s.Name, profileEnv, err)
			return ExitRuntime
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %s: %v\n", s.Name, profileEnv, err)
			return ExitRuntime
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	// A write on a closed pipe returns EPIPE, which report takes for
	// success, instead of killing the process with SIGPIPE (status 141).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		// The stage returns when it sees the cancellation, and removes
		// its temporary files. One blocked where it cannot look (opening
		// a FIFO, reading a slow device) is ended here, as is any stage
		// on a second signal. Under superviseMemory, a SIGINT of the
		// terminal comes twice, from it and sent on by the parent: a
		// second signal that soon is the same one.
		first := time.Now()
		for again := true; again; {
			select {
			case <-time.After(interruptGrace - time.Since(first)):
				again = false
			case <-sigs:
				again = supervised && time.Since(first) < sameSignal
			}
		}
		disk.RemoveTemps()
		fmt.Fprintf(os.Stderr, "%s: interrupted\n", s.Name)
		os.Exit(ExitInterrupted)
	}()
	return runCtx(ctx, s, os.Args, os.Stdout, os.Stderr)
}

// supervised is set when the stage runs as the child of superviseMemory.
var supervised bool

// sameSignal is how soon after a signal a second one, under
// superviseMemory, is taken for the same one.
const sameSignal = 200 * time.Millisecond

// interruptGrace is how long a stage has, after SIGINT or SIGTERM, to end
// by itself before the process ends without it.
const interruptGrace = 2 * time.Second

// Run runs a stage with the given arguments and streams and returns the
// exit status. SIGINT and SIGTERM cancel it.
func Run(s Stage, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runCtx(ctx, s, args, stdout, stderr)
}

// runCtx runs a stage under ctx, which a signal cancels.
func runCtx(ctx context.Context, s Stage, args []string, stdout, stderr io.Writer) int {
	env := &Env{Ctx: ctx, Stdout: stdout, Stderr: stderr}
	for i, a := range args {
		if a == "--" {
			env.operands = len(args) - i - 1
			break
		}
	}
	app := NewApp(s, stdout, stderr, env)
	if len(args) > 0 {
		args = append([]string{s.Name}, splitShortValues(args[1:], s.Flags)...)
	}
	err := app.Run(args)
	return report(s.Name, err, ctx, stderr)
}

// report prints err and returns the exit status it calls for.
func report(name string, err error, ctx context.Context, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, syscall.EPIPE) {
		return ExitOK
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "%s: interrupted\n", name)
		return ExitInterrupted
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	switch status.Of(err) {
	case status.BadUsage:
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", name)
		return ExitBadInput
	case status.BadInput:
		return ExitBadInput
	}
	var ec exitCoder
	if errors.As(err, &ec) {
		if code := ec.ExitCode(); code != 0 {
			return code
		}
	}
	return ExitRuntime
}

// outputFile opens the output: stdout, or with -o a temporary file beside
// the target that finish syncs and renames into place, so a failed run
// leaves no half-written file. With compression (--compress, or an -o name
// ending in .gz or .zst) w compresses into the file or standard output.
type outputFile struct {
	w io.Writer
	f *disk.File
	// z is the compressor w writes to, closed by finish; nil when the
	// output is not compressed.
	z *compressor
}

func openOutput(c *cli.Context, env *Env) (*outputFile, error) {
	if err := checkOutputNotInput(c); err != nil {
		return nil, err
	}
	comp, err := outputCompression(c)
	if err != nil {
		return nil, err
	}
	name := c.String("output")
	o := &outputFile{w: env.Stdout}
	if name != "" && name != "-" {
		// A device or a pipe (-o /dev/null, -o /dev/stdout, a FIFO) is
		// written in place: renaming a file over it would replace it.
		f, err := disk.Create(disk.OS{}, disk.Target{Name: name, Mode: 0o644, InPlace: true})
		if err != nil {
			return nil, err
		}
		o.w, o.f = f, f
	}
	if comp != "" {
		if o.z, err = newCompressor(comp, o.w); err != nil {
			if o.f != nil {
				o.f.Abort()
			}
			return nil, err
		}
		o.w = o.z
	}
	return o, nil
}

// finish closes the compressor and renames the output into place if err
// is nil, else removes it.
func (o *outputFile) finish(err error) error {
	if err == nil && o.z != nil {
		err = o.z.Close()
	}
	if o.f == nil {
		return err
	}
	if err != nil {
		o.f.Abort()
		return err
	}
	return o.f.Commit()
}

func init() {
	// -v is a stage's verbose flag; the version has only its long name.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version"}
}

// splitShortValues lets a one-letter flag take its number glued on, as in
// -j8 or -k9, by splitting such an argument in two. Go's flag package
// would otherwise look for a flag named "j8".
func splitShortValues(args []string, flags []cli.Flag) []string {
	short := map[string]bool{}
	for _, f := range flags {
		if _, isBool := f.(*cli.BoolFlag); isBool {
			continue
		}
		for _, n := range f.Names() {
			if len(n) == 1 {
				short[n] = true
			}
		}
	}
	out := make([]string, 0, len(args)+2)
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && short[a[1:2]] && isNumber(a[2:]) {
			out = append(out, a[:2], a[2:])
			continue
		}
		out = append(out, a)
	}
	return out
}

func isNumber(s string) bool {
	for i, c := range s {
		if !(c >= '0' && c <= '9' || c == '.' && i > 0) {
			return false
		}
	}
	return s != ""
}
