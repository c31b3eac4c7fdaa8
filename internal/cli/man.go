//go:build !urfave_cli_no_docs

package cli

// The man pages are made here, by internal/tools/genman and the tests,
// never by a stage: make build gives the stages the tag
// urfave_cli_no_docs, which leaves urfave/cli's markdown and man page
// packages out of them, and with them the init of blackfriday's tables,
// 0.3 to 0.5 ms of every process.

import (
	"strings"

	"github.com/urfave/cli/v2"
)

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
