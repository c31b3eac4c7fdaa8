package cli

import (
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/urfave/cli/v2"
)

// Output compressions (--compress, or the -o name).
const (
	compressNone = "none"
	compressGzip = "gzip"
	compressZstd = "zstd"
)

func compressFlag() cli.Flag {
	return &cli.StringFlag{Name: "compress", Category: catOutput,
		Usage: "compress the output with `KIND`: gzip, zstd or none (default: none, or with -o what the name ends in: .gz, .gzip, .zst, .zstd)"}
}

// compressionOfName returns the compression an output file name calls for:
// gzip for .gz and .gzip, zstd for .zst and .zstd, else "".
func compressionOfName(name string) string {
	switch {
	case strings.HasSuffix(name, ".gz"), strings.HasSuffix(name, ".gzip"):
		return compressGzip
	case strings.HasSuffix(name, ".zst"), strings.HasSuffix(name, ".zstd"):
		return compressZstd
	}
	return ""
}

// outputCompression returns the compression of the output, "" for none:
// --compress when given, else the -o name's. A --compress that contradicts
// the name's suffix is a usage error.
func outputCompression(c *cli.Context) (string, error) {
	name := c.String("output")
	byName := ""
	if name != "" && name != "-" {
		byName = compressionOfName(name)
	}
	if !takes(c, "compress") || !c.IsSet("compress") {
		return byName, nil
	}
	kind := c.String("compress")
	switch kind {
	case compressNone, compressGzip, compressZstd:
	default:
		return "", usagef("unknown --compress %q: want gzip, zstd or none", kind)
	}
	if byName != "" && kind != byName {
		return "", usagef("--compress %s contradicts -o %s, whose name says %s", kind, name, byName)
	}
	if kind == compressNone {
		return "", nil
	}
	return kind, nil
}

// compressor compresses what is written to it into w. With flushEach
// (line-buffered output) every write is flushed through to w, so that a
// reader decompressing as it reads sees each batch as it is done.
type compressor struct {
	w         io.WriteCloser
	flush     func() error
	flushEach bool
}

func newCompressor(kind string, w io.Writer) (*compressor, error) {
	if kind == compressGzip {
		z := gzip.NewWriter(w)
		return &compressor{w: z, flush: z.Flush}, nil
	}
	// One encoder goroutine: the output is the same for any -j, and the
	// stage's workers have the cores.
	z, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	return &compressor{w: z, flush: z.Flush}, nil
}

func (c *compressor) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err == nil && c.flushEach {
		err = c.flush()
	}
	return n, err
}

// Close writes the end of the compressed stream.
func (c *compressor) Close() error { return c.w.Close() }
