package stream

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
)

// file is an input of a test source.
type file struct{ name, data string }

// readers are the ways a test input can come in: whole, a byte at a time,
// half of what is asked, the last bytes with io.EOF, and random sizes.
var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"whole", func(r io.Reader) io.Reader { return r }},
	{"one byte", iotest.OneByteReader},
	{"half", iotest.HalfReader},
	{"data with EOF", iotest.DataErrReader},
	{"random", func(r io.Reader) io.Reader { return &randReader{r: r, rng: rand.New(rand.NewPCG(1, 2)), max: 300} }},
}

// randReader returns between 1 and max bytes a read.
type randReader struct {
	r   io.Reader
	rng *rand.Rand
	max int
}

func (rr *randReader) Read(p []byte) (int, error) {
	if n := 1 + rr.rng.IntN(rr.max); n < len(p) {
		p = p[:n]
	}
	return rr.r.Read(p)
}

// sizedReader returns at most sizes[i] bytes on its i-th read, then
// whatever is asked.
type sizedReader struct {
	r     io.Reader
	sizes []int
}

func (sr *sizedReader) Read(p []byte) (int, error) {
	if len(sr.sizes) > 0 {
		p = p[:min(len(p), sr.sizes[0])]
		sr.sizes = sr.sizes[1:]
	}
	return sr.r.Read(p)
}

// testLines returns a Lines source over files read through wrap.
func testLines(files []file, wrap func(io.Reader) io.Reader) *Lines {
	var names []string
	for _, f := range files {
		names = append(names, f.name)
	}
	l := NewLines(names)
	l.open = func(name string) (*input.File, error) {
		for _, f := range files {
			if f.name == name {
				return input.Wrap(name, wrap(strings.NewReader(f.data)))
			}
		}
		return nil, fmt.Errorf("open %s: no such file", name)
	}
	return l
}

func readChunks(t *testing.T, src Source) []*Chunk {
	t.Helper()
	var chunks []*Chunk
	for {
		c, err := src.Next()
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if c == nil {
			return chunks
		}
		chunks = append(chunks, c)
	}
}

// checkChunks checks that chunks hold exactly the lines of files, each
// ending in LF, numbered in its file and across the files.
func checkChunks(t *testing.T, chunks []*Chunk, files []file) {
	t.Helper()
	got := map[string]string{}
	lineInFile := map[string]int64{}
	ordinal := int64(1)
	for i, c := range chunks {
		if c.Seq != i {
			t.Fatalf("chunk %d has Seq %d", i, c.Seq)
		}
		if len(c.Data) == 0 || c.Data[len(c.Data)-1] != '\n' {
			t.Fatalf("chunk %d of %s does not end in LF: %q", i, c.File, clipped(c.Data))
		}
		if want := lineInFile[c.File] + 1; c.FirstLine != want {
			t.Fatalf("chunk %d of %s starts at line %d, want %d", i, c.File, c.FirstLine, want)
		}
		if c.FirstOrdinal != ordinal {
			t.Fatalf("chunk %d of %s starts at ordinal %d, want %d", i, c.File, c.FirstOrdinal, ordinal)
		}
		n := int64(bytes.Count(c.Data, []byte{'\n'}))
		lineInFile[c.File] += n
		ordinal += n
		got[c.File] += string(c.Data)
	}
	for _, f := range files {
		want := f.data
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if got[f.name] != want {
			t.Errorf("%s: chunks hold %q, want %q", f.name, clipped([]byte(got[f.name])), clipped([]byte(want)))
		}
	}
}

func clipped(b []byte) string {
	if len(b) > 60 {
		return string(b[:30]) + "…" + string(b[len(b)-30:])
	}
	return string(b)
}

func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", prefix, i)
	}
	return b.String()
}

func TestLinesChunks(t *testing.T) {
	long := strings.Repeat("x", ChunkSize+ChunkSize/2)
	inputs := []struct {
		name  string
		files []file
	}{
		{"one file", []file{{"a", numbered("a", 50)}}},
		{"no final LF", []file{{"a", "first\nsecond\nlast"}}},
		{"one line no LF", []file{{"a", "only"}}},
		{"CRLF", []file{{"a", "one\r\ntwo\r\nthree"}}},
		{"empty lines", []file{{"a", "\n\n\nx\n\n"}}},
		{"several files", []file{{"a", numbered("a", 7)}, {"b", "b1\nb2"}, {"c", numbered("c", 5)}}},
		{"empty files", []file{{"e1", ""}, {"a", "a1\n"}, {"e2", ""}, {"b", "b1\n"}, {"e3", ""}}},
		{"only empty", []file{{"e1", ""}, {"e2", ""}}},
		{"long line", []file{{"a", "short\n" + long + "\nafter\n"}, {"b", long}}},
	}
	for _, in := range inputs {
		for _, rd := range readers {
			if in.name == "long line" && rd.name == "one byte" {
				continue // slow, and "random" reads it in small pieces too
			}
			t.Run(in.name+"/"+rd.name, func(t *testing.T) {
				src := testLines(in.files, rd.wrap)
				defer src.Close()
				checkChunks(t, readChunks(t, src), in.files)
			})
		}
	}
}

