package cli

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// helpLines is the most lines -h prints: one screen. The manual (man
// STAGE, go doc) has the rest.
const helpLines = 50

// helpWidth is the width -h wraps and cuts its lines to.
const helpWidth = 80

// maxSynopsis is the widest flag synopsis ("-o, --output FILE") the
// column of the flags' usages makes room for; a wider one is followed by
// its usage out of the column.
const maxSynopsis = 24

// helpExamples is how many examples -h shows.
const helpExamples = 3

// sharedCategories are the categories of the flags that several stages
// share (flags.go), in the order -h folds them onto one line each when the
// stage's flags one a line would not fit a screen.
var sharedCategories = []string{catRun, catOutput, catInput}

func init() {
	cli.HelpPrinter = printHelp
}

// printHelp writes the help of a stage (data is its *cli.App) or of a
// subcommand (a *cli.Command); urfave/cli's template only for anything
// else.
func printHelp(w io.Writer, templ string, data any) {
	var h help
	switch d := data.(type) {
	case *cli.App:
		h = help{name: d.Name, usage: d.Usage, synopsis: d.UsageText,
			flags: d.VisibleFlags(), commands: d.VisibleCommands(),
			examples: examples(d.Description, d.Name)}
	case *cli.Command:
		stage, _, _ := strings.Cut(d.HelpName, " ")
		h = help{name: d.HelpName, usage: d.Usage, synopsis: d.HelpName + " [options] " + d.ArgsUsage,
			flags: d.VisibleFlags(), man: stage}
		for _, s := range Stages() {
			if s.Name == stage {
				h.examples = examples(s.Description, d.HelpName)
			}
		}
	default:
		cli.HelpPrinterCustom(w, templ, data, nil)
		return
	}
	if h.man == "" {
		h.man = h.name
	}
	io.WriteString(w, h.String())
}

// help is what -h shows of a stage or subcommand.
type help struct {
	name, usage, synopsis string
	flags                 []cli.Flag
	commands              []*cli.Command
	examples              [][]string
	// man names the man page with the manual.
	man string
}

// String lays the help out: the flags one a line, and when that passes a
// screen the shared flags folded, a category a paragraph, until it fits.
func (h help) String() string {
	var text string
	for folded := 0; folded <= len(sharedCategories); folded++ {
		text = h.layout(sharedCategories[:folded])
		if strings.Count(text, "\n") <= helpLines {
			break
		}
	}
	return text
}

// layout writes the help with the flags of the categories folded given
// by their names only.
func (h help) layout(folded []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s - %s\n\nUSAGE:\n   %s\n", h.name, h.usage, strings.TrimSpace(h.synopsis))
	if len(h.commands) > 0 {
		b.WriteString("\nCOMMANDS:\n")
		width := 0
		for _, c := range h.commands {
			width = max(width, len(c.Name))
		}
		for _, c := range h.commands {
			fmt.Fprintf(&b, "   %-*s  %s\n", width, c.Name, c.Usage)
		}
	}
	var listed []cli.Flag
	groups := map[string][]string{}
	for _, f := range h.flags {
		switch cat := flagCategory(f); {
		case slices.Contains(folded, cat):
			groups[cat] = append(groups[cat], flagSynopsis(f))
		default:
			listed = append(listed, f)
		}
	}
	b.WriteString("\nOPTIONS:\n")
	width := 0
	for _, f := range listed {
		if n := len(flagSynopsis(f)); n <= maxSynopsis {
			width = max(width, n)
		}
	}
	for _, f := range listed {
		b.WriteString(flagLine(f, width))
	}
	for _, cat := range folded {
		if len(groups[cat]) > 0 {
			b.WriteString(wrap("   "+cat+": ", strings.Join(groups[cat], ", ")))
		}
	}
	if len(h.examples) > 0 {
		b.WriteString("\nEXAMPLES:\n")
		for _, ex := range h.examples {
			for _, line := range ex {
				b.WriteString("   " + line + "\n")
			}
		}
	}
	switch {
	case len(h.commands) > 0:
		fmt.Fprintf(&b, "\nRun '%s COMMAND -h' for a command's options; man %s has the full manual.\n", h.name, h.man)
	case len(folded) > 0:
		fmt.Fprintf(&b, "\nSee man %s for the full manual, with what every flag above does.\n", h.man)
	default:
		fmt.Fprintf(&b, "\nSee man %s for the full manual.\n", h.man)
	}
	return b.String()
}

// flagCategory returns the category of a flag, "" for none.
func flagCategory(f cli.Flag) string {
	if c, ok := f.(cli.CategorizableFlag); ok {
		return c.GetCategory()
	}
	return ""
}

