package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Stages lists every binary, in pipeline order, for the man page generator
// and the tests.
func Stages() []Stage {
	return []Stage{Parts(), Seen(), Spans(), Shingle(), DocFreq(), Sketch(), Band(), Pairs(), Verify(), Cluster(), Keep(), Index(), BandIndex(), Estimate()}
}

// manTemplate is the markdown that urfave/cli turns into a man page.
const manTemplate = `% {{ .App.Name }} {{ .SectionNum }}

# NAME

{{ .App.Name }} - {{ .App.Usage }}

# SYNOPSIS

{{ .App.UsageText }}

# DESCRIPTION

{{ .App.Description }}
{{ if .GlobalArgs }}
# OPTIONS
{{ range $v := .GlobalArgs }}
{{ $v }}{{ end }}
{{ end }}{{ if .Commands }}
# COMMANDS
{{ range $v := .Commands }}
{{ $v }}{{ end }}{{ end }}{{ with index .App.Metadata "seeAlso" }}
# SEE ALSO

{{ . }}
{{ end }}`

// Man returns the man page (section 1) of a stage.
func Man(s Stage) (string, error) {
	app := NewApp(s, nil, nil, &Env{})
	app.Description = manMarkdown(app.Description)
	if len(s.SeeAlso) > 0 {
		app.Metadata["seeAlso"] = seeAlso(s, "**%s**(1)")
	}
	saved := cli.MarkdownDocTemplate
	cli.MarkdownDocTemplate = manTemplate
	defer func() { cli.MarkdownDocTemplate = saved }()
	return app.ToManWithSection(1)
}

// manMarkdown turns help text into markdown: an all-capitals line is a
// section heading and lines indented by three spaces are literal blocks.
func manMarkdown(text string) string {
	var b strings.Builder
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		kind, line := classify(line)
		if (kind == literalLine) != inBlock {
			b.WriteString("```\n")
			inBlock = kind == literalLine
		}
		if kind == headingLine {
			b.WriteString("# ")
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if inBlock {
		b.WriteString("```\n")
	}
	return b.String()
}

// The kinds of line in help text.
const (
	textLine    = iota
	headingLine // a section heading: a line in capitals
	literalLine // a line of a literal block: indented by three spaces
)

// classify returns the kind of a line of help text, and the line without
// the indentation of a literal block.
func classify(line string) (int, string) {
	switch {
	case strings.HasPrefix(line, "   "):
		return literalLine, strings.TrimPrefix(line, "   ")
	case line != "" && line == strings.ToUpper(line) && strings.TrimSpace(line) == line && !strings.ContainsAny(line, ".:"):
		return headingLine, line
	}
	return textLine, line
}

// seeAlso lists the stages a stage is used with, in pipeline order, each
// name formatted by format.
func seeAlso(s Stage, format string) string {
	var names []string
	for _, t := range Stages() {
		if slices.Contains(s.SeeAlso, t.Name) {
			names = append(names, fmt.Sprintf(format, t.Name))
		}
	}
	return strings.Join(names, ", ")
}