// A chunk is passed on as soon as a read ends a line, and holds about
// ChunkSize bytes when the reads are large. (The first read returns what
// the input's buffer took in to find the magic bytes, 256 KiB.)
func TestLinesChunkSize(t *testing.T) {
	data := numbered("x", 400000) // about 5 MB
	src := testLines([]file{{"a", data}}, func(r io.Reader) io.Reader { return r })
	chunks := readChunks(t, src)
	for i, c := range chunks[1 : len(chunks)-1] {
		if len(c.Data) > ChunkSize || len(c.Data) < ChunkSize-100 {
			t.Errorf("chunk %d holds %d bytes, want about %d", i+1, len(c.Data), ChunkSize)
		}
	}
	src = testLines([]file{{"a", "1\n2\n3\n4\n5\n6\n"}}, iotest.OneByteReader)
	if chunks := readChunks(t, src); len(chunks) != 5 {
		t.Errorf("one-byte reads gave %d chunks, want 5: two lines with the magic bytes, then one a line", len(chunks))
	}
}

func TestLinesMaxLine(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		maxLine int
		wrap    func(io.Reader) io.Reader
		want    string // the error, or "" when it reads
	}{
		{"short lines", "a\nbb\nccc\n", 3, iotest.OneByteReader, ""},
		{"at the limit", "a\n" + strings.Repeat("x", 100) + "\nb\n", 100, iotest.OneByteReader, ""},
		{"over", "a\nb\n" + strings.Repeat("x", 101) + "\nc\n", 100, iotest.OneByteReader, "f:3: line exceeds 100 bytes"},
		{"over at the end", "a\n" + strings.Repeat("x", 101), 100, iotest.OneByteReader, "f:2: line exceeds 100 bytes"},
		// The long line's start comes with the line before it (the four
		// bytes read ahead to recognise compression), its end with a
		// later read.
		{"over in one read", "a\n" + strings.Repeat("x", 150) + "\nb\n", 100, func(r io.Reader) io.Reader { return &sizedReader{r: r, sizes: []int{4, 148}} }, "f:2: line exceeds 100 bytes"},
		{"longer than a buffer", numbered("a", 10) + strings.Repeat("x", 3*ChunkSize) + "\n", 1000, func(r io.Reader) io.Reader { return r }, "f:11: line exceeds 1000 bytes"},
		// The line starts in one buffer and ends in the next, twice as
		// large: it must not pass for being found whole.
		{"ends in the doubled buffer", "a\n" + strings.Repeat("x", ChunkSize+100) + "\nb\n", ChunkSize, func(r io.Reader) io.Reader { return r }, fmt.Sprintf("f:2: line exceeds %d bytes", ChunkSize)},
		{"one over, read whole", "a\n" + strings.Repeat("x", 2*ChunkSize+1) + "\n", 2 * ChunkSize, func(r io.Reader) io.Reader { return r }, fmt.Sprintf("f:2: line exceeds %d bytes", 2*ChunkSize)},
		{"at the limit, read whole", "a\n" + strings.Repeat("x", 2*ChunkSize) + "\nb\n", 2 * ChunkSize, func(r io.Reader) io.Reader { return r }, ""},
		{"at the limit at the end", "a\n" + strings.Repeat("x", 100), 100, func(r io.Reader) io.Reader { return r }, ""},
		{"one over after a line", "a\n" + strings.Repeat("x", 99) + "\n" + strings.Repeat("y", 101) + "\n", 100, func(r io.Reader) io.Reader { return r }, "f:3: line exceeds 100 bytes"},
	}
	defer func(n int) { hugeLine = n }(hugeLine)
	for _, huge := range []int{hugeLine, 64} {
		hugeLine = huge // with 64, a long line's start is held in blocks
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/blocks of %d", tt.name, huge), func(t *testing.T) {
				testMaxLine(t, tt.data, tt.maxLine, tt.wrap, tt.want)
			})
		}
	}
}

