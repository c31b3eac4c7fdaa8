package cli

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"
)

// fileFlags are the flags whose values name files a stage reads, or keeps
// state in, besides its inputs: -o must be none of them.
var fileFlags = []string{"state", "pairs", "clusters", "report", "shingles", "sketches", "documents",
	"drop-parts", "dropped", "ids", "df", "bbit", "stopwords", "against", "topics-out"}

// checkOutputNotInput refuses (a usage error) an -o FILE that is also an
// input of the stage or the value of one of its fileFlags (the state
// file, the pairs, the report, …): the output, renamed into place at the
// end, would replace it. Files that exist are compared with os.SameFile
// (links, other spellings), others by their absolute names.
func checkOutputNotInput(c *cli.Context) error {
	out := c.String("output")
	if out == "" || out == "-" {
		return nil
	}
	same := func(name string) bool {
		if name == "" || name == "-" {
			return false
		}
		oi, oerr := os.Stat(out)
		ni, nerr := os.Stat(name)
		if oerr == nil && nerr == nil {
			return os.SameFile(oi, ni)
		}
		a, aerr := filepath.Abs(out)
		b, berr := filepath.Abs(name)
		return aerr == nil && berr == nil && a == b
	}
	for _, name := range c.Args().Slice() {
		if same(name) {
			return usagef("-o %s is the input %s: the output would replace it; write it to another file", out, name)
		}
	}
	for _, flag := range fileFlags {
		if !takes(c, flag) || !c.IsSet(flag) {
			continue
		}
		for _, name := range flagValues(c, flag) {
			if same(name) {
				return usagef("-o %s is the file of %s %s: the output would replace it; write it to another file", out, flagName(flag), name)
			}
		}
	}
	return nil
}

// flagValues returns the values of a string flag, or a string slice flag's
// (--documents, repeated).
func flagValues(c *cli.Context, name string) []string {
	for _, f := range c.Command.Flags {
		if _, ok := f.(*cli.StringSliceFlag); ok && slices.Contains(f.Names(), name) {
			return c.StringSlice(name)
		}
	}
	return []string{c.String(name)}
}
