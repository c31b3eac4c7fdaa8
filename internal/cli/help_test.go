package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestHelpFolds checks that a stage with more flags than a screen holds
// has its shared flags folded onto a line a category, each still named,
// and its own flags one a line.
func TestHelpFolds(t *testing.T) {
	h := help{name: "many", usage: "a stage with many flags", synopsis: "many [options] [FILE...]", man: "many"}
	for i := range 30 {
		h.flags = append(h.flags, &cli.BoolFlag{Name: fmt.Sprintf("own-%d", i), Usage: "its own flag"})
	}
	for _, cat := range sharedCategories {
		for i := range 10 {
			h.flags = append(h.flags, &cli.IntFlag{Name: fmt.Sprintf("%s-%d", strings.ToLower(cat), i), Category: cat, Usage: "a shared flag"})
		}
	}
	text := h.String()
	if n := strings.Count(text, "\n"); n > helpLines {
		t.Errorf("%d lines, want at most %d:\n%s", n, helpLines, text)
	}
	for _, f := range h.flags {
		if !strings.Contains(text, flagSynopsis(f)) {
			t.Errorf("--%s is not named:\n%s", f.Names()[0], text)
		}
	}
	if !strings.Contains(text, "   --own-29  its own flag\n") {
		t.Errorf("the stage's own flags are not one a line:\n%s", text)
	}
	if !strings.Contains(text, "   Running: --running-0 N, --running-1 N,") {
		t.Errorf("the shared flags are not folded:\n%s", text)
	}
}

func TestShorten(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"fits", "fits"},
		{"write to FILE (renamed into place when done) instead of standard output; a name ending in .gz is compressed", "write to FILE instead of standard output"},
		{"with --pairs (scored by verify): drop a document only when a kept one contains it", "with --pairs: drop a document only when a kept one contains it"},
		{"report on standard error every second what has been read, records and MB/s, and the time left", "report on standard error every second what has been read…"},
	} {
		if got := shorten(tt.text, 64); got != tt.want {
			t.Errorf("shorten(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
