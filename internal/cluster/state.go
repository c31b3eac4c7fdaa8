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
//	neardup-leaders 3 LF               magic and version
//	header lines LF … LF               the input's headers and the stage's own
//	LF                                 an empty line ends them
//	uvarint leaders, uvarint empty     counts
//	per leader: uvarint id length, id, uvarint cluster size, sketch (LeaderIndex.Save),
//	    and with centre=majority in the stage's header f varint counters (centres.save),
//	    with centre=mean dim float64 sums, little-endian (meanCentres.save)
//	8 bytes                            XXH64 of all that, little-endian
//
// The sketch is the centre's fingerprint with centre=majority or
// centre=mean, else the leader's. The index is rebuilt from the sketches
// when the state is loaded. Version 2 is version 3 without centre=mean
// and with cluster sizes below 2^32 (version 3 counts members in 64 bits);
// it loads as before. Version 1, from before --update-centre, is version 2
// without counters: it loads, its centres the leaders.
const (
	stateMagic   = "neardup-leaders 3\n"
	stateMagicV2 = "neardup-leaders 2\n"
	stateMagicV1 = "neardup-leaders 1\n"
)

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
			if l.centres != nil {
				if err := l.centres.save(bw, uint32(i)); err != nil {
					return err
				}
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		_, err := f.Write(binary.LittleEndian.AppendUint64(nil, d.Sum64()))
		return err
	})
}

// loadState reads the state file name into l, whose index is empty,
// giving check the header lines it holds before it reads the leaders, so
// that a state made otherwise is refused as such. A missing file is an
// empty state.
func loadState(name string, l *leaders, check func([]record.Header) error) error {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: not a leader state file of this version, or damaged: %s", name, fmt.Sprintf(format, args...))
	}
	if st.Size() < int64(len(stateMagic))+8 {
		return bad("too short")
	}
	d := xxhash.New()
	br := bufio.NewReaderSize(io.TeeReader(io.LimitReader(f, st.Size()-8), d), 1<<20)
	var headers []record.Header
	line, err := br.ReadString('\n')
	if err != nil || line != stateMagic && line != stateMagicV2 && line != stateMagicV1 {
		return bad("it does not start with %q", stateMagic[:len(stateMagic)-1])
	}
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return bad("the header lines do not end")
		}
		if len(line) == 1 {
			break
		}
		if !record.IsHeader(line) {
			return bad("header line %q", bytes.TrimSpace(line))
		}
		h, err := record.ParseHeader(line)
		if err != nil {
			return bad("%v", err)
		}
		headers = append(headers, h)
	}
	if err := check(headers); err != nil {
		return err
	}
	if line == stateMagicV1 && l.centres != nil {
		return bad("version 1 has no centres")
	}
	count, err := binary.ReadUvarint(br)
	if err != nil {
		return bad("no leader count")
	}
	empty, err := binary.ReadUvarint(br)
	if err != nil {
		return bad("no count of empty documents")
	}
	l.empty = int64(empty)
	var id []byte
	for i := uint64(0); i < count; i++ {
		n, err := binary.ReadUvarint(br)
		if err != nil || n > 1<<30 {
			return bad("leader %d: bad id length", i)
		}
		id = append(id[:0], make([]byte, n)...)
		if _, err := io.ReadFull(br, id); err != nil {
			return bad("leader %d: truncated", i)
		}
		size, err := binary.ReadUvarint(br)
		if err != nil || size == 0 {
			return bad("leader %d: bad cluster size", i)
		}
		if err := l.index.Load(br); err != nil {
			return bad("leader %d: truncated sketch", i)
		}
		if l.centres != nil {
			if err := l.centres.load(br, uint32(i), size); err != nil {
				return bad("leader %d: %v", i, err)
			}
		}
		l.addLeader(id, size)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return bad("bytes after the last leader")
	}
	var sum [8]byte
	if _, err := io.ReadFull(f, sum[:]); err != nil {
		return bad("no checksum")
	}
	if binary.LittleEndian.Uint64(sum[:]) != d.Sum64() {
		return bad("checksum mismatch")
	}
	return nil
}