// testMaxLine reads data with a line limit and checks the error, or that
// the chunks hold data whole.
func testMaxLine(t *testing.T, data string, maxLine int, wrap func(io.Reader) io.Reader, want string) {
	t.Helper()
	src := testLines([]file{{"f", data}}, wrap)
	src.MaxLine = maxLine
	var got strings.Builder
	var err error
	for {
		var c *Chunk
		if c, err = src.Next(); c == nil || err != nil {
			break
		}
		got.Write(c.Data)
	}
	if want == "" {
		if err != nil {
			t.Errorf("error %v", err)
		}
		if !strings.HasSuffix(data, "\n") {
			data += "\n"
		}
		if got.String() != data {
			t.Errorf("read %d bytes, not the %d of the input", got.Len(), len(data))
		}
		return
	}
	if _, ok := err.(*record.Error); !ok || err.Error() != want {
		t.Errorf("error %v (%T), want *record.Error %q", err, err, want)
	}
}

// askReader records the largest read asked of it.
type askReader struct {
	r       io.Reader
	largest int
}

func (a *askReader) Read(p []byte) (int, error) {
	a.largest = max(a.largest, len(p))
	return a.r.Read(p)
}

// TestLinesMaxLineMemory checks that refusing a long line holds about the
// limit, not the doubled buffers beyond it: no read asks for more than a
// line and its newline.
func TestLinesMaxLineMemory(t *testing.T) {
	const maxLine = 3 * ChunkSize
	defer func(n int) { hugeLine = n }(hugeLine)
	for _, n := range []int{maxLine, 8 * ChunkSize, -maxLine, -8 * ChunkSize} {
		hugeLine = 64 << 20
		if n < 0 {
			n, hugeLine = -n, ChunkSize // held in blocks
		}
		var ask *askReader
		src := testLines([]file{{"f", "a\n" + strings.Repeat("x", n) + "\n"}}, func(r io.Reader) io.Reader {
			ask = &askReader{r: r}
			return ask
		})
		src.MaxLine = maxLine
		var err error
		for {
			var c *Chunk
			if c, err = src.Next(); c == nil || err != nil {
				break
			}
			c.Release()
		}
		if (err != nil) != (n > maxLine) {
			t.Errorf("line of %d bytes: error %v", n, err)
		}
		if ask.largest > maxLine+1 {
			t.Errorf("line of %d bytes: a read asked for %d bytes, more than the limit %d and a newline", n, ask.largest, maxLine)
		}
	}
}

func TestLinesErrors(t *testing.T) {
	src := testLines([]file{{"a", "a1\n"}}, iotest.TimeoutReader)
	if _, err := src.Next(); err == nil || !strings.HasPrefix(err.Error(), "a: ") || !strings.Contains(err.Error(), iotest.ErrTimeout.Error()) {
		t.Errorf("read error = %v, want one naming the file", err)
	}
	src = testLines([]file{{"a", "a1\n"}}, func(r io.Reader) io.Reader { return r })
	src.names = append(src.names, "missing")
	if c, err := src.Next(); err != nil || c == nil {
		t.Fatalf("first chunk: %v", err)
	}
	if _, err := src.Next(); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing second file: error %v", err)
	}
}

func TestLinesPeek(t *testing.T) {
	files := []file{
		{"h", "#neardup stage=shingle k=9\r\n"},
		{"a", "#neardup stage=shingle k=9\n#neardup stage=sketch n=4\nrec1\nrec2\n#neardup stage=x\nrec3"},
	}
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			src := testLines(files, rd.wrap)
			headers, first, err := src.Peek()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range headers {
				got = append(got, h.Pos.String()+" "+h.Header.String())
			}
			want := []string{
				"h:1 #neardup stage=shingle k=9",
				"a:1 #neardup stage=shingle k=9",
				"a:2 #neardup stage=sketch n=4",
			}
			if strings.Join(got, "|") != strings.Join(want, "|") || string(first) != "rec1" {
				t.Errorf("Peek() = %q, %q; want %q, rec1", got, first, want)
			}
			// Peeking again changes nothing, and Next gives every chunk.
			if headers2, first2, err := src.Peek(); err != nil || len(headers2) != 3 || string(first2) != "rec1" {
				t.Errorf("second Peek() = %d headers, %q, %v", len(headers2), first2, err)
			}
			checkChunks(t, readChunks(t, src), files)
		})
	}
}

