package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/stream"
)

// Chunk is a run of whole lines of one input file, or a whole file under
// the files format: what the command-line stages hand their workers.
type Chunk struct {
	File string
	// FirstLine is the number of the first line in its file; FirstOrdinal
	// its number counted across all inputs, as the shingle stage counts.
	FirstLine, FirstOrdinal int64
	// Whole says that Data is one whole file, one document.
	Whole bool
	Data  []byte
}

// streamChunk returns the chunk as the stream package has it.
func (c Chunk) streamChunk() *stream.Chunk {
	if c.Whole {
		return &stream.Chunk{File: c.File, Docs: []stream.FileDoc{{Name: c.File, Data: c.Data}}}
	}
	return &stream.Chunk{File: c.File, FirstLine: c.FirstLine, FirstOrdinal: c.FirstOrdinal, Data: c.Data}
}

// pattern is one input pattern and its place in the list.
type pattern struct {
	Index int
	Glob  string
}

// fileRef is one input file: the place of its pattern, its path, and the
// number of lines in the inputs before it (when the ids need it) or its own
// number of lines (while they are counted).
type fileRef struct {
	Pattern int
	Path    string
	Lines   int64
}

func init() {
	beam.RegisterType(reflect.TypeOf((*Chunk)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*pattern)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*fileRef)(nil)).Elem())
	register.DoFn3x1[context.Context, pattern, func(fileRef), error](&listFn{})
	register.DoFn2x3[context.Context, fileRef, int, fileRef, error](&countFn{})
	register.DoFn3x0[int, func(*fileRef) bool, func(fileRef)](&offsetFn{})
	register.DoFn3x1[context.Context, fileRef, func(Chunk), error](&readFn{})
	register.Function1x1[Chunk, int64](countChunk)
	register.Function2x1[int64, int64, int64](sumInt64)
	register.Function2x1[int, fileRef, int64](fileLines)
	register.Emitter1[fileRef]()
	register.Emitter1[Chunk]()
	register.Iter1[fileRef]()
}

// needsOrdinals reports whether a document's id may be its line number
// counted across all inputs: with arrival numbers, with the lines format,
// and for JSON Lines without an id. The files before each file are then
// counted first.
func (o *Options) needsOrdinals() bool {
	if o.Number {
		return true
	}
	switch o.Format {
	case input.FormatLines, input.FormatJSONL:
		return true
	case input.FormatAuto:
		return slices.ContainsFunc(o.Inputs, mayMatchJSONL)
	}
	return false
}

// mayMatchJSONL reports whether a pattern may match a file that the shingle
// stage reads as JSON Lines under the automatic format: its name says so,
// or a wildcard stands where the extension is.
func mayMatchJSONL(pattern string) bool {
	name := input.TrimCompressionSuffix(path.Base(pattern))
	ext := path.Ext(name)
	if strings.ContainsAny(ext, "*?[") || ext == "" && strings.ContainsAny(name, "*?[") {
		return true
	}
	return input.FormatOf(pattern) == input.FormatJSONL
}

// readDocuments reads the inputs into chunks and returns them with a
// PCollection<int64> holding the number of chunks, or nothing for an empty
// input (which gives empty outputs), and when the lines are counted
// (needsOrdinals) one holding the number of lines of all inputs, or
// nothing for an empty input.
func readDocuments(s beam.Scope, opt Options) (chunks, seen, lines beam.PCollection) {
	s = s.Scope("read")
	var globs []any
	for i, in := range opt.Inputs {
		globs = append(globs, pattern{Index: i, Glob: in})
	}
	files := beam.ParDo(s, &listFn{}, beam.Create(s, globs...))
	if opt.needsOrdinals() {
		counted := beam.ParDo(s, &countFn{}, files)
		files = beam.ParDo(s, &offsetFn{}, beam.GroupByKey(s, counted))
		lines = beam.Combine(s, sumInt64, beam.ParDo(s, fileLines, counted))
	}
	chunks = beam.ParDo(s, &readFn{Format: opt.Format}, beam.Reshuffle(s, files))
	chunks = beam.Reshuffle(s, chunks)
	seen = beam.Combine(s, sumInt64, beam.ParDo(s, countChunk, chunks))
	return chunks, seen, lines
}

