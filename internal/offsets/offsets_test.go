package offsets

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// docLine is a document line of a test input, and where it is: what its
// offsets record must say.
type docLine struct {
	id   string
	text []byte // the line without its line end ('\r' stripped)
	p    Place
}

// linesOf returns the document lines of inputs, numbered as stream.Lines
// numbers them: lines restart in each input, ordinals go on across them.
// The inputs have no empty lines and no header lines.
func linesOf(t *testing.T, datas ...[]byte) []docLine {
	t.Helper()
	var out []docLine
	ordinal := int64(1)
	for i, data := range datas {
		line, off := int64(1), int64(0)
		for off < int64(len(data)) {
			end := off + int64(bytes.IndexByte(data[off:], '\n'))
			next := end + 1
			if end < off { // the last line, with no line end
				end, next = int64(len(data)), int64(len(data))
			}
			text := data[off:end]
			text = bytes.TrimSuffix(text, []byte{'\r'})
			if len(text) == 0 {
				t.Fatalf("input %d line %d: empty", i+1, line)
			}
			id, _, _ := bytes.Cut(text, []byte{'\t'})
			out = append(out, docLine{id: string(id), text: text, p: Place{
				Input: i + 1, Line: line, Ordinal: ordinal,
				Offset: off, Length: int64(len(text)), Digest: Digest(text)}})
			line++
			ordinal++
			off = next
		}
	}
	return out
}

// appendAll reads paths through stream.Lines, as shingle does, and returns
// the offsets records Append makes of their lines (the id is the first
// field), and the number of chunks of each input that start past its
// first byte.
func appendAll(t *testing.T, paths []string) ([]byte, map[int]int) {
	t.Helper()
	src := stream.NewLines(paths)
	defer src.Close()
	var out []byte
	later := map[int]int{}
	for {
		c, err := src.Next()
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			return out, later
		}
		if c.Offset > 0 {
			later[c.Input]++
		}
		var r stream.Result
		c.Lines(&r, false, func(line []byte, ordinal int64) error {
			id, _, _ := bytes.Cut(line, []byte{'\t'})
			out, err = Append(out, id, c, line, ordinal)
			return err
		})
		c.Release()
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
}

// writeFile writes data to a new file name in dir and returns its path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// text returns n bytes of text that tell line i from others at both ends
// and in the middle.
func text(i, n int) string {
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, "w%d.%d ", i, b.Len())
	}
	return b.String()[:n]
}

// bigInput returns an input of more than size bytes, of lines of many
// lengths (some over the 64 bytes a digest covers whole), some of them
// ending in CRLF, and "a\tb\r\n" among them.
func bigInput(prefix string, size int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() <= size; i++ {
		fmt.Fprintf(&b, "%s%d\t%s", prefix, i, text(i, i*37%300))
		if i%1000 == 999 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
		if i == 5000 {
			b.WriteString("a\tb\r\n")
		}
	}
	return b.Bytes()
}

