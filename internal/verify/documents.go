package verify

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/store"
	"github.com/neardup/neardup/internal/stream"
)

// DocumentOptions say where verify --documents finds the documents and
// how they are read: as shingle read them.
type DocumentOptions struct {
	// Paths are the document files (TSV, JSON Lines, lines), or with
	// Format files the files and directories the documents are under.
	Paths []string
	// Reading is how the documents are read: set in code (Format and the
	// fields, empty for the defaults), or resolved from Given.
	input.Reading
	// Given, when set, holds the document flags instead: the documents are
	// then read as the pairs' shingle header says, unless a flag says
	// otherwise, and a flag that disagrees is refused.
	Given input.ReadingFlags
	// Stopwords is the list of a shingle run that read one from a file.
	Stopwords *shingle.Stopwords
	// VectorField, with Options.Cosine, is the JSON Lines field of the
	// documents' vectors, and Dim their dimension (0: the first vector's).
	VectorField string
	Dim         int
	// Offsets, when set, names the offsets file of shingle --offsets: only
	// the lines of the documents in some pair are read, where it says.
	Offsets string
	// shingle is the pairs' shingle header, which the offsets file's must
	// be (resolveReading).
	shingle stream.HeaderAt
}

// shingleOptions finds the shingling of the records in the headers of the
// pairs.
func shingleOptions(headers []stream.HeaderAt, custom *shingle.Stopwords) (shingle.Options, error) {
	for _, h := range headers {
		if h.Header.Stage == "shingle" {
			o, err := shingle.OptionsFromHeader(h.Header, custom)
			if err != nil {
				return o, record.Errorf(h.Pos, "%v", err)
			}
			return o, nil
		}
	}
	return shingle.Options{}, fmt.Errorf("verify --documents shingles the documents again as the pairs were made: it needs their shingle header (the pairs have none: were they written with --no-header?)")
}

// resolveReading decides how the documents are read: from the flags and
// the shingle header of the pairs. With arrival numbers it checks that
// the documents are the inputs the numbers were given to, as the headers
// say (input.CheckNumbered).
func (d *DocumentOptions) resolveReading(peeked []stream.HeaderAt, stderr io.Writer) error {
	var hs record.HeaderSet
	var batches []input.Batch
	for _, h := range peeked {
		if _, err := hs.Add(h.Header, h.Pos); err != nil {
			return err
		}
		if h.Header.Stage == "shingle" && d.shingle.Header.Stage == "" {
			d.shingle = h
		}
		bs, err := input.BatchesOf(h.Header, h.Pos)
		if err != nil {
			return err
		}
		batches = append(batches, bs...)
	}
	r, err := d.Given.ForStage("verify", &hs, input.ReadingOf(d.Format, d.IDField, d.TextField), stderr)
	if err != nil {
		return err
	}
	d.Reading = r
	if r.Number {
		if err := input.CheckNumbered(batches, r.NumberFrom, d.Paths, "--documents"); err != nil {
			return err
		}
	}
	return nil
}

// loadDocuments reads the documents named by needed (all of them when
// needed is nil), shingles them again and returns their shingle sets.
func loadDocuments(ctx context.Context, opt *Options, so shingle.Options, needed map[string]struct{}, stderr io.Writer) (*store.Store, error) {
	d := opt.Documents
	stage := &shingle.StageOptions{Shingle: so, Reading: d.Reading, NoID: new(atomic.Int64),
		Common: stream.Common{SkipBad: opt.SkipBad}}
	defer document.ReportNoID(stderr, "verify", d.IDField, stage.NoID)
	defer shingle.ReportCrowded(stderr, "verify", hashsort.Crowded())
	if d.Format == input.FormatFiles && needed != nil {
		return loadFiles(ctx, opt, stage, needed)
	}
	src, _ := document.Source(d.Reading, d.Paths, opt.SkipBad)
	defer src.Close()
	st := store.New()
	var sample []byte
	sink := func(r *stream.Result) error {
		p := r.Value.(*parsed)
		if sample == nil && p.sample != nil {
			sample = p.sample
		}
		if err := p.storeIn(st); err != nil {
			return err
		}
		return r.Err
	}
	newWorker := func() stream.Worker { return &documentWorker{w: shingle.NewWorker(stage), needed: needed} }
	if err := stream.Run(ctx, src, opt.Common, newWorker, sink); err != nil {
		return nil, err
	}
	document.Report(src, stderr, "verify")
	if len(needed) > 0 && st.Len() == 0 && sample != nil {
		return nil, idsMismatch(needed, d.Paths, sample, "shingle did (--format, --id-field, --number-from)")
	}
	return st, nil
}

// idsMismatch is the error of documents none of which the pairs name: the
// smallest id the pairs need beside the first the documents have, and how
// the documents were read to make the pairs (how).
func idsMismatch(needed map[string]struct{}, paths []string, sample []byte, how string) error {
	var one string
	for id := range needed {
		if one == "" || id < one {
			one = id
		}
	}
	return &usageError{fmt.Sprintf("the ids do not match: none of the %d documents the pairs name is among the documents (%s): the pairs have %q, the documents %q; read the documents as %s",
		len(needed), strings.Join(paths, " "), one, sample, how)}
}

