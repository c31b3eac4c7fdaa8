package stream

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
)

// readDir is os.ReadDir; tests make it fail (root reads every directory).
var readDir = os.ReadDir

// maxFilesPerChunk bounds the number of small files in one chunk.
const maxFilesPerChunk = 256

// Files reads one document per file: the files named, the files under the
// directories named (walked in lexical order), or, when no name is given,
// the paths listed one per line on standard input.
type Files struct {
	names   []string
	pending []string // files found in a directory being walked
	list    *bufio.Scanner
	listPos record.Pos
	seq     int
	mu      sync.Mutex
	done    int64
	unread  unread
	// walkSkipped holds the directories a walk could not read, under
	// SkipBad, for the chunk being made.
	walkSkipped []*record.Error
	// SkipBad makes an unreadable file a skipped document (it goes to the
	// chunk's Skipped) rather than an error.
	SkipBad bool
}

// NewFiles returns a source of whole files.
func NewFiles(names []string) *Files {
	f := &Files{names: names}
	if len(names) == 0 {
		f.list = bufio.NewScanner(os.Stdin)
		f.list.Buffer(make([]byte, 64<<10), 1<<20)
		f.listPos.File = input.StdinName
	}
	return f
}

func (f *Files) nextName() (string, error) {
	for {
		if len(f.pending) > 0 {
			n := f.pending[0]
			f.pending = f.pending[1:]
			return n, nil
		}
		var name string
		if f.list != nil {
			if !f.list.Scan() {
				return "", f.list.Err()
			}
			f.listPos.Line++
			name = string(record.TrimEOL(f.list.Bytes()))
			if name == "" {
				continue
			}
		} else {
			if len(f.names) == 0 {
				return "", nil
			}
			name = f.names[0]
			f.names = f.names[1:]
		}
		return name, nil
	}
}

// walk queues the files under a directory, in lexical order. A name is
// only found to be a directory when reading it fails: stat-ing every name
// first would cost a system call per document. The directory itself may be
// a symlink (it was named). Inside it, a symlink to a file is followed; one
// to a directory is not walked (links can make cycles) and, like a dangling
// symlink or a device, pipe or socket, is counted for Report.
//
// Under SkipBad a directory that cannot be read is skipped (walkSkipped,
// then the chunk's Skipped) instead of ending the walk.
func (f *Files) walk(dir string) error {
	entries, err := readDir(dir)
	if err != nil {
		if f.SkipBad {
			f.walkSkipped = append(f.walkSkipped, skipped(dir, err))
			return nil
		}
		return err
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch t := e.Type(); {
		case t.IsRegular():
			f.pending = append(f.pending, path)
		case t.IsDir():
			if err := f.walk(path); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			st, err := os.Stat(path)
			switch {
			case err != nil:
				f.unread.note(&f.unread.dangling, path)
			case st.Mode().IsRegular():
				f.pending = append(f.pending, path)
			case st.IsDir():
				f.unread.note(&f.unread.dirLinks, path)
			default:
				f.unread.note(&f.unread.special, path)
			}
		default:
			f.unread.note(&f.unread.special, path)
		}
	}
	return nil
}

// unread counts what a walk met and did not read, with the first path of
// each kind.
type unread struct {
	dirLinks, dangling, special counted
}

type counted struct {
	n     int64
	first string
}

func (u *unread) note(c *counted, path string) {
	if c.n == 0 {
		c.first = path
	}
	c.n++
}

// Report writes on stderr, as stage, what the walks of the directories met
// and did not read: symlinks to directories, dangling symlinks, and files
// that are neither regular nor symlinks, and the files named or listed that
// are not regular files (a device, pipe or socket). Call it once the source is read.
func (f *Files) Report(stderr io.Writer, stage string) {
	u := &f.unread
	if u.dirLinks.n > 0 {
		fmt.Fprintf(stderr, "%s: %d symlink(s) to a directory not walked, such as %s (links can make cycles: name the directory to read it)\n", stage, u.dirLinks.n, u.dirLinks.first)
	}
	if u.dangling.n > 0 {
		fmt.Fprintf(stderr, "%s: %d dangling symlink(s) not read, such as %s\n", stage, u.dangling.n, u.dangling.first)
	}
	if u.special.n > 0 {
		fmt.Fprintf(stderr, "%s: %d file(s) neither regular nor a symlink (a device, pipe or socket) not read, such as %s\n", stage, u.special.n, u.special.first)
	}
}

