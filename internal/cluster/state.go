package cluster

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/record"
)

// The state file of the leader method:
//
//	neardup-leaders 1 LF               magic and version
//	header lines LF … LF               the input's headers and the stage's own
//	LF                                 an empty line ends them
//	uvarint leaders, uvarint empty     counts
//	per leader: uvarint id length, id, uvarint cluster size, sketch (LeaderIndex.Save)
//	8 bytes                            XXH64 of all that, little-endian
//
// The index is rebuilt from the sketches when the state is loaded.
const stateMagic = "neardup-leaders 1\n"

// stateTarget is how the state (and the --report file) is replaced; the
// error refusing a file that is not regular names the state for both.
func stateTarget(name string) disk.Target {
	return disk.Target{Name: name, Mode: 0o644, What: "state"}
}

// saveState writes the leaders to name, atomically.
func saveState(name string, l *leaders, headers []record.Header) error {
	return disk.WriteFile(disk.OS{}, stateTarget(name), func(f io.Writer) error {
		d := xxhash.New()
		bw := bufio.NewWriterSize(io.MultiWriter(f, d), 1<<20)
		bw.WriteString(stateMagic)
		for _, h := range headers {
			bw.WriteString(h.String())
			bw.WriteByte('\n')
		}
		bw.WriteByte('\n')
		var tmp []byte
		uvarint := func(v uint64) {
			tmp = binary.AppendUvarint(tmp[:0], v)
			bw.Write(tmp)
		}
		uvarint(uint64(len(l.sizes)))
		uvarint(uint64(l.empty))
		for i, size := range l.sizes {
			name := l.name(uint32(i))
			uvarint(uint64(len(name)))
			bw.Write(name)
			uvarint(uint64(size))
			if err := l.index.Save(bw, uint32(i)); err != nil {
				return err
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		_, err := f.Write(binary.LittleEndian.AppendUint64(nil, d.Sum64()))
		return err
	})
}

// loadState reads the state file name into l, whose index is empty, and
// returns the header lines it holds. A missing file is an empty state.
func loadState(name string, l *leaders) ([]record.Header, error) {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: not a leader state file of this version, or damaged: %s", name, fmt.Sprintf(format, args...))
	}
	if st.Size() < int64(len(stateMagic))+8 {
		return nil, bad("too short")
	}
	d := xxhash.New()
	br := bufio.NewReaderSize(io.TeeReader(io.LimitReader(f, st.Size()-8), d), 1<<20)
	var headers []record.Header
	line, err := br.ReadString('\n')
	if err != nil || line != stateMagic {
		return nil, bad("it does not start with %q", stateMagic[:len(stateMagic)-1])
	}
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return nil, bad("the header lines do not end")
		}
		if len(line) == 1 {
			break
		}
		if !record.IsHeader(line) {
			return nil, bad("header line %q", bytes.TrimSpace(line))
		}
		h, err := record.ParseHeader(line)
		if err != nil {
			return nil, bad("%v", err)
		}
		headers = append(headers, h)
	}
	count, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, bad("no leader count")
	}
	empty, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, bad("no count of empty documents")
	}
	l.empty = int64(empty)
	var id []byte
	for i := uint64(0); i < count; i++ {
		n, err := binary.ReadUvarint(br)
		if err != nil || n > 1<<30 {
			return nil, bad("leader %d: bad id length", i)
		}
		id = append(id[:0], make([]byte, n)...)
		if _, err := io.ReadFull(br, id); err != nil {
			return nil, bad("leader %d: truncated", i)
		}
		size, err := binary.ReadUvarint(br)
		if err != nil || size == 0 || size > 1<<32-1 {
			return nil, bad("leader %d: bad cluster size", i)
		}
		if err := l.index.Load(br); err != nil {
			return nil, bad("leader %d: truncated sketch", i)
		}
		l.addLeader(id, uint32(size))
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, bad("bytes after the last leader")
	}
	var sum [8]byte
	if _, err := io.ReadFull(f, sum[:]); err != nil {
		return nil, bad("no checksum")
	}
	if binary.LittleEndian.Uint64(sum[:]) != d.Sum64() {
		return nil, bad("checksum mismatch")
	}
	return headers, nil
}