func countChunk(Chunk) int64 { return 1 }

// fileLines is the number of lines of a counted file.
func fileLines(_ int, f fileRef) int64 { return f.Lines }

func sumInt64(a, b int64) int64 { return a + b }

// listFn expands a pattern into its files, in byte order.
type listFn struct{}

func (*listFn) ProcessElement(ctx context.Context, p pattern, emit func(fileRef)) error {
	fs, err := filesystem.New(ctx, p.Glob)
	if err != nil {
		return err
	}
	defer fs.Close()
	names, err := fs.List(ctx, p.Glob)
	if err != nil {
		return fmt.Errorf("%s: %w", p.Glob, err)
	}
	if len(names) == 0 {
		return fmt.Errorf("%s: no such file", p.Glob)
	}
	slices.Sort(names)
	for _, n := range names {
		emit(fileRef{Pattern: p.Index, Path: n})
	}
	return nil
}

// openLines returns the stream package's line source over one file of a
// Beam file system, decompressed as the command line does, and the function
// that closes the file.
func openLines(ctx context.Context, path string) (*stream.Lines, func()) {
	var r io.ReadCloser
	l := stream.NewLinesOpen([]string{path}, func(name string) (*input.File, error) {
		fs, err := filesystem.New(ctx, name)
		if err != nil {
			return nil, err
		}
		defer fs.Close()
		if r, err = fs.OpenRead(ctx, name); err != nil {
			return nil, err
		}
		return input.Wrap(name, r)
	})
	return l, func() {
		l.Close()
		if r != nil {
			r.Close()
		}
	}
}

// countFn counts the lines of a file, all under one key.
type countFn struct{}

func (*countFn) ProcessElement(ctx context.Context, f fileRef) (int, fileRef, error) {
	l, closeLines := openLines(ctx, f.Path)
	defer closeLines()
	for {
		c, err := l.Next()
		if err != nil {
			return 0, f, err
		}
		if c == nil {
			return 0, f, nil
		}
		f.Lines += int64(bytes.Count(c.Data, []byte{'\n'}))
	}
}

// offsetFn puts the files in input order and gives each the number of
// lines before it.
type offsetFn struct{}

func (*offsetFn) ProcessElement(_ int, iter func(*fileRef) bool, emit func(fileRef)) {
	var files []fileRef
	var f fileRef
	for iter(&f) {
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b fileRef) int {
		return cmp.Or(cmp.Compare(a.Pattern, b.Pattern), cmp.Compare(a.Path, b.Path))
	})
	var before int64
	for _, f := range files {
		n := f.Lines
		f.Lines = before
		emit(f)
		before += n
	}
}

// readFn reads a file into chunks of whole lines, or whole under the files
// format.
type readFn struct {
	Format string
}

func (fn *readFn) ProcessElement(ctx context.Context, f fileRef, emit func(Chunk)) error {
	if fn.Format == input.FormatFiles {
		return readWhole(ctx, f.Path, emit)
	}
	l, closeLines := openLines(ctx, f.Path)
	defer closeLines()
	for {
		c, err := l.Next()
		if err != nil {
			return err
		}
		if c == nil {
			return nil
		}
		emit(Chunk{File: c.File, FirstLine: c.FirstLine, FirstOrdinal: f.Lines + c.FirstOrdinal, Data: c.Data})
	}
}

func readWhole(ctx context.Context, path string, emit func(Chunk)) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return err
	}
	defer r.Close()
	in, err := input.Wrap(path, r)
	if err != nil {
		return err
	}
	defer in.Close()
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	emit(Chunk{File: path, Whole: true, Data: data})
	return nil
}
