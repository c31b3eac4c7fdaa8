package input

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/neardup/neardup/internal/testutil"
)

// text is long enough to span several reads of the decoders.
var text = []byte(strings.Repeat("doc\tsome text, é and 日本語\n", 5000))

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstded(t *testing.T, b []byte) []byte {
	t.Helper()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zw.Close()
	return zw.EncodeAll(b, nil)
}

func readAll(t *testing.T, f *File) []byte {
	t.Helper()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("reading %s: %v", f.Name, err)
	}
	return b
}

func TestOpenDetectsCompression(t *testing.T) {
	tests := []struct {
		name        string // the suffix does not matter: the magic bytes do
		stored      []byte
		compression string
	}{
		{"plain.txt", text, ""},
		{"plain.gz", text, ""},
		{"doc.gz", gzipped(t, text), "gzip"},
		{"doc.txt", gzipped(t, text), "gzip"},
		{"doc.zst", zstded(t, text), "zstd"},
		{"doc", zstded(t, text), "zstd"},
		{"two-members.gz", append(gzipped(t, text[:100]), gzipped(t, text[100:])...), "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := testutil.WriteFile(t, tt.name, tt.stored)
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Name != path || f.Compression != tt.compression || f.Size != int64(len(tt.stored)) {
				t.Errorf("Open(%s): Name %q, Compression %q, Size %d; want %q, %q, %d",
					tt.name, f.Name, f.Compression, f.Size, path, tt.compression, len(tt.stored))
			}
			if got := readAll(t, f); !bytes.Equal(got, text) {
				t.Errorf("read %d bytes, want the %d of the text", len(got), len(text))
			}
			if got := f.Consumed(); got != int64(len(tt.stored)) {
				t.Errorf("Consumed() = %d after reading all, want %d", got, len(tt.stored))
			}
			if err := f.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if err := f.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

func TestOpenShortFiles(t *testing.T) {
	for _, content := range []string{"", "a", "\x1f", "\x1f\x8b", "\x28\xb5\x2f", "abc\n"} {
		path := testutil.WriteFile(t, "short", []byte(content))
		f, err := Open(path)
		if content == "\x1f\x8b" {
			// The gzip magic alone: a truncated gzip file.
			if err == nil {
				_, err = io.ReadAll(f)
				f.Close()
			}
			if err == nil || !strings.Contains(err.Error(), path+": gzip:") {
				t.Errorf("truncated gzip header: error %v, want one naming the file and gzip", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Open(%q): %v", content, err)
			continue
		}
		if got := string(readAll(t, f)); got != content || f.Compression != "" {
			t.Errorf("Open(%q) read %q, compression %q", content, got, f.Compression)
		}
		f.Close()
	}
}

func TestOpenCorrupt(t *testing.T) {
	gz := gzipped(t, text)
	zs := zstded(t, text)
	tests := []struct {
		name, kind string
		stored     []byte
	}{
		{"truncated.gz", "gzip", gz[:len(gz)/2]},
		{"bad.gz", "gzip", append(append([]byte{}, gz[:12]...), bytes.Repeat([]byte{0xff}, 100)...)},
		{"truncated.zst", "zstd", zs[:len(zs)/2]},
		{"bad.zst", "zstd", append(append([]byte{}, zs[:4]...), bytes.Repeat([]byte{0xff}, 100)...)},
	}
	for _, tt := range tests {
		path := testutil.WriteFile(t, tt.name, tt.stored)
		f, err := Open(path)
		if err == nil {
			_, err = io.ReadAll(f)
			f.Close()
		}
		if err == nil {
			t.Errorf("%s: read without error", tt.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), path+": "+tt.kind+": ") {
			t.Errorf("%s: error %q, want it to start with %q", tt.name, err, path+": "+tt.kind+": ")
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err == nil || err.Error() != dir+": is a directory" {
		t.Errorf("Open(directory) error = %v, want %q", err, dir+": is a directory")
	}
	missing := filepath.Join(dir, "missing.tsv")
	if _, err := Open(missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Open(missing) error = %v, want a not-exist error naming the file", err)
	}
}

// A read error of the underlying reader names the input.
func TestWrapReadError(t *testing.T) {
	broken := errors.New("device gone")
	f, err := Wrap("in.tsv", io.MultiReader(strings.NewReader("some lines\n"), iotest.ErrReader(broken)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(f)
	if !errors.Is(err, broken) || !strings.HasPrefix(err.Error(), "in.tsv: ") {
		t.Errorf("read error = %v, want %v prefixed with the name", err, broken)
	}
}

func TestWrapSmallReads(t *testing.T) {
	for _, tt := range []struct {
		stored      []byte
		compression string
	}{
		{text, ""}, {gzipped(t, text), "gzip"}, {zstded(t, text), "zstd"},
	} {
		f, err := Wrap("x", iotest.OneByteReader(bytes.NewReader(tt.stored)))
		if err != nil {
			t.Fatal(err)
		}
		if f.Compression != tt.compression || f.Size != -1 {
			t.Errorf("Wrap: Compression %q, Size %d; want %q, -1", f.Compression, f.Size, tt.compression)
		}
		if got := readAll(t, f); !bytes.Equal(got, text) {
			t.Errorf("%s one byte at a time: read %d bytes, want %d", tt.compression, len(got), len(text))
		}
		f.Close()
	}
}

// withStdin runs fn with os.Stdin reading a file that holds content.
func withStdin(t *testing.T, content []byte, fn func()) {
	t.Helper()
	path := testutil.WriteFile(t, "stdin", content)
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	saved := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = saved }()
	fn()
}

func TestOpenStdin(t *testing.T) {
	gz := gzipped(t, text)
	withStdin(t, gz, func() {
		f, err := Open("-")
		if err != nil {
			t.Fatal(err)
		}
		if f.Name != StdinName || f.Compression != "gzip" || f.Size != int64(len(gz)) {
			t.Errorf("Open(-): Name %q, Compression %q, Size %d", f.Name, f.Compression, f.Size)
		}
		if got := readAll(t, f); !bytes.Equal(got, text) {
			t.Errorf("read %d bytes from standard input, want %d", len(got), len(text))
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
		if n, err := Stat("-"); n != int64(len(gz)) || err != nil {
			t.Errorf("Stat(-) = %d, %v, want %d", n, err, len(gz))
		}
	})
	// Closing standard input's File leaves standard input open.
	withStdin(t, []byte("x"), func() {
		f, err := Open("-")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, err := os.Stdin.Stat(); err != nil {
			t.Errorf("standard input closed: %v", err)
		}
	})
}

func TestStat(t *testing.T) {
	path := testutil.WriteFile(t, "f", []byte("12345"))
	if n, err := Stat(path); n != 5 || err != nil {
		t.Errorf("Stat(file) = %d, %v, want 5, nil", n, err)
	}
	if n, err := Stat(filepath.Dir(path)); n != -1 || err != nil {
		t.Errorf("Stat(directory) = %d, %v, want -1, nil", n, err)
	}
	if n, err := Stat(path + ".missing"); n != -1 || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(missing) = %d, %v, want -1 and a not-exist error", n, err)
	}
}

func TestTrimCompressionSuffix(t *testing.T) {
	for in, want := range map[string]string{
		"a.jsonl.gz":   "a.jsonl",
		"a.tsv.gzip":   "a.tsv",
		"a.json.zst":   "a.json",
		"a.tsv.zstd":   "a.tsv",
		"a.tsv":        "a.tsv",
		"a.gz.tsv":     "a.gz.tsv",
		"a.tsv.gz.zst": "a.tsv.gz", // one suffix only
		"gz":           "gz",
	} {
		if got := TrimCompressionSuffix(in); got != want {
			t.Errorf("TrimCompressionSuffix(%q) = %q, want %q", in, got, want)
		}
	}
}
