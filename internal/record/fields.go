package record

import "bytes"

// Cut splits a line at its first TAB. ok is false when there is none.
func Cut(line []byte) (field, rest []byte, ok bool) {
	i := bytes.IndexByte(line, '\t')
	if i < 0 {
		return line, nil, false
	}
	return line[:i], line[i+1:], true
}

// SplitN splits line at TABs into exactly n fields and reports the count
// found when it is not n. The last field holds the rest of the line only if
// it has no TAB: a line with more than n fields is an error. A trailing empty
// field, which Hadoop Streaming adds to a record with no value, is accepted
// when n+1 fields are found and the last is empty.
func SplitN(dst [][]byte, line []byte, n int) ([][]byte, int) {
	dst = dst[:0]
	for len(dst) < n-1 {
		i := bytes.IndexByte(line, '\t')
		if i < 0 {
			dst = append(dst, line)
			return dst, len(dst)
		}
		dst = append(dst, line[:i])
		line = line[i+1:]
	}
	if i := bytes.IndexByte(line, '\t'); i >= 0 {
		if i == len(line)-1 {
			return append(dst, line[:i]), n
		}
		return dst, n + 1 + bytes.Count(line[i+1:], []byte{'\t'})
	}
	return append(dst, line), n
}

// TrimEOL removes a trailing LF and a CR before it.
func TrimEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}
