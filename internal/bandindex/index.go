package bandindex

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/neardup/neardup/internal/record"
)

// Version is the format version of the manifest and the run files.
const Version = 1

// maxManifest bounds the manifest read (a damaged size can't ask for any
// amount of memory).
const maxManifest = 64 << 20

// Index is an open band index: its manifest and its runs, each with its
// block index in memory.
type Index struct {
	Dir string
	// Headers are the header lines of the records the index was built
	// from: the parameters every batch must share.
	Headers []record.Header
	fs      fileSystem
	m       *manifest
	// runs are the runs the manifest names, each checked against it;
	// their files are held open when no more than budget.runs.
	runs   []*run
	held   bool
	budget budget
	// temp is the temporary run that the newest runs were merged into
	// (OpenAll), removed by Close.
	temp string
}

// budget is how many runs a command holds open at once: the process's
// open-file limit (files) less what else it may hold open. pairs holds up
// to 65 spilled runs, and its inputs, output and standard streams; the Go
// runtime a few: 128 are left for them, or half of a limit below 256.
type budget struct {
	files int
	runs  int
}

func fileBudget() budget {
	n := fileLimit()
	return budget{files: n, runs: max(2, n-min(128, n/2))}
}

// Open opens the index in dir: its manifest, and the block index of every
// run, the run files held open when they all can be (an index of more runs
// than the open-file limit allows is read by OpenAll, or merged).
func Open(dir string) (*Index, error) { return open(osFS{}, dir, fileBudget()) }

func open(fsys fileSystem, dir string, b budget) (*Index, error) {
	for attempt := 1; ; attempt++ {
		m, err := readManifest(fsys, dir)
		if err != nil {
			return nil, err
		}
		ix := &Index{Dir: dir, Headers: m.headers, fs: fsys, m: m, budget: b, held: len(m.runs) <= b.runs}
		err = ix.openRuns()
		if err == nil {
			return ix, nil
		}
		ix.Close()
		// A merge may have replaced the runs between the reading of the
		// manifest and the opening of its runs: read it again.
		if !errors.Is(err, fs.ErrNotExist) || attempt == 3 {
			return nil, err
		}
	}
}

func readManifest(fsys fileSystem, dir string) (*manifest, error) {
	path := filepath.Join(dir, manifestName)
	f, err := fsys.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: not a band index (no %s; bandindex build makes one)", dir, manifestName)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Size() > maxManifest {
		return nil, damaged(path, "%d bytes: not a manifest", f.Size())
	}
	data := make([]byte, f.Size())
	if _, err := f.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return parseManifest(data, path)
}

// openRuns opens and checks every run; unless the index holds them, each
// file is closed once its footer is read.
func (ix *Index) openRuns() error {
	for _, e := range ix.m.runs {
		r, err := openEntry(ix.fs, filepath.Join(ix.Dir, e.name), e)
		if err != nil {
			return err
		}
		if !ix.held {
			err = r.f.Close()
			r.f = nil
		}
		ix.runs = append(ix.runs, r)
		if err != nil {
			return err
		}
	}
	return nil
}

// openEntry opens the run at path and checks it is the one e names.
func openEntry(fsys fileSystem, path string, e runEntry) (*run, error) {
	r, err := openRun(fsys, path, e.name)
	if err != nil {
		return nil, err
	}
	if r.footer != e.footer || r.records != e.records || uint64(r.f.Size()) != e.bytes {
		r.f.Close()
		return nil, damaged(path, "%d records, %d bytes, footer checksum %016x; the manifest names one of %d records, %d bytes, %016x: not the run it names",
			r.records, r.f.Size(), r.footer, e.records, e.bytes, e.footer)
	}
	return r, nil
}

// damaged returns the error for a damaged file of the index, "path:
// message", which stops a command with status 2, as bad input does.
func damaged(path, format string, args ...any) error {
	return &record.Error{Pos: record.Pos{File: path}, Msg: fmt.Sprintf(format, args...)}
}

// Close closes the run files, and removes the temporary run.
func (ix *Index) Close() error {
	var err error
	for _, r := range ix.runs {
		if r.f == nil {
			continue
		}
		if cerr := r.f.Close(); err == nil {
			err = cerr
		}
	}
	ix.runs = nil
	if ix.temp != "" {
		removeTemp(ix.fs, ix.temp)
		ix.temp = ""
	}
	return err
}

// Records returns the number of records (band key, id) stored, over all
// runs (a record stored in two runs counts twice).
func (ix *Index) Records() uint64 {
	var n uint64
	for _, r := range ix.runs {
		n += r.records
	}
	return n
}

// Runs returns the number of runs.
func (ix *Index) Runs() int { return len(ix.runs) }

// MemoryBytes returns what the open index holds in memory: the block index
// of every run.
func (ix *Index) MemoryBytes() int64 {
	var n int64
	for _, r := range ix.runs {
		n += runMemory(r)
	}
	return n
}

func runMemory(r *run) int64 {
	n := int64(len(r.last)) + 64
	for _, b := range r.blocks {
		n += int64(len(b.first)) + 48
	}
	return n
}