// flagSynopsis writes how a flag is typed: its names, the short one
// first, and the name of its value, as in "-o, --output FILE".
func flagSynopsis(f cli.Flag) string {
	names := f.Names()
	var short, long []string
	for _, n := range names {
		if len(n) == 1 {
			short = append(short, flagName(n))
		} else {
			long = append(long, flagName(n))
		}
	}
	s := strings.Join(append(short, long...), ", ")
	if v := valueName(f); v != "" {
		s += " " + v
	}
	return s
}

// valueName returns the name of the value a flag takes: the word quoted
// in its usage with back quotes, else one by its type; "" for a switch.
func valueName(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok || !df.TakesValue() {
		return ""
	}
	if _, name, ok := strings.Cut(df.GetUsage(), "`"); ok {
		if name, _, ok := strings.Cut(name, "`"); ok {
			return name
		}
	}
	switch f.(type) {
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.Float64Flag:
		return "N"
	}
	return "VALUE"
}

// flagLine writes a flag on one line: its synopsis in a column at least width wide,
// then its usage, cut to fit helpWidth, and its default when short.
func flagLine(f cli.Flag, width int) string {
	line := fmt.Sprintf("   %-*s  ", width, flagSynopsis(f))
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return strings.TrimRight(line, " ") + "\n"
	}
	usage := strings.ReplaceAll(df.GetUsage(), "`", "")
	if d := df.GetDefaultText(); d != "" && d != "false" && d != "0" && d != `""` && len(d) <= 16 && !strings.Contains(usage, "(default") {
		usage += " (default " + strings.Trim(d, `"`) + ")"
	}
	return line + shorten(usage, helpWidth-len(line)) + "\n"
}

// shorten returns text when it fits in width; else text without its
// parenthetical remarks, up to the first "; " when it is still too long;
// else as many of its words as fit, followed by "…".
func shorten(text string, width int) string {
	if len(text) <= width {
		return text
	}
	text = dropParentheses(text)
	if len(text) > width {
		if i := strings.Index(text, "; "); i > 0 {
			text = text[:i]
		}
	}
	if len(text) <= width {
		return text
	}
	cut := strings.LastIndex(text[:width-1], " ")
	if cut <= 0 {
		return text
	}
	return strings.TrimRight(text[:cut], ",;:") + "…"
}

// dropParentheses removes the parenthesized parts of text and the space
// before each.
func dropParentheses(text string) string {
	var b []byte
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '(':
			if depth == 0 {
				b = bytes.TrimRight(b, " ")
			}
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0:
			b = append(b, c)
		}
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// wrap writes words separated by ", " after prefix, in lines of at most
// helpWidth columns, the next ones indented as far as the first word.
func wrap(prefix, text string) string {
	var b strings.Builder
	line := prefix
	indent := strings.Repeat(" ", len(prefix))
	for i, word := range strings.SplitAfter(text, ", ") {
		if i > 0 && len(line)+len(strings.TrimRight(word, " ")) > helpWidth {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent
		}
		line += word
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
	return b.String()
}

// examples returns the first helpExamples examples of the EXAMPLES section
// of a manual that run command (a stage, or a stage and its subcommand),
// each as its lines: a command and the lines that continue it, after the
// comments that stand before it.
func examples(manual, command string) [][]string {
	var all [][]string
	var cur []string
	inSection := false
	for _, line := range strings.Split(manual, "\n") {
		kind, text := classify(line)
		if kind == headingLine {
			inSection = text == "EXAMPLES"
			continue
		}
		if !inSection || kind != literalLine {
			if inSection && line != "" {
				inSection = false
			}
			continue
		}
		continued := len(cur) > 0 && (strings.HasPrefix(text, " ") ||
			strings.HasSuffix(cur[len(cur)-1], "|") || strings.HasSuffix(cur[len(cur)-1], "\\") ||
			strings.HasPrefix(cur[len(cur)-1], "#"))
		if !continued && len(cur) > 0 {
			all = append(all, cur)
			cur = nil
		}
		cur = append(cur, text)
	}
	if len(cur) > 0 {
		all = append(all, cur)
	}
	var out [][]string
	for _, ex := range all {
		if len(out) < helpExamples && runs(ex, command) {
			out = append(out, ex)
		}
	}
	return out
}

// runs reports whether an example runs command: a pipeline segment of it
// starts with the command's words.
func runs(example []string, command string) bool {
	for _, line := range example {
		if strings.HasPrefix(line, "#") {
			continue
		}
		for _, segment := range strings.Split(line, "|") {
			if f := strings.Fields(segment); strings.HasPrefix(strings.Join(f, " ")+" ", command+" ") {
				return true
			}
		}
	}
	return false
}
