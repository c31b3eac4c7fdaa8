//go:build unix

package stream

import (
	"bytes"
	"os"
	"slices"
	"syscall"
)

// readPlain appends the contents of a regular, uncompressed file to buf
// with bare system calls: open, fstat, read, close. Opening through os
// costs four more (Go tries to put the file in its poller and undoes it),
// which for a corpus of small files is a tenth of the time. A device, pipe
// or socket is refused (*notRegularError), and so is a file larger than
// MaxLine, without reading it. ok is false, with buf unchanged, for
// anything else (standard input, a directory, a file that cannot be
// opened, a gzip or zstd file), which the general path then reads.
func readPlain(buf []byte, name string) (_ []byte, ok bool, err error) {
	if name == "-" {
		return buf, false, nil
	}
	var fd int
	for {
		// O_NONBLOCK: opening a FIFO would wait for a writer.
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return buf, false, nil // the general path reports it
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return buf, false, nil
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
	case syscall.S_IFDIR:
		return buf, false, nil
	default:
		return buf, true, &notRegularError{name}
	}
	if st.Size > int64(MaxLine) {
		return buf, true, tooLarge(name)
	}
	start := len(buf)
	buf = slices.Grow(buf, int(st.Size)+1)
	for {
		if len(buf)-start > MaxLine {
			// A file that grew, or one of /proc, whose size is 0.
			return buf[:start], true, tooLarge(name)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):min(cap(buf), start+MaxLine+1)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf[:start], true, &os.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
		if len(buf)-start >= 4 && len(buf)-start == n && isCompressed(buf[start:]) {
			return buf[:start], false, nil
		}
		if st.Size > 0 && int64(len(buf)-start) >= st.Size {
			break // all fstat promised: no read to find the end
		}
	}
	if isCompressed(buf[start:]) {
		return buf[:start], false, nil
	}
	return buf, true, nil
}

func isCompressed(b []byte) bool {
	return bytes.HasPrefix(b, []byte{0x1f, 0x8b}) || bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd})
}