// Append's records, parsed back, give each line's input, line number,
// ordinal, byte offset, length without the line end (and its '\r') and
// digest, over inputs that stream.Lines cuts into several chunks, a CRLF
// line and a last line with no line end.
func TestAppendParseRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a := bigInput("d", 5<<19)
	b := []byte("x1\tshort\na\tb\r\n" + "long\t" + text(7, 200) + "\nz\tend")
	paths := []string{writeFile(t, dir, "a.tsv", a), writeFile(t, dir, "b.tsv", b)}
	want := linesOf(t, a, b)

	recs, later := appendAll(t, paths)
	if later[1] < 2 {
		t.Fatalf("input 1 came in %d chunks past its start, want several: the test does not reach Chunk.Offset", later[1])
	}
	lines := bytes.Split(bytes.TrimSuffix(recs, []byte{'\n'}), []byte{'\n'})
	if len(lines) != len(want) {
		t.Fatalf("%d records, want %d", len(lines), len(want))
	}
	for i, line := range lines {
		id, p, err := Parse(line)
		if err != nil {
			t.Fatalf("record %d %q: %v", i+1, line, err)
		}
		w := want[i]
		if string(id) != w.id || p != w.p {
			t.Fatalf("record %d %q: id %q, %+v; want %q, %+v", i+1, line, id, p, w.id, w.p)
		}
		// And the place is the line's bytes indeed.
		data := [][]byte{a, b}[p.Input-1]
		if got := data[p.Offset : p.Offset+p.Length]; !bytes.Equal(got, w.text) {
			t.Fatalf("record %d: bytes %q at its place, want %q", i+1, got, w.text)
		}
	}
	// The special lines are among them, as they should be.
	last := want[len(want)-1]
	if last.id != "z" || last.p != (Place{Input: 2, Line: 4, Ordinal: want[len(want)-5].p.Ordinal + 4, Offset: int64(len(b) - 5), Length: 5, Digest: xxhash.Sum64String("z\tend")}) {
		t.Errorf("last record %+v", last)
	}
	crlf := want[len(want)-3]
	if crlf.id != "a" || crlf.p.Offset != 9 || crlf.p.Length != 3 || crlf.p.Line != 2 || crlf.p.Digest != xxhash.Sum64String("a\tb") {
		t.Errorf("CRLF record %+v", crlf)
	}
}

// Append refuses the lines of a compressed input: they have no byte
// offsets.
func TestAppendCompressed(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("d1\tone\nd2\ttwo\n"))
	zw.Close()
	path := writeFile(t, t.TempDir(), "docs.tsv.gz", z.Bytes())
	src := stream.NewLines([]string{path})
	defer src.Close()
	c, err := src.Next()
	if err != nil || c == nil {
		t.Fatalf("Next: %v, %v", c, err)
	}
	defer c.Release()
	if c.Offset != -1 {
		t.Fatalf("chunk of a gzip input: Offset %d, want -1", c.Offset)
	}
	calls := 0
	var r stream.Result
	c.Lines(&r, false, func(line []byte, ordinal int64) error {
		calls++
		dst, err := Append([]byte("kept"), []byte("d1"), c, line, ordinal)
		if err == nil || !strings.Contains(err.Error(), "compressed") || !strings.Contains(err.Error(), path) {
			t.Errorf("Append: error %v, want one saying %s is compressed", err, path)
		}
		if string(dst) != "kept" {
			t.Errorf("Append after an error: dst %q, want it as it was", dst)
		}
		return nil
	})
	if calls != 2 {
		t.Fatalf("%d lines, want 2", calls)
	}
}