func TestLinesPeekNoRecords(t *testing.T) {
	src := testLines([]file{{"a", "#neardup stage=a\n"}, {"b", ""}}, iotest.OneByteReader)
	headers, first, err := src.Peek()
	if err != nil || len(headers) != 1 || first != nil {
		t.Errorf("Peek() = %v, %q, %v; want one header, no line", headers, first, err)
	}
	src = testLines([]file{{"a", "#neardup stage=a\n#neardup k=1\nx\n"}}, iotest.OneByteReader)
	if _, _, err := src.Peek(); err == nil || err.Error() != "a:2: header has no stage=" {
		t.Errorf("Peek() of a bad header: %v", err)
	}
	src = testLines([]file{{"a", "\nx\n"}}, iotest.OneByteReader)
	if _, first, err := src.Peek(); err != nil || first == nil || len(first) != 0 {
		t.Errorf("Peek() of an empty first line = %q, %v", first, err)
	}
}

func TestLinesRealFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.tsv")
	b := filepath.Join(dir, "b.tsv")
	os.WriteFile(a, []byte("a1\na2\n"), 0o644)
	os.WriteFile(b, []byte("b1"), 0o644)
	src := NewLines([]string{a, b})
	if done, total := src.Progress(); done != 0 || total != 8 {
		t.Errorf("Progress() before reading = %d, %d; want 0, 8", done, total)
	}
	checkChunks(t, readChunks(t, src), []file{{a, "a1\na2\n"}, {b, "b1"}})
	if done, total := src.Progress(); done != 8 || total != 8 {
		t.Errorf("Progress() after reading = %d, %d; want 8, 8", done, total)
	}
	if err := src.Close(); err != nil {
		t.Error(err)
	}
	if total := TotalSize([]string{a, dir}); total != -1 {
		t.Errorf("TotalSize with a directory = %d, want -1", total)
	}
}

// A chunk of a regular file says which input it is of and where its lines
// start in it, chunk after chunk; one of a compressed file has no byte
// offsets (-1).
func TestLinesOffsets(t *testing.T) {
	dir := t.TempDir()
	a, b, gz := filepath.Join(dir, "a.tsv"), filepath.Join(dir, "b.tsv"), filepath.Join(dir, "c.tsv.gz")
	dataA := numbered("a", 400000) // about 5 MB: several chunks
	os.WriteFile(a, []byte(dataA), 0o644)
	os.WriteFile(b, []byte("b1\nb2"), 0o644)
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write([]byte("c1\nc2\n"))
	w.Close()
	os.WriteFile(gz, z.Bytes(), 0o644)
	files := map[string]struct {
		input int
		data  string
	}{a: {1, dataA}, b: {2, "b1\nb2\n"}, gz: {3, ""}}
	next := map[string]int64{}
	src := NewLines([]string{a, b, gz})
	defer src.Close()
	chunks := readChunks(t, src)
	if len(chunks) < 4 {
		t.Fatalf("%d chunks, want several of a.tsv", len(chunks))
	}
	for _, c := range chunks {
		f := files[c.File]
		if c.Input != f.input {
			t.Errorf("%s: Input %d, want %d", c.File, c.Input, f.input)
		}
		if c.File == gz {
			if c.Offset != -1 {
				t.Errorf("%s: Offset %d, want -1 (compressed)", c.File, c.Offset)
			}
			continue
		}
		if c.Offset != next[c.File] || f.data[c.Offset:c.Offset+int64(len(c.Data))] != string(c.Data) {
			t.Errorf("%s: Offset %d (the last chunk ended at %d): not where its %d bytes are", c.File, c.Offset, next[c.File], len(c.Data))
		}
		next[c.File] = c.Offset + int64(len(c.Data))
	}
}

// FuzzLastNewline: lastNewline is bytes.LastIndexByte(b, '\n'), on bytes
// next to a newline in value (0x0a ± 1, 0x8a, 0xff: a carry or a borrow from
// one byte to the next would take them for one) too.
func FuzzLastNewline(f *testing.F) {
	f.Add([]byte("a\nbc\n\x0b\x09\x8a\xffdefghijklmnop"))
	f.Add([]byte("\n\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b"))
	f.Add([]byte("no newline at all, but more than eight bytes"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := lastNewline(b), bytes.LastIndexByte(b, '\n'); got != want {
			t.Fatalf("lastNewline(%q) = %d, want %d", b, got, want)
		}
	})
}

// TestLastNewline: every place of the last newline, in texts of the bytes
// next to it in value.
func TestLastNewline(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	near := []byte{'\n', 0x0b, 0x09, 0x8a, 0xff, 0x00, 0x01, 'a'}
	for n := range 40 {
		for range 200 {
			b := make([]byte, n)
			for i := range b {
				b[i] = near[1+r.IntN(len(near)-1)]
				if r.IntN(8) == 0 {
					b[i] = '\n'
				}
			}
			if got, want := lastNewline(b), bytes.LastIndexByte(b, '\n'); got != want {
				t.Fatalf("lastNewline(%q) = %d, want %d", b, got, want)
			}
		}
	}
}
