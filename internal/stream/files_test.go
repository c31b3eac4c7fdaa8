package stream

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// tree writes files (path → content) under a new directory and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// docs reads every chunk of src and returns "name=content" for each
// document and "skipped name" for each unreadable file.
func docs(t *testing.T, src *Files, dir string) []string {
	t.Helper()
	var got []string
	for i, c := range readChunks(t, src) {
		if c.Seq != i {
			t.Errorf("chunk %d has Seq %d", i, c.Seq)
		}
		for _, e := range c.Skipped {
			got = append(got, "skipped "+strings.TrimPrefix(e.Pos.File, dir+"/"))
		}
		for _, d := range c.Docs {
			got = append(got, strings.TrimPrefix(d.Name, dir+"/")+"="+string(d.Data))
		}
	}
	return got
}

func TestFilesWalk(t *testing.T) {
	dir := tree(t, map[string]string{
		"z.txt":            "z",
		"A.txt":            "A",
		"sub/b.txt":        "b",
		"sub/a.txt":        "a",
		"sub/deeper/c.txt": "c\nwith lines\n",
		"sub/empty.txt":    "",
		"other/x.txt":      "x",
		"nothing/.keep":    "",
	})
	os.Mkdir(filepath.Join(dir, "emptydir"), 0o755)
	src := NewFiles([]string{
		filepath.Join(dir, "z.txt"),
		filepath.Join(dir, "sub"),
		filepath.Join(dir, "emptydir"),
		filepath.Join(dir, "A.txt"),
		dir,
	})
	got := docs(t, src, dir)
	want := []string{
		"z.txt=z",
		"sub/a.txt=a", "sub/b.txt=b", "sub/deeper/c.txt=c\nwith lines\n", "sub/empty.txt=",
		"A.txt=A",
		// The whole directory, in lexical (byte) order.
		"A.txt=A", "nothing/.keep=", "other/x.txt=x",
		"sub/a.txt=a", "sub/b.txt=b", "sub/deeper/c.txt=c\nwith lines\n", "sub/empty.txt=",
		"z.txt=z",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("documents\n%q\nwant\n%q", got, want)
	}
	// z, sub (a, b, c), A, then the whole tree (A, x, a, b, c, z).
	if done, total := src.Progress(); done != 1+15+1+18 || total != -1 {
		t.Errorf("Progress() = %d, %d; want %d, -1", done, total, 1+15+1+18)
	}
	if err := src.Close(); err != nil {
		t.Error(err)
	}
}

func TestFilesMissing(t *testing.T) {
	dir := tree(t, map[string]string{"a": "A", "b": "B"})
	names := []string{filepath.Join(dir, "a"), filepath.Join(dir, "missing"), filepath.Join(dir, "b")}
	src := NewFiles(names)
	if _, err := src.Next(); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: error %v, want one naming it", err)
	}
	src = NewFiles(names)
	src.SkipBad = true
	if got := strings.Join(docs(t, src, dir), "|"); got != "skipped missing|a=A|b=B" {
		t.Errorf("under SkipBad: %q", got)
	}
	src = NewFiles([]string{dir + "/missing"})
	src.SkipBad = true
	c, err := src.Next()
	if err != nil || c == nil || len(c.Skipped) != 1 || len(c.Docs) != 0 {
		t.Fatalf("only a missing file under SkipBad: %v, %v", c, err)
	}
	if e := c.Skipped[0]; e.Pos.File != dir+"/missing" || e.Pos.Line != 0 || !strings.Contains(e.Msg, "no such file") {
		t.Errorf("skipped file error %+v", e)
	}
}

func TestFilesCompressed(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("unpacked text"))
	zw.Close()
	dir := tree(t, map[string]string{"doc.txt.gz": gz.String()})
	if got := docs(t, NewFiles([]string{dir}), dir); len(got) != 1 || got[0] != "doc.txt.gz=unpacked text" {
		t.Errorf("gzip document: %q", got)
	}
}

func TestFilesBatches(t *testing.T) {
	small := map[string]string{}
	for i := range 300 {
		small[fmt.Sprintf("f%03d", i)] = "x"
	}
	dir := tree(t, small)
	var sizes []int
	for _, c := range readChunks(t, NewFiles([]string{dir})) {
		sizes = append(sizes, len(c.Docs))
	}
	if fmt.Sprint(sizes) != fmt.Sprint([]int{maxFilesPerChunk, 300 - maxFilesPerChunk}) {
		t.Errorf("300 small files in chunks of %v", sizes)
	}

	big := strings.Repeat("y", ChunkSize*2/3)
	dir = tree(t, map[string]string{"a": big, "b": big, "c": big})
	sizes = nil
	for _, c := range readChunks(t, NewFiles([]string{dir})) {
		sizes = append(sizes, len(c.Docs))
	}
	if fmt.Sprint(sizes) != "[2 1]" {
		t.Errorf("three files of 2/3 ChunkSize in chunks of %v, want [2 1]", sizes)
	}
}

// With no names, the paths are read from standard input, one a line.
func TestFilesFromStdin(t *testing.T) {
	dir := tree(t, map[string]string{"a": "A", "sub/b": "B", "list": ""})
	list := filepath.Join(dir, "list")
	content := filepath.Join(dir, "a") + "\n\n" + filepath.Join(dir, "sub") + "\r\n"
	if err := os.WriteFile(list, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(list)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	saved := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = saved }()
	if got := strings.Join(docs(t, NewFiles(nil), dir), "|"); got != "a=A|sub/b=B" {
		t.Errorf("paths from standard input: %q", got)
	}
}

func TestFilesSymlinks(t *testing.T) {
	dir := tree(t, map[string]string{"d/a.txt": "a", "d/sub/b.txt": "b", "e/c.txt": "c"})
	for link, target := range map[string]string{
		"link":       "d",       // named: walked
		"d/to-file":  "a.txt",   // inside: followed
		"d/to-dir":   "../e",    // inside: counted
		"d/loop":     "..",      // inside: counted, never walked
		"d/dangling": "missing", // inside: counted
		"file-link":  "e/c.txt", // named: followed
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skip(err)
		}
	}
	src := NewFiles([]string{filepath.Join(dir, "link"), filepath.Join(dir, "file-link")})
	got := docs(t, src, dir)
	want := []string{"link/a.txt=a", "link/sub/b.txt=b", "link/to-file=a", "file-link=c"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	var report bytes.Buffer
	src.Report(&report, "stage")
	for _, w := range []string{
		"stage: 2 symlink(s) to a directory not walked, such as " + filepath.Join(dir, "link/loop"),
		"stage: 1 dangling symlink(s) not read, such as " + filepath.Join(dir, "link/dangling"),
	} {
		if !strings.Contains(report.String(), w) {
			t.Errorf("report %q lacks %q", report.String(), w)
		}
	}
}