// Parse reads a well-formed record, and refuses malformed ones: fields
// missing, fields that are not numbers or out of range, a digest that is
// not 16 hex digits.
func TestParse(t *testing.T) {
	id, p, err := Parse([]byte("doc 1\t2\t3\t4\t0\t0\t0123456789abcdef"))
	if want := (Place{Input: 2, Line: 3, Ordinal: 4, Offset: 0, Length: 0, Digest: 0x0123456789abcdef}); err != nil || string(id) != "doc 1" || p != want {
		t.Fatalf("Parse: %q, %+v, %v; want %q, %+v", id, p, err, "doc 1", want)
	}
	for _, tc := range []struct{ name, line string }{
		{"empty", ""},
		{"id only", "d1"},
		{"empty id", "\t1\t1\t1\t0\t1\t0123456789abcdef"},
		{"no line", "d1\t1"},
		{"no ordinal", "d1\t1\t1"},
		{"no offset", "d1\t1\t1\t1"},
		{"no length", "d1\t1\t1\t1\t0"},
		{"no digest", "d1\t1\t1\t1\t0\t1"},
		{"no length, digest in its place", "d1\t1\t1\t1\t0\t0123456789abcdef"},
		{"empty digest", "d1\t1\t1\t1\t0\t1\t"},
		{"input not a number", "d1\tx\t1\t1\t0\t1\t0123456789abcdef"},
		{"line not a number", "d1\t1\t1.5\t1\t0\t1\t0123456789abcdef"},
		{"ordinal empty", "d1\t1\t1\t\t0\t1\t0123456789abcdef"},
		{"offset in hex", "d1\t1\t1\t1\t0x10\t1\t0123456789abcdef"},
		{"length not a number", "d1\t1\t1\t1\t0\tabc\t0123456789abcdef"},
		{"length overflows", "d1\t1\t1\t1\t0\t9223372036854775808\t0123456789abcdef"},
		{"input 0", "d1\t0\t1\t1\t0\t1\t0123456789abcdef"},
		{"line 0", "d1\t1\t0\t1\t0\t1\t0123456789abcdef"},
		{"ordinal 0", "d1\t1\t1\t0\t0\t1\t0123456789abcdef"},
		{"input negative", "d1\t-1\t1\t1\t0\t1\t0123456789abcdef"},
		{"offset negative", "d1\t1\t1\t1\t-1\t1\t0123456789abcdef"},
		{"length negative", "d1\t1\t1\t1\t0\t-1\t0123456789abcdef"},
		{"input too large", "d1\t1073741825\t1\t1\t0\t1\t0123456789abcdef"},
		{"past any file", "d1\t1\t1\t1\t4611686018427387904\t1\t0123456789abcdef"},
		{"digest of 15 digits", "d1\t1\t1\t1\t0\t1\t0123456789abcde"},
		{"digest of 17 digits", "d1\t1\t1\t1\t0\t1\t0123456789abcdef0"},
		{"digest not hex", "d1\t1\t1\t1\t0\t1\t0123456789abcdeg"},
		{"digest with a sign", "d1\t1\t1\t1\t0\t1\t+123456789abcdef"},
		{"a field more", "d1\t1\t1\t1\t0\t1\t0123456789abcdef\tx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, p, err := Parse([]byte(tc.line))
			if err == nil {
				t.Fatalf("Parse(%q) = %q, %+v; want an error", tc.line, id, p)
			}
			if _, ok := err.(*record.LineError); !ok {
				t.Errorf("Parse(%q): error %T %v, want a *record.LineError (a bad line)", tc.line, err, err)
			}
			// A field missing is named.
			if strings.HasPrefix(tc.name, "no ") && !strings.Contains(tc.name, ",") && !strings.HasSuffix(err.Error(), tc.name) {
				t.Errorf("Parse(%q): %v; want it to end in %q", tc.line, err, tc.name)
			}
		})
	}
	// The largest values accepted.
	if _, p, err := Parse([]byte("d\t1073741824\t9223372036854775807\t9223372036854775807\t4611686018427387903\t1\tffffffffffffffff")); err != nil ||
		p != (Place{Input: 1 << 30, Line: 1<<63 - 1, Ordinal: 1<<63 - 1, Offset: 1<<62 - 1, Length: 1, Digest: 1<<64 - 1}) {
		t.Errorf("Parse of the largest values: %+v, %v", p, err)
	}
}

// Digest is the XXH64 of a line of up to 64 bytes, and of the first 32
// and last 32 bytes of a longer one: a change in between keeps it, one at
// either end changes it.
func TestDigest(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 33, 63, 64} {
		line := []byte(text(n, n))
		if got, want := Digest(line), xxhash.Sum64(line); got != want {
			t.Errorf("Digest of %d bytes = %016x, want its XXH64 %016x", n, got, want)
		}
	}
	for _, n := range []int{65, 66, 100, 1000} {
		line := []byte(text(n, n))
		ends := append(append([]byte{}, line[:32]...), line[n-32:]...)
		d := Digest(line)
		if want := xxhash.Sum64(ends); d != want {
			t.Errorf("Digest of %d bytes = %016x, want the XXH64 of its ends %016x", n, d, want)
		}
		if d == xxhash.Sum64(line) {
			t.Errorf("Digest of %d bytes is the XXH64 of the whole line", n)
		}
		for i := 32; i < n-32; i++ {
			changed := bytes.Clone(line)
			changed[i] ^= 0x20
			if Digest(changed) != d {
				t.Fatalf("Digest of %d bytes changed with byte %d, in the middle", n, i)
			}
		}
		for _, i := range []int{0, 31, n - 32, n - 1} {
			changed := bytes.Clone(line)
			changed[i] ^= 0x20
			if Digest(changed) == d {
				t.Errorf("Digest of %d bytes kept with byte %d changed, at an end", n, i)
			}
		}
	}
}