// headerSet returns the index's headers as a HeaderSet, each placed at its
// line of the manifest.
func (ix *Index) headerSet() *record.HeaderSet {
	var set record.HeaderSet
	for i, h := range ix.Headers {
		set.Add(h, record.Pos{File: filepath.Join(ix.Dir, manifestName), Line: int64(i + 2)})
	}
	return &set
}

// CheckHeader checks a header line of band records against the parameters
// of the index: records made under others are refused.
func (ix *Index) CheckHeader(h record.Header, pos record.Pos) error {
	if err := checkScheme(h, pos); err != nil {
		return err
	}
	h = ix.withoutNewThreshold(h)
	isNew, err := ix.headerSet().Add(h, pos)
	if err != nil {
		return err
	}
	if isNew {
		return record.Errorf(pos, "%s: the index was built from records that went through no %s stage: these can't be compared with them", ix.Dir, h.Stage)
	}
	return nil
}

// withoutNewThreshold returns a band header h without its threshold when
// the index's band header has none: an index built before band wrote its
// threshold, or from -b and -r alone, holds the same keys as a batch banded
// alike with its threshold named. The threshold does not make the keys, so
// the rest must be equal as before.
func (ix *Index) withoutNewThreshold(h record.Header) record.Header {
	if h.Stage != "band" {
		return h
	}
	if _, ok := h.Get(record.ThresholdKey); !ok {
		return h
	}
	for _, old := range ix.Headers {
		if old.Stage != "band" {
			continue
		}
		if _, ok := old.Get(record.ThresholdKey); ok {
			return h
		}
		trimmed := record.Header{Stage: h.Stage}
		for _, p := range h.Params {
			if p.Key != record.ThresholdKey {
				trimmed.Params = append(trimmed.Params, p)
			}
		}
		return trimmed
	}
	return h
}

// CheckComplete checks, once the first record of a batch is read, that its
// headers name every stage the index's records went through.
func (ix *Index) CheckComplete(batch *record.HeaderSet, pos record.Pos) error {
	for i, h := range ix.Headers {
		if _, ok := batch.Get(h.Stage); !ok {
			return record.Errorf(pos, "no %s header line before this record, but the index's records were made with %q (%s:%d): records without their header lines can't be checked against the index",
				h.Stage, h.String(), filepath.Join(ix.Dir, manifestName), i+2)
		}
	}
	return nil
}

// checkScheme refuses band records of a Hamming scheme.
func checkScheme(h record.Header, pos record.Pos) error {
	if h.Stage != "band" {
		return nil
	}
	if s, ok := h.Get(record.SchemeKey); ok && s != record.SchemeMinHash && s != record.SchemeContainment {
		return record.Errorf(pos, "a band index holds MinHash band keys; these band records are of the %s scheme (SimHash fingerprints go to index; containment keys are held too)", s)
	}
	return checkContainMode(h, pos)
}

// Lookup finds the ids stored under band keys asked for in ascending
// order, reading each run forward, one block at a time.
type Lookup struct {
	curs  []*cursor
	arena []byte
	ends  []int
	ids   [][]byte
}

// NewLookup returns a Lookup over every run of the index, opened by
// OpenAll.
func (ix *Index) NewLookup() *Lookup {
	l := &Lookup{}
	for _, r := range ix.runs {
		l.curs = append(l.curs, newCursor(r))
	}
	return l
}

// IDs returns the ids stored under key, ascending and distinct; when limit
// is above 0, only the limit smallest. Keys must be asked for in ascending
// bytewise order. The ids are valid until the next call.
func (l *Lookup) IDs(key []byte, limit int) ([][]byte, error) {
	l.arena, l.ends = l.arena[:0], l.ends[:0]
	for _, c := range l.curs {
		if !c.seek(key) {
			if c.err != nil {
				return nil, c.err
			}
			continue
		}
		if err := l.read(c, key, limit); err != nil {
			return nil, err
		}
	}
	l.collect()
	if limit > 0 && len(l.ids) > limit {
		l.ids = l.ids[:limit]
	}
	return l.ids, nil
}

// All returns every id stored under key, ascending and distinct: called
// after IDs(key, limit) with the same key, it reads on where IDs stopped.
// The ids are valid until the next call.
func (l *Lookup) All(key []byte) ([][]byte, error) {
	for _, c := range l.curs {
		if err := l.read(c, key, 0); err != nil {
			return nil, err
		}
	}
	l.collect()
	return l.ids, nil
}

// read appends to the arena the ids under key from where c stands, at most
// limit when above 0.
func (l *Lookup) read(c *cursor, key []byte, limit int) error {
	for n := 0; c.valid && bytes.Equal(c.key, key) && (limit <= 0 || n < limit); n++ {
		l.arena = append(l.arena, c.id...)
		l.ends = append(l.ends, len(l.arena))
		if !c.next() {
			return c.err
		}
	}
	return nil
}

// collect makes the ids of the arena, ascending and distinct.
func (l *Lookup) collect() {
	l.ids = l.ids[:0]
	start := 0
	for _, e := range l.ends {
		l.ids = append(l.ids, l.arena[start:e:e])
		start = e
	}
	if len(l.curs) > 1 {
		slices.SortFunc(l.ids, bytes.Compare)
		l.ids = slices.CompactFunc(l.ids, bytes.Equal)
	}
}
