package cli_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/cli"
)

// TestDocsUpToDate checks that each cmd/<stage>/doc.go is the manual that
// genman makes of the stage's description and flags, and the one package
// comment of the command.
func TestDocsUpToDate(t *testing.T) {
	for _, s := range cli.Stages() {
		want, err := cli.Doc(s)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		dir := filepath.Join("..", "..", "cmd", s.Name)
		have, err := os.ReadFile(filepath.Join(dir, "doc.go"))
		if err != nil {
			t.Errorf("%v (run make man)", err)
			continue
		}
		if string(have) != string(want) {
			t.Errorf("%s is out of date (it is generated: edit internal/cli and run make man)", filepath.Join(dir, "doc.go"))
		}
		main, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "main.go"), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if main.Doc != nil {
			t.Errorf("%s/main.go has a package comment: the one package comment is doc.go's", dir)
		}
	}
}

// TestSeeAlso checks that SEE ALSO names other stages.
func TestSeeAlso(t *testing.T) {
	var names []string
	for _, s := range cli.Stages() {
		names = append(names, s.Name)
	}
	for _, s := range cli.Stages() {
		if len(s.SeeAlso) == 0 {
			t.Errorf("%s has no SEE ALSO", s.Name)
		}
		for _, n := range s.SeeAlso {
			if n == s.Name || !slices.Contains(names, n) {
				t.Errorf("%s: SEE ALSO %q is not another stage", s.Name, n)
			}
		}
	}
}
