package synth

import (
	"bufio"
	"io"
	"strconv"

	"github.com/neardup/neardup/internal/record"
)

// Stats count what a corpus holds.
type Stats struct {
	Docs  int
	Bytes int64 // bytes of documents written, line ends included
	// Kinds counts the documents of each kind.
	Kinds [4]int
}

// Write writes the corpus of opt to w, one document a line, and, when truth
// is not nil, the ground truth to it: "copy TAB source TAB kind" for every
// planted document, in the order of the corpus.
func Write(w, truth io.Writer, opt Options) (Stats, error) {
	return WriteJobs(w, truth, opt, 1)
}

// WriteJobs is Write with jobs generators making blocks of documents in
// parallel; the output is the same for any jobs.
func WriteJobs(w, truth io.Writer, opt Options, jobs int) (Stats, error) {
	if err := opt.Check(); err != nil {
		return Stats{}, err
	}
	jobs = max(jobs, 1)
	// Block b holds documents b*blockDocs up to the next block; worker k
	// makes blocks k, k+jobs, …, each sent on its own channel in turn, so
	// that they are written in order.
	const blockDocs = 256
	type block struct {
		lines, truth []byte
		st           Stats
	}
	// Each worker's blocks go back to it once written (free), so a corpus
	// of any size streams in constant memory.
	blocks := (opt.Docs + blockDocs - 1) / blockDocs
	chans, free := make([]chan *block, jobs), make([]chan *block, jobs)
	done := make(chan struct{})
	defer close(done)
	for k := range jobs {
		chans[k], free[k] = make(chan *block, 2), make(chan *block, 3)
		for range 3 {
			free[k] <- new(block)
		}
		go func() {
			g, _ := New(opt) // checked above
			var text []byte
			for b := k; b < blocks; b += jobs {
				var blk *block
				select {
				case blk = <-free[k]:
				case <-done:
					return
				}
				blk.lines, blk.truth, blk.st = blk.lines[:0], blk.truth[:0], Stats{}
				for i := b * blockDocs; i < min((b+1)*blockDocs, opt.Docs); i++ {
					var p Plant
					text, p = g.AppendText(text[:0], i)
					n := len(blk.lines)
					blk.lines = g.appendLine(blk.lines, i, text)
					blk.st.Docs++
					blk.st.Bytes += int64(len(blk.lines) - n)
					blk.st.Kinds[p.Kind]++
					if truth != nil && p.Kind != Original {
						blk.truth = g.AppendID(blk.truth, i)
						blk.truth = append(blk.truth, '\t')
						blk.truth = g.AppendID(blk.truth, p.Source)
						blk.truth = append(blk.truth, '\t')
						blk.truth = append(blk.truth, p.Kind.String()...)
						blk.truth = append(blk.truth, '\n')
					}
				}
				select {
				case chans[k] <- blk:
				case <-done:
					return
				}
			}
		}()
	}
	out := bufio.NewWriterSize(w, 1<<20)
	var tw *bufio.Writer
	if truth != nil {
		tw = bufio.NewWriterSize(truth, 64<<10)
	}
	var st Stats
	for b := range blocks {
		blk := <-chans[b%jobs]
		if _, err := out.Write(blk.lines); err != nil {
			return st, err
		}
		st.Docs += blk.st.Docs
		st.Bytes += blk.st.Bytes
		for k, n := range blk.st.Kinds {
			st.Kinds[k] += n
		}
		if tw != nil {
			if _, err := tw.Write(blk.truth); err != nil {
				return st, err
			}
		}
		free[b%jobs] <- blk
	}
	if tw != nil {
		if err := tw.Flush(); err != nil {
			return st, err
		}
	}
	return st, out.Flush()
}

// appendLine appends document i with text as one line in the output format.
func (g *Generator) appendLine(dst []byte, i int, text []byte) []byte {
	if g.opt.Format == JSONL {
		dst = append(dst, `{"id":"`...)
		dst = g.AppendID(dst, i)
		dst = append(dst, `","text":`...)
		dst = appendJSONString(dst, text)
		return append(dst, "}\n"...)
	}
	dst = g.AppendID(dst, i)
	dst = append(dst, '\t')
	dst = record.Escape(dst, text)
	return append(dst, '\n')
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, `\u00`...)
			dst = strconv.AppendUint(dst, uint64(c)>>4, 16)
			dst = strconv.AppendUint(dst, uint64(c)&0xf, 16)
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
