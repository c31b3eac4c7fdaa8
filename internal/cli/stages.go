package cli

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// Stages lists every binary, in pipeline order, for the man page generator
// and the tests.
func Stages() []Stage {
	return []Stage{Shingle(), DocFreq(), Sketch(), Band(), Pairs(), Verify(), Cluster(), Keep(), Index(), BandIndex()}
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
{{ $v }}{{ end }}{{ end }}`

// Man returns the man page (section 1) of a stage.
func Man(s Stage) (string, error) {
	app := NewApp(s, nil, nil, &Env{})
	app.Description = manMarkdown(app.Description)
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
		indented := strings.HasPrefix(line, "   ")
		if indented != inBlock {
			b.WriteString("```\n")
			inBlock = indented
		}
		switch {
		case indented:
			b.WriteString(strings.TrimPrefix(line, "   "))
		case line != "" && line == strings.ToUpper(line) && strings.TrimSpace(line) == line && !strings.ContainsAny(line, ".:"):
			b.WriteString("# " + line)
		default:
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
	if inBlock {
		b.WriteString("```\n")
	}
	return b.String()
}