// Next returns a batch of whole files.
func (f *Files) Next() (*Chunk, error) {
	c := &Chunk{Seq: f.seq}
	size := 0
	for size < ChunkSize && len(c.Docs) < maxFilesPerChunk {
		name, err := f.nextName()
		if err != nil {
			return nil, err
		}
		if name == "" {
			break
		}
		if c.buf == nil {
			c.buf = getBuf(&inPool, ChunkSize)
		}
		start := len(*c.buf)
		*c.buf, err = readWhole(*c.buf, name)
		var special *notRegularError
		if errors.As(err, &special) {
			f.unread.note(&f.unread.special, name)
			continue
		}
		if err != nil && name != "-" {
			if st, serr := os.Stat(name); serr == nil && st.IsDir() {
				if err := f.walk(name); err != nil {
					return nil, err
				}
				c.Skipped = append(c.Skipped, f.walkSkipped...)
				f.walkSkipped = f.walkSkipped[:0]
				continue
			}
		}
		data := (*c.buf)[start:len(*c.buf):len(*c.buf)]
		f.mu.Lock()
		f.done += int64(len(data))
		f.mu.Unlock()
		if err != nil {
			if f.SkipBad {
				c.Skipped = append(c.Skipped, skipped(name, err))
				continue
			}
			return nil, err
		}
		c.Docs = append(c.Docs, FileDoc{Name: name, Data: data})
		size += len(data)
	}
	if len(c.Docs) == 0 && len(c.Skipped) == 0 {
		return nil, nil
	}
	f.seq++
	return c, nil
}

// skipped is the error of a file skipped under SkipBad, its place the path.
func skipped(name string, err error) *record.Error {
	var re *record.Error
	if errors.As(err, &re) {
		return re
	}
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error() // the path is already the place
	}
	return &record.Error{Pos: record.Pos{File: name}, Msg: msg}
}

// readWhole appends the contents of a file to buf. Growing buf may move it
// to a new array; documents sliced from the old one stay valid. A file that
// is not a regular file (a device, pipe or socket, but standard input) is
// refused with a *notRegularError without waiting to open it, and one of
// more than MaxLine bytes, decompressed, with a *record.Error, having read
// no more than that.
func readWhole(buf []byte, name string) ([]byte, error) {
	if buf, ok, err := readPlain(buf, name); ok {
		return buf, err
	}
	if name != "-" {
		if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
			return buf, &notRegularError{name}
		}
	}
	in, err := input.Open(name)
	if err != nil {
		return buf, err
	}
	defer in.Close()
	if in.Size >= 0 && in.Compression == "" {
		if in.Size > int64(MaxLine) {
			return buf, tooLarge(name)
		}
		buf = slices.Grow(buf, int(in.Size)+1)
	}
	start := len(buf)
	for {
		if len(buf) == cap(buf) {
			buf = growDoc(buf, start)
			if len(buf)-start >= hugeLine {
				// Give the buffer it grew from back at once, or a
				// decompressed file near the limit holds three times it.
				debug.FreeOSMemory()
			}
		}
		n, err := in.Read(buf[len(buf):min(cap(buf), start+MaxLine+1)])
		buf = buf[:len(buf)+n]
		if len(buf)-start > MaxLine {
			return buf[:start], tooLarge(name)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf[:start], err
		}
	}
}

// growDoc makes room in buf for more of the document that starts at start,
// of unknown size (decompressed, or read from a pipe). It doubles buf, or
// grows it to what the largest document needs when that is less than a
// quarter more.
func growDoc(buf []byte, start int) []byte {
	most := start + MaxLine + 1
	size := min(2*cap(buf), most)
	if most-size < size/4 {
		size = most
	}
	nb := make([]byte, len(buf), max(size, len(buf)+1))
	copy(nb, buf)
	return nb
}

// notRegularError refuses a file that is a device, pipe or socket: reading
// one may never end (a FIFO without a writer, /dev/zero).
type notRegularError struct{ name string }

func (e *notRegularError) Error() string {
	return e.name + ": not a regular file (a device, pipe or socket)"
}

// tooLarge refuses a document read whole that is longer than a line may be.
func tooLarge(name string) error {
	return record.Errorf(record.Pos{File: name}, "file exceeds %d bytes (decompressed), the longest document a stage reads", MaxLine)
}

// Progress reports the bytes read so far; the total is unknown.
func (f *Files) Progress() (int64, int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done, -1
}

// Close does nothing: every file is closed once read.
func (f *Files) Close() error { return nil }

// ReadFile appends the contents of a file to buf, decompressed if it is
// gzip or zstd, as the files source reads a document.
func ReadFile(buf []byte, name string) ([]byte, error) { return readWhole(buf, name) }
