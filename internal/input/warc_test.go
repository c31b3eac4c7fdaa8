package input

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
)

func warcRecord(typ, uri, block string, extra ...string) string {
	h := "WARC/1.0\r\nWARC-Type: " + typ + "\r\nWARC-Target-URI: <" + uri + ">\r\nWARC-Record-ID: <urn:uuid:" + typ + uri + ">\r\n"
	for _, e := range extra {
		h += e + "\r\n"
	}
	return h + "Content-Length: " + strconv.Itoa(len(block)) + "\r\n\r\n" + block + "\r\n\r\n"
}

func gzipMembers(t testing.TB, recs ...string) []byte {
	var out bytes.Buffer
	for _, r := range recs {
		zw := gzip.NewWriter(&out)
		zw.Write([]byte(r))
		zw.Close()
	}
	return out.Bytes()
}

var chunkedHTML = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n" +
	"e\r\n<p>Hello &amp;\r\n8\r\n world</\r\n2\r\np>\r\n0\r\n\r\n"

func readWARC(t testing.TB, name string, data []byte, r Reading) (ids, texts []string, stored [][]byte) {
	w := NewWARCReader(name, bytes.NewReader(data), true)
	var buf []byte
	var s Scratch
	for {
		rec, b, err := w.Next(buf)
		buf = b
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, rec.Stored)
		if rec.Kind != RecordDocument {
			continue
		}
		id, text, err := warcDocument(&rec, r, &s)
		if err != nil {
			t.Fatal(err)
		}
		ids, texts = append(ids, string(id)), append(texts, string(text))
	}
}

func TestWARCReader(t *testing.T) {
	recs := []string{
		warcRecord("warcinfo", "", "software: test\r\n"),
		warcRecord("request", "http://x/a", "GET /a HTTP/1.1\r\n\r\n"),
		warcRecord("response", "http://x/a", chunkedHTML, "Content-Type: application/http;msgtype=response"),
		warcRecord("response", "dns:x", "x. 300 IN A 1.2.3.4", "Content-Type: text/dns"),
		warcRecord("resource", "http://x/b.txt", "plain text"),
	}
	r := DefaultReading()
	r.Text = TextAuto
	for _, data := range [][]byte{[]byte(strings.Join(recs, "")), gzipMembers(t, recs...)} {
		ids, texts, stored := readWARC(t, "t.warc", data, r)
		if strings.Join(ids, " ") != "http://x/a http://x/b.txt" || texts[0] != "Hello & world" || texts[1] != "plain text" {
			t.Errorf("ids %q texts %q", ids, texts)
		}
		if !bytes.Equal(bytes.Join(stored, nil), withoutMember(t, data, 3)) {
			t.Error("the records as stored are not the input's bytes (but the non-HTTP response)")
		}
	}
}

// withoutMember removes the i-th record from plain or gzip WARC data.
func withoutMember(t testing.TB, data []byte, i int) []byte {
	var parts [][]byte
	w := NewWARCReader("", bytes.NewReader(data), true)
	var buf []byte
	for {
		rec, b, err := w.next(buf)
		buf = b
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, rec.Stored)
	}
	parts = append(parts[:i], parts[i+1:]...)
	return bytes.Join(parts, nil)
}

func TestHTMLText(t *testing.T) {
	src := `<!doctype html><html><head><title>T</title><script>x()</script><style>p{}</style></head><body>
<nav class="x">Menu</nav><div id="cookie-banner">Cookies</div><h1>Head&nbsp;line</h1><p>One <b>two</b>
three<p>Four &lt;5&gt;<template>no</template><noscript>no</noscript></body></html>`
	if got := string(HTMLText(nil, []byte(src), false)); got != "T\nMenu\nCookies\nHead line\nOne two three\nFour <5>" {
		t.Errorf("HTMLText = %q", got)
	}
	if got := string(HTMLText(nil, []byte(src), true)); got != "T\nHead line\nOne two three\nFour <5>" {
		t.Errorf("HTMLText main = %q", got)
	}
}

func FuzzWARCReader(f *testing.F) {
	rec := warcRecord("response", "http://x/a", chunkedHTML, "Content-Type: application/http;msgtype=response")
	f.Add([]byte(rec))
	f.Add(gzipMembers(f, rec, warcRecord("resource", "u", "t")))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		w := NewWARCReader("f", bytes.NewReader(data), true)
		var buf []byte
		var s Scratch
		r := DefaultReading()
		r.Text = TextAuto
		for {
			rec, b, err := w.Next(buf)
			buf = b
			if err != nil {
				return
			}
			if !w.gz && !bytes.Contains(data, rec.Stored) {
				t.Fatal("a plain record's stored bytes are not in the input")
			}
			if rec.Kind == RecordDocument {
				warcDocument(&rec, r, &s)
			}
		}
	})
}

func BenchmarkWARCReader(b *testing.B) {
	page := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body>" + strings.Repeat("<p>Some text of a page, with words. </p>", 200) + "</body></html>"
	var recs []string
	for i := 0; i < 100; i++ {
		recs = append(recs, warcRecord("response", "http://x/"+strconv.Itoa(i), page, "Content-Type: application/http;msgtype=response"))
	}
	data := gzipMembers(b, recs...)
	r := DefaultReading()
	r.Text = TextAuto
	b.SetBytes(int64(len(strings.Join(recs, ""))))
	b.ReportAllocs()
	for b.Loop() {
		readWARC(b, "b", data, r)
	}
}

