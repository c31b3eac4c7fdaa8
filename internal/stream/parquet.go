package stream

import (
	"sync"

	"github.com/neardup/neardup/internal/input"
)

// Parquet reads the named Parquet files one after another and yields a
// chunk per row group: the chunk's Value is an *input.ParquetGroup, which
// the workers decode, so row groups are decoded in parallel and their
// documents come out in file order. FirstLine is the number of the group's
// first row in its file, FirstOrdinal its number across all files.
type Parquet struct {
	names   []string
	reading input.Reading

	mu       sync.Mutex
	cur      *input.ParquetFile
	nextName int
	group    int
	ordinal  int64
	seq      int
	done     int64
	total    int64
	closed   bool
}

// NewParquet returns a source over the named Parquet files, whose columns
// r names.
func NewParquet(names []string, r input.Reading) *Parquet {
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &Parquet{names: names, reading: r, ordinal: 1, total: TotalSize(names)}
}

// Next returns the next row group.
func (p *Parquet) Next() (*Chunk, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.closed {
		if p.cur == nil {
			if p.nextName >= len(p.names) {
				return nil, nil
			}
			f, err := input.OpenParquet(p.names[p.nextName], p.reading)
			p.nextName++
			if err != nil {
				return nil, err
			}
			p.cur, p.group = f, 0
		}
		if p.group >= p.cur.NumRowGroups() {
			p.cur.Release()
			p.cur = nil
			continue
		}
		g := &input.ParquetGroup{File: p.cur, Index: p.group}
		p.cur.Ref()
		c := &Chunk{Seq: p.seq, File: p.cur.Name, FirstLine: p.cur.FirstRow(p.group) + 1, FirstOrdinal: p.ordinal, Value: g}
		p.ordinal += p.cur.File.Metadata().RowGroups[p.group].NumRows
		p.done += p.cur.GroupBytes(p.group)
		p.group++
		p.seq++
		return c, nil
	}
	return nil, nil
}

// Progress reports the stored bytes of the row groups handed out.
func (p *Parquet) Progress() (int64, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done, p.total
}

// Close releases the current file; chunks still held keep it open.
func (p *Parquet) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	return nil
}

// NewDocuments returns the source of documents in the named inputs read as
// r says: whole files (a format with Files; the *Files is returned too,
// for its report), Parquet row groups, or lines (and the records of the
// formats read as records, which Lines reads as r says).
func NewDocuments(names []string, r input.Reading, skipBad bool) (Source, *Files) {
	if f, ok := input.Lookup(r.Format); ok && f.Files {
		files := NewFiles(names)
		files.SkipBad = skipBad
		return files, files
	}
	if r.Format == input.FormatParquet {
		return NewParquet(names, r), nil
	}
	l := NewLines(names)
	l.Reading = &r
	return l, nil
}
