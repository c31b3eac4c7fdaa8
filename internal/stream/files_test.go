package stream

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/neardup/neardup/internal/record"
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

// TestFilesNotRegular checks that a FIFO, named, listed or walked, and a
// device are counted and not read: opening a FIFO would wait for a writer
// for ever, reading /dev/zero would never end.
func TestFilesNotRegular(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "a", "sub/b.txt": "b"})
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "sub", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := []string{filepath.Join(dir, "a.txt"), fifo, filepath.Join(dir, "sub")}
	if _, err := os.Stat("/dev/zero"); err == nil {
		names = append(names, "/dev/zero")
	}
	done := make(chan []string)
	src := NewFiles(names)
	go func() { done <- docs(t, src, dir) }()
	select {
	case got := <-done:
		if want := "a.txt=a|sub/b.txt=b"; strings.Join(got, "|") != want {
			t.Errorf("documents %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO did not end")
	}
	var report bytes.Buffer
	src.Report(&report, "stage")
	want := fmt.Sprintf("stage: %d file(s) neither regular nor a symlink (a device, pipe or socket) not read, such as %s\n", len(names)-1, fifo)
	if report.String() != want {
		t.Errorf("report %q, want %q", report.String(), want)
	}
}

// TestFilesTooLarge checks that a file larger than MaxLine, plain or
// decompressed (a gzip or zstd bomb), is refused having read no more than
// MaxLine bytes, and skipped and counted under SkipBad.
func TestFilesTooLarge(t *testing.T) {
	defer func(n int) { MaxLine = n }(MaxLine)
	MaxLine = 100
	big := strings.Repeat("x", 101)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(big))
	zw.Close()
	dir := tree(t, map[string]string{"ok.txt": strings.Repeat("x", 100), "big.txt": big, "big.gz": gz.String()})
	for _, name := range []string{"big.txt", "big.gz"} {
		src := NewFiles([]string{filepath.Join(dir, "ok.txt"), filepath.Join(dir, name)})
		var err error
		for {
			var c *Chunk
			if c, err = src.Next(); c == nil || err != nil {
				break
			}
		}
		want := filepath.Join(dir, name) + ": file exceeds 100 bytes (decompressed), the longest document a stage reads"
		if _, ok := err.(*record.Error); !ok || err.Error() != want {
			t.Errorf("%s: error %v (%T), want *record.Error %q", name, err, err, want)
		}
		src = NewFiles([]string{filepath.Join(dir, "ok.txt"), filepath.Join(dir, name)})
		src.SkipBad = true
		if got := strings.Join(docs(t, src, dir), "|"); got != "skipped "+name+"|ok.txt="+strings.Repeat("x", 100) {
			t.Errorf("%s under SkipBad: %q", name, got)
		}
	}
}

// TestFilesUnreadableDir checks that under SkipBad a directory that cannot
// be read is skipped and counted, and otherwise ends the walk.
func TestFilesUnreadableDir(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "a", "bad/b.txt": "b", "c/c.txt": "c"})
	defer func(f func(string) ([]os.DirEntry, error)) { readDir = f }(readDir)
	readDir = func(name string) ([]os.DirEntry, error) {
		if filepath.Base(name) == "bad" {
			return nil, &os.PathError{Op: "open", Path: name, Err: syscall.EACCES}
		}
		return os.ReadDir(name)
	}
	src := NewFiles([]string{dir})
	src.SkipBad = true
	if got, want := strings.Join(docs(t, src, dir), "|"), "skipped bad|a.txt=a|c/c.txt=c"; got != want {
		t.Errorf("documents %q, want %q", got, want)
	}
	src = NewFiles([]string{dir})
	if _, err := src.Next(); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("without SkipBad: error %v", err)
	}
}

// TestFilesGrowDecompressed checks that a decompressed document larger than
// a chunk's buffer is read whole up to the limit, and refused one byte past.
func TestFilesGrowDecompressed(t *testing.T) {
	defer func(n int) { MaxLine = n }(MaxLine)
	MaxLine = 3*ChunkSize + 7
	gz := func(n int) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		for i := range n {
			zw.Write([]byte{byte('a' + i%26)})
		}
		zw.Close()
		return b.String()
	}
	dir := tree(t, map[string]string{"small.txt": "s", "at.gz": gz(MaxLine), "over.gz": gz(MaxLine + 1)})
	src := NewFiles([]string{filepath.Join(dir, "small.txt"), filepath.Join(dir, "at.gz"), filepath.Join(dir, "over.gz")})
	src.SkipBad = true
	var got []string
	for _, c := range readChunks(t, src) {
		for _, d := range c.Docs {
			for i, b := range d.Data {
				if b != byte('a'+i%26) && d.Name != filepath.Join(dir, "small.txt") {
					t.Fatalf("%s: byte %d is %q", d.Name, i, b)
				}
			}
			got = append(got, fmt.Sprintf("%s %d", filepath.Base(d.Name), len(d.Data)))
		}
		for _, e := range c.Skipped {
			got = append(got, "skipped "+filepath.Base(e.Pos.File))
		}
	}
	if want := fmt.Sprintf("small.txt 1|at.gz %d|skipped over.gz", MaxLine); strings.Join(got, "|") != want {
		t.Errorf("read %q, want %q", got, want)
	}
}