func TestHTTPBodyEncodings(t *testing.T) {
	body := []byte("<p>the body, encoded</p>")
	var gz, zl, raw, br bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body)
	zw.Close()
	fw := zlib.NewWriter(&zl)
	fw.Write(body)
	fw.Close()
	rw, _ := flate.NewWriter(&raw, flate.DefaultCompression)
	rw.Write(body)
	rw.Close()
	bw := brotli.NewWriter(&br)
	bw.Write(body)
	bw.Close()
	for _, tc := range []struct {
		enc  string
		data []byte
	}{{"gzip", gz.Bytes()}, {"deflate", zl.Bytes()}, {"deflate", raw.Bytes()}, {"br", br.Bytes()}, {"identity", body}} {
		resp := "HTTP/1.1 200 OK\r\nContent-Encoding: " + tc.enc + "\r\nContent-Type: text/plain\r\n\r\n" + string(tc.data)
		got, ct, err := httpBody([]byte(resp), &Scratch{})
		if err != nil || !bytes.Equal(got, body) || string(ct) != "text/plain" {
			t.Errorf("%s: %q %q %v", tc.enc, got, ct, err)
		}
	}
	if _, _, err := httpBody([]byte("HTTP/1.1 200 OK\r\nContent-Encoding: zstd\r\n\r\nxx"), &Scratch{}); err == nil || !strings.Contains(err.Error(), `"zstd": not supported`) {
		t.Errorf("an unknown encoding: %v", err)
	}
}

func TestWARCErrors(t *testing.T) {
	good := warcRecord("resource", "u", "text")
	for _, tc := range []struct {
		name, data, want string
	}{
		{"not WARC", "hello\r\n\r\n", "t.warc: record 1 at byte 0: want a WARC version line"},
		{"cut short", good + good[:len(good)-6], "t.warc: record 2 at byte " + strconv.Itoa(len(good)) + ": the file ends inside the record"},
		{"no length", "WARC/1.0\r\nWARC-Type: resource\r\n\r\n", "no Content-Length"},
		{"bad trailer", strings.Replace(good, "text\r\n\r\n", "textXXXX", 1), "not followed by CRLF CRLF"},
	} {
		w := NewWARCReader("t.warc", strings.NewReader(tc.data), false)
		var err error
		for err == nil {
			_, _, err = w.Next(nil)
		}
		if err == io.EOF || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// A record of a response whose body can't be decoded names its place.
	rec := warcRecord("response", "http://x/", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\nnot gzip", "Content-Type: application/http")
	p := NewReadingParser(DefaultReading(), nil)
	w := NewWARCReader("t.warc", strings.NewReader(good+rec), false)
	w.Next(nil)
	r, _, err := w.Next(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = p.Record(FormatWARC, "t.warc", &r, 2)
	if err == nil || !strings.HasPrefix(err.Error(), "t.warc: record 2 at byte "+strconv.Itoa(len(good))+": Content-Encoding gzip:") {
		t.Errorf("a bad body: %v", err)
	}
}

func TestWARCIDs(t *testing.T) {
	data := []byte(warcRecord("resource", "http://x/a", "text"))
	for field, want := range map[string]string{"id": "http://x/a", "uri": "http://x/a", "record-id": "urn:uuid:resourcehttp://x/a", "WARC-Type": "resource"} {
		r := DefaultReading()
		r.IDField = field
		ids, _, _ := readWARC(t, "t", data, r)
		if len(ids) != 1 || ids[0] != want {
			t.Errorf("--id-field %s: %q, want %q", field, ids, want)
		}
	}
}

func FuzzHTMLText(f *testing.F) {
	f.Add([]byte(`<html><nav class=menu>x</nav><p>a &amp; b<script>c</script></p></html>`), true)
	f.Add([]byte(`<div><p>unclosed<li>item</div></p></b>`), false)
	f.Fuzz(func(t *testing.T, src []byte, main bool) {
		if len(src) > 1<<16 {
			return
		}
		got := HTMLText(nil, src, main)
		// Text without '<' or '&' has no markup or entity left: taken
		// again, only its line breaks become spaces.
		if bytes.IndexByte(got, '<') < 0 && bytes.IndexByte(got, '&') < 0 {
			want := bytes.ReplaceAll(got, []byte("\n"), []byte(" "))
			if again := HTMLText(nil, got, main); !bytes.Equal(again, want) {
				t.Fatalf("HTMLText(%q) = %q, again %q", src, got, again)
			}
		}
	})
}

// TestWARCZstd: a zstd-compressed WARC is read decompressed, but can't be
// read as stored (keep).
func TestWARCZstd(t *testing.T) {
	data := zstded(t, []byte(warcRecord("resource", "http://x/a", "text")))
	f, err := Wrap("t.warc.zst", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if f.Sniffed != FormatWARC {
		t.Errorf("Sniffed = %q", f.Sniffed)
	}
	rr, err := openWARC(f, DefaultReading(), false)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := rr.Next(nil)
	if err != nil || rec.Kind != RecordDocument {
		t.Errorf("Next: %v %v", rec.Kind, err)
	}
	if _, err := openWARC(f, DefaultReading(), true); err == nil || !strings.Contains(err.Error(), "t.warc.zst: zstd-compressed: keep writes each WARC record as stored") {
		t.Errorf("stored: %v", err)
	}
}
