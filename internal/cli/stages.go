package cli

import (
	"fmt"
	"slices"
	"strings"
)

// Stages lists every binary, in pipeline order, for the man page generator
// and the tests.
func Stages() []Stage {
	return []Stage{Parts(), Seen(), Spans(), Shingle(), DocFreq(), Sketch(), Band(), Pairs(), Verify(), Cluster(), Keep(), Index(), BandIndex(), Estimate()}
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
