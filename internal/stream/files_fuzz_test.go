package stream

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/testutil"
)

// FuzzFilesList gives the files source (shingle --files with no FILE) any
// list of paths on its standard input, each taken under a small tree of
// files, directories and symlinks: it reads exactly the documents the
// rules say (a file named is read, a directory is walked in lexical order
// with the symlinks to files in it, anything else is a skipped name under
// --skip-bad), each whole and decompressed, in the order listed.
func FuzzFilesList(f *testing.F) {
	dir := testutil.FuzzDir(f)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("doc c"))
	zw.Close()
	content := map[string]string{"a": "doc a", "sub/b": "doc b", "sub/c.gz": "doc c", "sub/empty": ""}
	for name, data := range map[string]string{"a": "doc a", "sub/b": "doc b", "sub/c.gz": gz.String(), "sub/empty": ""} {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	os.Symlink("../a", filepath.Join(dir, "sub/link-a"))
	os.Symlink("nowhere", filepath.Join(dir, "sub/dangling"))
	for _, s := range []string{"\r\r", "a\nsub\n", "sub/b\r\n\n./a\nmissing\nsub/link-a\nsub/dangling\n", ".\n", "a/x\nsub/c.gz", "sub//b\n../b\n"} {
		f.Add([]byte(s))
	}
	// expect returns the documents a name stands for, and whether it is
	// read (else it is skipped).
	var expect func(path string) ([]string, bool)
	expect = func(path string) ([]string, bool) {
		st, err := os.Stat(path)
		switch {
		case err != nil:
			return nil, false
		case st.Mode().IsRegular():
			return []string{path}, true
		case !st.IsDir():
			return nil, false
		}
		entries, _ := os.ReadDir(path)
		var docs []string
		for _, e := range entries {
			p := filepath.Join(path, e.Name())
			if e.Type()&os.ModeSymlink != 0 {
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
					docs = append(docs, p)
				}
				continue
			}
			sub, _ := expect(p)
			docs = append(docs, sub...)
		}
		return docs, true
	}
	f.Fuzz(func(t *testing.T, list []byte) {
		if len(list) > 64<<10 {
			return
		}
		// Every path is taken under dir; one that climbs out of it is left
		// out.
		var listing bytes.Buffer
		var want []string
		var skipped int
		sc := bufio.NewScanner(bytes.NewReader(list))
		for sc.Scan() {
			line := sc.Text()
			if line == "" || slices.Contains(strings.Split(filepath.ToSlash(line), "/"), "..") {
				continue
			}
			name := filepath.Join(dir, line)
			listing.WriteString(name + "\n")
			// A CR that ends a line is the end of a CRLF line, not part
			// of the path.
			name = strings.TrimSuffix(name, "\r")
			docs, ok := expect(name)
			if !ok {
				skipped++
			}
			want = append(want, docs...)
		}
		src := &Files{list: bufio.NewScanner(&listing), listPos: record.Pos{File: "<stdin>"}, SkipBad: true}
		var got []string
		var gotSkipped int
		for {
			c, err := src.Next()
			if err != nil {
				t.Fatalf("%q: %v", listing.String(), err)
			}
			if c == nil {
				break
			}
			for _, d := range c.Docs {
				rel, _ := filepath.Rel(dir, d.Name)
				rel = strings.TrimPrefix(filepath.ToSlash(rel), "sub/link-a")
				if c, ok := content[rel]; ok && c != string(d.Data) || rel == "" && string(d.Data) != "doc a" {
					t.Fatalf("%s read as %q", d.Name, d.Data)
				}
				got = append(got, d.Name)
			}
			gotSkipped += len(c.Skipped)
			c.Release()
		}
		if !slices.Equal(got, want) || gotSkipped != skipped {
			t.Fatalf("%q: read %q and skipped %d, want %q and %d", listing.String(), got, gotSkipped, want, skipped)
		}
	})
}
