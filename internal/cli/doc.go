// Package cli holds the command-line glue of every stage: the urfave/cli
// App constructors (one file a stage), the flags they share, and the one
// place where errors become exit statuses:
//
//	0  success (also when a downstream reader such as head closes the pipe)
//	1  a runtime error: a file that can't be read or written
//	2  bad input (file:line: what is wrong) or bad usage
//	130 interrupted
//
// Errors declare their class (package status); report alone maps a class to
// a number, and the numbers are named only here (ExitOK …).
//
// The algorithms live in their own packages; nothing here but flag reading.
// The common flags and the document-format flags are defined once
// (flags.go); commonOptions reads the common ones into the stream.Common
// that every stage's Options embeds, and writeOutput is the one way an
// action opens its output, runs its stage and finishes the output.
//
// Checks: the values of a stage's options are checked by the stage's
// Options.Resolve, which its Run calls, with typed usage errors (NaN and
// infinite floats too, status.Finite), and which fills in the defaults of
// -j and --memory (the CLI passes 0 for a flag not given); the Beam
// pipeline calls the same functions. Process-wide settings of the
// collector are set here only (gc.go), never over GOGC or GOMEMLIMIT. An action
// checks only what the Options can't see: which flags were given together
// (c.IsSet), flags that are parsed here (--memory sizes, --format with
// --files and --lines, the Hamming --tables) and the arguments and build
// flags of the index and bandindex commands (where an explicit --blocks 0
// differs from none).
package cli