// corpus writes two inputs of documents "idN TAB text" (N counted across
// both), with lines from a few bytes to over 16 KiB (the gap Source reads
// across; more than a chunk of them), CRLF lines, and a last line with no line end, and returns their
// paths and lines.
func corpus(t *testing.T, dir string) ([]string, []docLine) {
	t.Helper()
	var a, b bytes.Buffer
	n := 0
	for ; n < 700; n++ {
		size := n * n * 31 % 400
		if n%13 == 0 {
			size = 25000 + n
		}
		fmt.Fprintf(&a, "id%d\t%s", n, text(n, size))
		if n%10 == 3 {
			a.WriteByte('\r')
		}
		a.WriteByte('\n')
	}
	for ; n < 760; n++ {
		if n > 700 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "id%d\t%s", n, text(n, n%90))
	}
	paths := []string{writeFile(t, dir, "a.tsv", a.Bytes()), writeFile(t, dir, "b.tsv", b.Bytes())}
	return paths, linesOf(t, a.Bytes(), b.Bytes())
}

// writeOffsets writes the offsets file of paths as shingle does: its
// header, then the records of their lines.
func writeOffsets(t *testing.T, dir string, paths []string) string {
	t.Helper()
	recs, _ := appendAll(t, paths)
	return writeFile(t, dir, "offsets", append([]byte(Header(sizesOf(t, paths)).String()+"\n"), recs...))
}

// idNumber is the N of the id "idN".
func idNumber(id []byte) int {
	var n int
	if _, err := fmt.Sscanf(string(id), "id%d", &n); err != nil {
		return -1
	}
	return n
}

// readAll reads src to its end and checks each chunk: its lines, their
// places, and what Chunk.Lines gives of them, against want in order.
func readAll(t *testing.T, src stream.Source, paths []string, want []docLine) (chunks int) {
	t.Helper()
	k := 0 // of want, the next line
	var all, wantAll []byte
	for _, w := range want {
		wantAll = append(append(wantAll, w.text...), '\n')
	}
	for {
		c, err := src.Next()
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if c == nil {
			break
		}
		if c.Seq != chunks {
			t.Errorf("chunk %d: Seq %d", chunks, c.Seq)
		}
		chunks++
		all = append(all, c.Data...)
		n := bytes.Count(c.Data, []byte{'\n'})
		if n == 0 || k+n > len(want) || len(c.Places) != n {
			t.Fatalf("chunk %d: %d lines, %d places; %d lines of %d read before", c.Seq, n, len(c.Places), k, len(want))
		}
		first := want[k].p
		if c.Input != first.Input || c.File != paths[first.Input-1] || c.Format != input.FormatTSV || c.Offset != -1 ||
			c.FirstLine != first.Line || c.FirstOrdinal != first.Ordinal {
			t.Errorf("chunk %d: input %d, file %s, format %q, offset %d, first line %d, ordinal %d; want %d, %s, %q, -1, %d, %d",
				c.Seq, c.Input, c.File, c.Format, c.Offset, c.FirstLine, c.FirstOrdinal,
				first.Input, paths[first.Input-1], input.FormatTSV, first.Line, first.Ordinal)
		}
		for i, pl := range c.Places {
			if w := want[k+i].p; pl != (stream.LinePlace{Line: w.Line, Ordinal: w.Ordinal}) || w.Input != first.Input {
				t.Fatalf("chunk %d place %d: %+v, want line %d ordinal %d of input %d (chunk of input %d)", c.Seq, i, pl, w.Line, w.Ordinal, w.Input, first.Input)
			}
		}
		var r stream.Result
		j := k
		c.Lines(&r, false, func(line []byte, ordinal int64) error {
			if j >= k+n {
				t.Fatalf("chunk %d: Chunk.Lines gave more than its %d lines", c.Seq, n)
			}
			if w := want[j]; !bytes.Equal(line, w.text) || ordinal != w.p.Ordinal {
				t.Fatalf("chunk %d: Chunk.Lines gave %.40q, ordinal %d; want %.40q, %d", c.Seq, line, ordinal, w.text, w.p.Ordinal)
			}
			j++
			return nil
		})
		if r.Err != nil || j != k+n || r.Start != (record.Pos{File: c.File, Line: first.Line}) {
			t.Fatalf("chunk %d: Chunk.Lines: %v, %d lines, start %v", c.Seq, r.Err, j-k, r.Start)
		}
		k += n
		c.Release()
	}
	if !bytes.Equal(all, wantAll) {
		t.Fatalf("read %d bytes, want %d: the wanted lines, in order", len(all), len(wantAll))
	}
	var total int64
	for _, w := range want {
		total += w.p.Length
	}
	if done, tot := src.Progress(); done != total || tot != total {
		t.Errorf("Progress: %d of %d, want %d of %d", done, tot, total, total)
	}
	if c, err := src.Next(); c != nil || err != nil {
		t.Errorf("Next after the end: %v, %v", c, err)
	}
	return chunks
}