// documentWorker shingles the needed documents of a chunk.
type documentWorker struct {
	w      *shingle.Worker
	needed map[string]struct{}
}

func (w *documentWorker) Process(c *stream.Chunk, r *stream.Result) {
	p := &parsed{}
	w.w.Documents(c, r, func(id, text []byte) error {
		if p.sample == nil {
			p.sample = append([]byte{}, id...)
		}
		if w.needed != nil {
			if _, ok := w.needed[string(id)]; !ok {
				return nil
			}
		}
		before := len(p.vals)
		p.vals = w.w.Set(p.vals, text)
		p.arena = append(p.arena, id...)
		p.ids = append(p.ids, p.arena[len(p.arena)-len(id):len(p.arena):len(p.arena)])
		p.pos = append(p.pos, record.Pos{File: c.File})
		p.sizes = append(p.sizes, uint64(len(p.vals)-before))
		p.ends = append(p.ends, len(p.vals))
		return nil
	})
	r.Value = p
}

// loadFiles reads the needed documents of a --files corpus straight from
// their files: a document's id is its path. Only paths under the given
// files and directories are read.
func loadFiles(ctx context.Context, opt *Options, stage *shingle.StageOptions, needed map[string]struct{}) (*store.Store, error) {
	ids := make([]string, 0, len(needed))
	for id := range needed {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	paths := make([]string, len(ids))
	roots := resolveRoots(opt.Documents.Paths)
	for i, id := range ids {
		paths[i] = string(record.UnescapeID(nil, []byte(id)))
		if real, ok := under(paths[i], roots); !ok {
			where := ""
			if real != "" {
				where = " (a symlink to " + real + ")"
			}
			return nil, &usageError{fmt.Sprintf("document %s%s is not under the --documents paths (%s)", id, where, strings.Join(opt.Documents.Paths, " "))}
		}
	}
	jobs := opt.Jobs
	// Each worker adds its documents to the store as it shingles them, so
	// that no set is held twice; lookups need no order in the store.
	st := store.New()
	var mu sync.Mutex
	var held int64
	var over atomic.Bool
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	next := make(chan int)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := shingle.NewWorker(stage)
			var buf []byte
			var set []uint64
			for i := range next {
				var err error
				buf, err = stream.ReadFile(buf[:0], paths[i])
				if err != nil {
					errs[i] = err
					continue
				}
				set = w.Set(set[:0], buf)
				mu.Lock()
				st.Add([]byte(ids[i]), uint64(len(set)), set)
				held += storeBytes([]byte(ids[i]), len(set))
				if held > opt.MemoryBytes {
					over.Store(true)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range ids {
		if ctx.Err() != nil || over.Load() {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if over.Load() {
		return nil, filesTooLarge(opt)
	}
	for _, err := range errs { // the first in id order
		if err != nil {
			return nil, err
		}
	}
	return st, nil
}

// storeBytes is what a document of n values takes in a store.
func storeBytes(id []byte, n int) int64 { return int64(n)*8 + 60 + int64(len(id)) }

// filesTooLarge refuses documents read one file each whose shingle sets do
// not fit in --memory: they are held all at once.
func filesTooLarge(opt *Options) error {
	return &usageError{fmt.Sprintf("verify --files --documents holds the shingle sets of every document in a pair, and they take more than --memory (%d bytes): give more --memory, or shingle the files (shingle --files -o s.tsv) and verify with --shingles s.tsv, or --attach and --sorted to hold neither side (LARGER THAN MEMORY in verify(1))", opt.MemoryBytes)}
}

// root is a --documents path, as given and resolved.
type root struct{ given, real string }

// resolveRoots resolves the --documents paths (symlinks followed, made
// absolute).
func resolveRoots(paths []string) []root {
	roots := make([]root, len(paths))
	for i, p := range paths {
		roots[i] = root{filepath.Clean(p), resolvePath(p)}
	}
	return roots
}

// resolvePath follows the symlinks of p and makes it absolute; a path that
// does not resolve (a missing file, whose reading fails later) is only
// made absolute.
func resolvePath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// under tells whether path is under one of roots, both as written and once
// resolved, so that a symlink inside the tree does not lead reading out of
// it. When the text is under a root but the file is not, real is where the
// path leads. The root directory holds every path.
func under(path string, roots []root) (real string, ok bool) {
	clean := filepath.Clean(path)
	if !slices.ContainsFunc(roots, func(r root) bool { return within(clean, r.given) }) {
		return "", false
	}
	real = resolvePath(path)
	if slices.ContainsFunc(roots, func(r root) bool { return within(real, r.real) }) {
		return "", true
	}
	return real, false
}

// within tells whether the clean path p is r or under it.
func within(p, r string) bool {
	sep := string(filepath.Separator)
	switch {
	case p == r:
		return true
	case r == ".":
		return !filepath.IsAbs(p) && p != ".." && !strings.HasPrefix(p, ".."+sep)
	case strings.HasSuffix(r, sep): // the root directory
		return strings.HasPrefix(p, r)
	}
	return strings.HasPrefix(p, r+sep)
}

// usageError is a mismatch between the command line and the input: bad
// input, which the command or the data must change to mend.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// Class makes a mismatch bad input.
func (e *usageError) Class() status.Class { return status.BadInput }
