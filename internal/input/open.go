package input

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// StdinName is how standard input is named in messages.
const StdinName = "<stdin>"

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// File is an open input, decompressed if it was compressed.
type File struct {
	// Name is the name given, or <stdin>.
	Name string
	// Size is the size in bytes of the file as stored (compressed), or -1
	// when it is not a regular file.
	Size int64
	// Compression is "", "gzip" or "zstd".
	Compression string
	// Sniffed is the format the first bytes show (Format.Magic), or "".
	Sniffed string

	r       io.Reader
	counter *countingReader
	// stored reads the file as stored from its start, for Stored: the
	// bytes a decoder consumed to sniff, recorded, then the rest.
	stored  io.Reader
	closers []func() error
}

// Read reads decompressed bytes.
func (f *File) Read(p []byte) (int, error) { return f.r.Read(p) }

// Consumed returns how many bytes of the stored file have been read.
func (f *File) Consumed() int64 { return f.counter.n.Load() }

// Close releases the file and any decoder.
func (f *File) Close() error {
	var err error
	for i := len(f.closers) - 1; i >= 0; i-- {
		if e := f.closers[i](); e != nil && err == nil {
			err = e
		}
	}
	f.closers = nil
	return err
}

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// Open opens name ("-" is standard input) and detects gzip or zstd
// compression from the first bytes.
func Open(name string) (*File, error) {
	var raw io.Reader
	size := int64(-1)
	var closer func() error
	if name == "-" {
		name = StdinName
		raw = os.Stdin
		if st, err := os.Stdin.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	} else {
		osf, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		if st, err := osf.Stat(); err == nil {
			if st.IsDir() {
				osf.Close()
				return nil, fmt.Errorf("%s: is a directory", name)
			}
			if st.Mode().IsRegular() {
				size = st.Size()
			}
		}
		raw, closer = osf, osf.Close
	}
	f, err := Wrap(name, raw)
	if err != nil {
		if closer != nil {
			closer()
		}
		return nil, err
	}
	f.Size = size
	if closer != nil {
		f.closers = append([]func() error{closer}, f.closers...)
	}
	return f, nil
}

// CompressionOf returns the compression whose magic bytes head starts
// with, as Open recognises them: "gzip", "zstd", or "" for none.
func CompressionOf(head []byte) string {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return "gzip"
	case bytes.HasPrefix(head, zstdMagic):
		return "zstd"
	}
	return ""
}

// Wrap returns a File that reads r as Open reads a file: named name in
// messages and decompressed when it starts with the gzip or zstd magic bytes.
// Its Size is -1. Closing it releases the decoder but does not close r.
func Wrap(name string, r io.Reader) (*File, error) {
	f := &File{Name: name, Size: -1}
	f.counter = &countingReader{r: r}
	head := &headReader{r: f.counter}
	magic, err := head.fill(4)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	switch CompressionOf(magic) {
	case "gzip":
		rec := &recorder{r: head}
		f.stored = rec
		zr, err := gzip.NewReader(bufio.NewReaderSize(rec, 64<<10))
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", f.Name, err)
		}
		f.Compression = "gzip"
		f.closers = append(f.closers, zr.Close)
		f.r = &namedReader{name: f.Name, kind: "gzip", r: zr}
	case "zstd":
		zr, err := zstd.NewReader(head, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, fmt.Errorf("%s: zstd: %w", f.Name, err)
		}
		f.Compression = "zstd"
		f.closers = append(f.closers, func() error { zr.Close(); return nil })
		f.r = &namedReader{name: f.Name, kind: "zstd", r: zr}
	default:
		f.r = &namedReader{name: f.Name, r: head}
	}
	// The format the content shows: the first bytes, decompressed.
	sniff := &headReader{r: f.r}
	if _, err := sniff.sniff(); err != nil {
		f.Close()
		return nil, err
	}
	f.Sniffed, _ = SniffFormat(sniff.head[:sniff.n])
	f.r = sniff
	switch rec, _ := f.stored.(*recorder); {
	case rec != nil:
		f.stored = io.MultiReader(bytes.NewReader(rec.buf), head)
	case f.Compression == "":
		f.stored = sniff
	}
	return f, nil
}

// Stored returns a reader of the file as stored, from its first byte: a
// gzip file compressed, for a reader of a record format that copies its
// records (WARC). It may be called instead of Read, not after it.
func (f *File) Stored() (io.Reader, error) {
	if f.stored == nil {
		return nil, fmt.Errorf("%s: %s-compressed: decompress it first", f.Name, f.Compression)
	}
	return f.stored, nil
}

// recorder keeps the bytes read through it: what a decoder read ahead to
// sniff the format, for Stored.
type recorder struct {
	r   io.Reader
	buf []byte
}

func (c *recorder) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.buf = append(c.buf, p[:n]...)
	return n, err
}

// headReader reads the first bytes of a stream ahead, to recognise its
// format, then gives them back before the rest. Unlike a bufio.Reader it
// allocates no buffer: small files opened by the thousand stay cheap.
type headReader struct {
	r    io.Reader
	head [maxMagic]byte
	n    int // bytes held in head
	off  int // bytes of head already returned
	eof  bool
}

// sniff reads ahead as long as the bytes read could still be the start of
// a format's Magic (fewer at the end of the stream), so that a slow stream
// is not held up for bytes no format needs.
func (h *headReader) sniff() ([]byte, error) {
	for h.n < len(h.head) {
		if _, more := SniffFormat(h.head[:h.n]); !more && h.n > 0 {
			break
		}
		if _, err := h.fill(h.n + 1); err != nil {
			return nil, err
		}
		if h.eof {
			break
		}
	}
	return h.head[:h.n], nil
}

// fill reads until it holds at least n bytes (fewer at the end of the
// stream).
func (h *headReader) fill(n int) ([]byte, error) {
	for h.n < n && !h.eof {
		k, err := h.r.Read(h.head[h.n:])
		h.n += k
		if err == io.EOF {
			h.eof = true
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return h.head[:min(h.n, n)], nil
}

func (h *headReader) Read(p []byte) (int, error) {
	if h.off < h.n {
		k := copy(p, h.head[h.off:h.n])
		h.off += k
		return k, nil
	}
	return h.r.Read(p)
}

// namedReader prefixes read errors with the file name (and the decoder).
type namedReader struct {
	name, kind string
	r          io.Reader
}

func (n *namedReader) Read(p []byte) (int, error) {
	c, err := n.r.Read(p)
	if err != nil && err != io.EOF {
		if n.kind != "" {
			err = fmt.Errorf("%s: %s: %w", n.name, n.kind, err)
		} else {
			err = fmt.Errorf("%s: %w", n.name, err)
		}
	}
	return c, err
}

// TrimCompressionSuffix removes a trailing .gz, .gzip, .zst or .zstd from a
// file name.
func TrimCompressionSuffix(name string) string {
	for _, s := range []string{".gz", ".gzip", ".zst", ".zstd"} {
		if strings.HasSuffix(name, s) {
			return strings.TrimSuffix(name, s)
		}
	}
	return name
}

// Stat returns the size of name if it is a regular file, else -1.
func Stat(name string) (int64, error) {
	if name == "-" {
		st, err := os.Stdin.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return -1, err
		}
		return st.Size(), nil
	}
	st, err := os.Stat(name)
	if err != nil || !st.Mode().IsRegular() {
		return -1, err
	}
	return st.Size(), nil
}
