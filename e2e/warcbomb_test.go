package e2e

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdWARCBomb writes a WARC file of three HTTP responses whose second is
// a decompression bomb of MIB mebibytes of zeros, made here (a file a
// thousand times smaller):
//
//	warcbomb body MIB FILE     the second's HTTP body is gzip (Content-Encoding)
//	warcbomb member MIB FILE   a .warc.gz, one gzip member a record, the
//	                           second's block the zeros themselves
func cmdWARCBomb(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 || args[0] != "body" && args[0] != "member" {
		ts.Fatalf("usage: warcbomb body|member MIB FILE")
	}
	mib, err := strconv.Atoi(args[1])
	ts.Check(err)
	zeros := make([]byte, 1<<20)
	var bomb bytes.Buffer
	if args[0] == "body" {
		zw, err := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
		ts.Check(err)
		for range mib {
			zw.Write(zeros)
		}
		ts.Check(zw.Close())
	}
	var out bytes.Buffer
	for i, text := range []string{"the first page", "", "the last page"} {
		var rec bytes.Buffer
		uri := fmt.Sprintf("http://example.com/%d", i+1)
		switch {
		case i != 1:
			writeResponse(&rec, uri, "", []byte(text))
		case args[0] == "body":
			writeResponse(&rec, uri, "Content-Encoding: gzip\r\n", bomb.Bytes())
		default:
			writeResponse(&rec, uri, "", bytes.Repeat(zeros, mib))
		}
		if args[0] == "body" {
			out.Write(rec.Bytes())
			continue
		}
		zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
		ts.Check(err)
		_, err = io.Copy(zw, &rec)
		ts.Check(err)
		ts.Check(zw.Close())
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out.Bytes(), 0o644))
}

// writeResponse writes a WARC response record of an HTTP response of
// body with the header fields more.
func writeResponse(w *bytes.Buffer, uri, more string, body []byte) {
	http := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n%sContent-Length: %d\r\n\r\n", more, len(body))
	fmt.Fprintf(w, "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s", uri, len(http)+len(body), http)
	w.Write(body)
	w.WriteString("\r\n\r\n")
}