// Load keeps the places of the documents wanted, and Source reads exactly
// their lines, in file order, with their line numbers and ordinals, from
// an offsets file as shingle writes it.
func TestLoadSource(t *testing.T) {
	dir := t.TempDir()
	paths, lines := corpus(t, dir)
	name := writeOffsets(t, dir, paths)
	for _, tc := range []struct {
		name   string
		want   func(n int) bool
		chunks int // at least
	}{
		{"every 7th", func(n int) bool { return n%7 == 0 }, 2},
		{"long ones", func(n int) bool { return n%13 == 0 }, 2},
		{"all", func(n int) bool { return true }, 3},
		{"the last", func(n int) bool { return n == 759 }, 1},
		{"none", func(n int) bool { return false }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, err := Load(name, func(id []byte) bool { return tc.want(idNumber(id)) })
			if err != nil {
				t.Fatal(err)
			}
			var want []docLine
			for _, l := range lines {
				if tc.want(idNumber([]byte(l.id))) {
					want = append(want, l)
				}
			}
			if ix.Len() != len(want) || len(ix.Headers) != 1 || ix.Headers[0].Header.Stage != Stage || ix.Name != name {
				t.Fatalf("Load: %d places, headers %v; want %d, the offsets header", ix.Len(), ix.Headers, len(want))
			}
			src, err := ix.Source(paths, input.Reading{})
			if err != nil {
				t.Fatal(err)
			}
			if n := readAll(t, src, paths, want); n < tc.chunks {
				t.Errorf("%d chunks, want at least %d", n, tc.chunks)
			}
			if err := src.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if c, err := src.Next(); c != nil || err != nil {
				t.Errorf("Next after Close: %v, %v", c, err)
			}
		})
	}
	// Close ends the reading halfway too.
	ix, err := Load(name, func([]byte) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	src, err := ix.Source(paths, input.Reading{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := src.Next()
	if c == nil || err != nil {
		t.Fatalf("Next: %v, %v", c, err)
	}
	c.Release()
	if err := src.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if c, err := src.Next(); c != nil || err != nil {
		t.Errorf("Next after Close, halfway: %v, %v", c, err)
	}
}

// Writer writes the offsets file under the upstream headers, which Load
// reads back; Abort leaves no file.
func TestWriter(t *testing.T) {
	dir := t.TempDir()
	paths, lines := corpus(t, dir)
	recs, _ := appendAll(t, paths)
	name := filepath.Join(dir, "offsets")
	up := record.NewHeader("shingle", "k", "5")

	w, err := Create(name+".aborted", paths, input.Reading{}, up)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(recs)
	w.Abort()
	if _, err := os.Stat(name + ".aborted"); !os.IsNotExist(err) {
		t.Errorf("after Abort: %v, want no file", err)
	}

	if w, err = Create(name, paths, input.Reading{}, up); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(recs); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	head := up.String() + "\n" + Header(sizesOf(t, paths)).String() + "\n"
	if !bytes.Equal(got, append([]byte(head), recs...)) {
		t.Fatalf("file starts %.200q, want %q and the records", got, head)
	}
	ix, err := Load(name, func([]byte) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != len(lines) || len(ix.Headers) != 2 || ix.Headers[0].Header.Stage != "shingle" || ix.Headers[1].Header.Stage != Stage {
		t.Fatalf("Load: %d places, headers %v", ix.Len(), ix.Headers)
	}
}

// sizesOf returns the sizes of the named files.
func sizesOf(t *testing.T, paths []string) []int64 {
	t.Helper()
	sizes := make([]int64, len(paths))
	for i, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sizes[i] = st.Size()
	}
	return sizes
}

// Usable gives the size of a plain file of lines, and -1 and why for what
// has no offsets: compressed, a directory, standard input, a format read
// as records or as files.
func TestUsable(t *testing.T) {
	dir := t.TempDir()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("a\tone two\n"))
	zw.Close()
	plain := writeFile(t, dir, "a.tsv", []byte("a\tone two\n"))
	gz := writeFile(t, dir, "a.tsv.gz", z.Bytes())
	zw2, _ := zstd.NewWriter(nil)
	zst := writeFile(t, dir, "a.tsv.zst", zw2.EncodeAll([]byte("a\tone two\n"), nil))
	warc := writeFile(t, dir, "a.warc", []byte("WARC/1.0\r\n"))
	tiny := writeFile(t, dir, "b.tsv", []byte("\x1f"))
	for _, tc := range []struct {
		name, format string
		size         int64
		why          string
	}{
		{plain, input.FormatAuto, 10, ""},
		{gz, input.FormatAuto, -1, "gzip-compressed"},
		{zst, input.FormatTSV, -1, "zstd-compressed"},
		{tiny, input.FormatAuto, 1, ""},
		{warc, input.FormatAuto, -1, "read as warc, not as lines"},
		{dir, input.FormatAuto, -1, "not a regular file"},
		{"-", input.FormatAuto, -1, "standard input"},
		{plain, input.FormatFiles, -1, "read as files, not as lines"},
	} {
		u, err := Usable(tc.name, input.Reading{Format: tc.format})
		if err != nil || u.Size != tc.size || u.Why != tc.why {
			t.Errorf("Usable(%s, %q) = %+v, %v; want size %d, why %q", tc.name, tc.format, u, err, tc.size, tc.why)
		}
	}
	if _, err := Usable(filepath.Join(dir, "missing"), input.Reading{}); err == nil {
		t.Errorf("Usable of a missing file: no error")
	}
	if h := Header([]int64{5, 0, -1}).String(); h != "#neardup stage=offsets sizes=5,0,-1" {
		t.Errorf("Header = %q", h)
	}

	// Create gives those -1 in the header and says which they are; Whole
	// names them to verify, which then reads every document.
	name := filepath.Join(dir, "offsets")
	w, err := Create(name, []string{plain, gz}, input.Reading{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Has, []bool{true, false}) || !slices.Equal(w.Without, []string{gz + " (gzip-compressed)"}) {
		t.Errorf("Create: Has %v, Without %q", w.Has, w.Without)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	ix, err := Load(name, func([]byte) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if whole, err := ix.Whole([]string{plain, gz}); err != nil || !slices.Equal(whole, []string{gz}) {
		t.Errorf("Whole = %q, %v; want [%s]", whole, err, gz)
	}
	if _, err := ix.Whole([]string{plain}); err == nil {
		t.Errorf("Whole of one input for two: no error")
	}
}

// Source refuses inputs that are not those shingle read: another size,
// another number of them, compressed, or not read as lines; and Next a
// line that changed since, at either of its ends or its line ends, naming
// its file and line. A change elsewhere goes through.
func TestSourceRefuses(t *testing.T) {
	dir := t.TempDir()
	paths, lines := corpus(t, dir)
	name := writeOffsets(t, dir, paths)
	orig, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	every7 := func(id []byte) bool { return idNumber(id)%7 == 0 }
	load := func(t *testing.T) *Index {
		t.Helper()
		ix, err := Load(name, every7)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	var want []docLine
	for _, l := range lines {
		if every7([]byte(l.id)) {
			want = append(want, l)
		}
	}

	t.Run("other size", func(t *testing.T) {
		defer os.WriteFile(paths[0], orig, 0o644)
		os.WriteFile(paths[0], append(bytes.Clone(orig), 'x'), 0o644)
		src, err := load(t).Source(paths, input.Reading{})
		if err == nil {
			src.Close()
			t.Fatal("Source of an input grown by a byte: no error")
		}
		if msg := err.Error(); !strings.Contains(msg, paths[0]) || !strings.Contains(msg, fmt.Sprint(len(orig))) {
			t.Errorf("error %q: want it to name %s and its size %d", msg, paths[0], len(orig))
		}
	})
	t.Run("other number", func(t *testing.T) {
		for _, ps := range [][]string{paths[:1], append(paths[:2:2], paths[1])} {
			if src, err := load(t).Source(ps, input.Reading{}); err == nil {
				src.Close()
				t.Errorf("Source of %d inputs for 2: no error", len(ps))
			}
		}
	})
	t.Run("inputs swapped", func(t *testing.T) {
		if src, err := load(t).Source([]string{paths[1], paths[0]}, input.Reading{}); err == nil {
			src.Close()
			t.Errorf("Source of the inputs in another order: no error")
		}
	})
	t.Run("compressed", func(t *testing.T) {
		// Of the size the header says: only its compression is wrong.
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(orig)
		zw.Close()
		dir := t.TempDir()
		gz := writeFile(t, dir, "a.tsv.gz", z.Bytes())
		offs := writeFile(t, dir, "offsets", []byte(Header([]int64{int64(z.Len())}).String()+"\nid0\t1\t1\t1\t0\t5\t0123456789abcdef\n"))
		ix, err := Load(offs, func([]byte) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		src, err := ix.Source([]string{gz}, input.Reading{})
		if err == nil {
			src.Close()
			t.Fatal("Source of a gzip input: no error")
		}
		if !strings.Contains(err.Error(), "compressed") || !strings.Contains(err.Error(), gz) {
			t.Errorf("error %q: want it to say %s is compressed", err, gz)
		}
	})
	t.Run("not lines", func(t *testing.T) {
		if src, err := load(t).Source(paths, input.Reading{Format: input.FormatFiles}); err == nil {
			src.Close()
			t.Errorf("Source of --format files: no error")
		}
	})

	// A wanted line whose neighbours are not wanted, long enough that its
	// ends are apart.
	for in, path := range paths {
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// A wanted line whose neighbours are there and not wanted, long
		// enough that its ends are apart; in input 2 its line number is
		// not its ordinal.
		var target, before docLine
		for i, l := range lines[:len(lines)-1] {
			if every7([]byte(l.id)) && l.p.Input == in+1 && l.p.Line > 10 && l.p.Length > 40 {
				target, before = l, lines[i-1]
				break
			}
		}
		if target.p.Input != in+1 || target.p.Line == target.p.Ordinal && in > 0 {
			t.Fatalf("input %d: no line to change", in+1)
		}
		off, end := target.p.Offset, target.p.Offset+target.p.Length
		for _, tc := range []struct {
			name string
			at   int64 // the byte changed
			to   byte
			ok   bool // the change is not in a wanted line
		}{
			{"first byte", off, 'j', false},
			{"last byte", end - 1, '#', false},
			{"line end before", off - 1, ' ', false},
			{"line end after", end, ' ', false},
			{"a line not wanted", before.p.Offset + 1, '#', true},
		} {
			t.Run(fmt.Sprintf("input %d %s", in+1, tc.name), func(t *testing.T) {
				defer os.WriteFile(path, orig, 0o644)
				changed := bytes.Clone(orig)
				if changed[tc.at] == tc.to {
					t.Fatalf("byte %d is %q already", tc.at, tc.to)
				}
				changed[tc.at] = tc.to
				os.WriteFile(path, changed, 0o644)
				src, err := load(t).Source(paths, input.Reading{})
				if err != nil {
					t.Fatalf("Source of an input of the same size: %v", err)
				}
				defer src.Close()
				if tc.ok {
					readAll(t, src, paths, want)
					return
				}
				for {
					c, err := src.Next()
					if err != nil {
						msg := err.Error()
						if pos := fmt.Sprintf("%s:%d:", path, target.p.Line); !strings.Contains(msg, "changed since shingle read them") || !strings.HasPrefix(msg, pos) {
							t.Errorf("error %q: want one at %s saying the documents changed", msg, pos)
						}
						return
					}
					if c == nil {
						t.Fatalf("byte %d of line %d changed: read to the end without an error", tc.at, target.p.Line)
					}
					c.Release()
				}
			})
		}
	}
	t.Run("shifted", func(t *testing.T) {
		defer os.WriteFile(paths[0], orig, 0o644)
		os.WriteFile(paths[0], append(bytes.Clone(orig[1:]), '\n'), 0o644)
		src, err := load(t).Source(paths, input.Reading{})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		c, err := src.Next()
		if err == nil {
			c.Release()
			t.Fatal("lines shifted by a byte: no error")
		}
		if pos := paths[0] + ":1:"; !strings.HasPrefix(err.Error(), pos) || !strings.Contains(err.Error(), "changed since shingle read them") {
			t.Errorf("error %q: want one at %s", err, pos)
		}
	})
}

// Load refuses an offsets file whose records come before its header, or
// with none, or with records that are bad or name an input the header
// does not.
func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	header := Header([]int64{100}).String() + "\n"
	rec := "d1\t1\t1\t1\t0\t5\t0123456789abcdef\n"
	for _, tc := range []struct{ name, file, want string }{
		{"record before the header", rec + header, "before the offsets header"},
		{"only a shingle header", "#neardup stage=shingle k=5\n" + rec, "before the offsets header"},
		{"no header", "", "no offsets header"},
		{"input past the header's", header + rec + "d2\t2\t1\t2\t0\t5\t0123456789abcdef\n", "input 2"},
		{"bad record", header + rec + "d2\t1\t1\t2\t0\t5\n", ":3: want id TAB input"},
		{"no sizes", "#neardup stage=offsets\n" + rec, "sizes"},
		{"bad sizes", "#neardup stage=offsets sizes=1,x\n" + rec, "sizes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "-"), []byte(tc.file))
			ix, err := Load(name, func([]byte) bool { return true })
			if err == nil {
				t.Fatalf("Load: %d places, no error", ix.Len())
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), name) {
				t.Errorf("Load: %v; want an error naming %s, saying %q", err, name, tc.want)
			}
		})
	}
}

// A record that runs past the end of its input, or a line followed by a
// CR that ends nothing (not a CRLF), is not the line shingle read: an
// error, not a panic or a line read all the same.
func TestSourcePastTheEnd(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, data string
		length     int64
	}{
		{"past the end", "d1\tabc\n", 100},
		{"a lone CR after", "d1\tabc\rzz\n", 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "-")+".tsv", []byte(tc.data))
			rec := fmt.Sprintf("d1\t1\t1\t1\t0\t%d\t%016x\n", tc.length, Digest([]byte("d1\tabc")))
			name := writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "-")+".off", []byte(Header(sizesOf(t, []string{path})).String()+"\n"+rec))
			ix, err := Load(name, func([]byte) bool { return true })
			if err != nil {
				t.Fatal(err)
			}
			src, err := ix.Source([]string{path}, input.Reading{})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			c, err := src.Next()
			if err == nil {
				t.Fatalf("Next: %q, no error", c.Data)
			}
			if !strings.HasPrefix(err.Error(), path+":1:") || !strings.Contains(err.Error(), "changed since shingle read them") {
				t.Errorf("Next: %v; want the line at %s:1 refused", err, path)
			}
		})
	}
}
