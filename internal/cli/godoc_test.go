package cli_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestPackageDocs checks that every package under internal/ but the tools
// has a package comment: what go doc shows, and where a reader of the tree
// learns what the package is for.
func TestPackageDocs(t *testing.T) {
	root := filepath.Join("..", "..", "internal")
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" || dir == filepath.Join(root, "tools") {
			return filepath.SkipDir
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			return err
		}
		documented, sources := false, 0
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			sources++
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				return err
			}
			documented = documented || f.Doc != nil
		}
		if sources > 0 && !documented {
			t.Errorf("package %s has no package comment (a doc.go that says what it is for)", dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
