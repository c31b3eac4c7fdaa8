package parts

import (
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/token"
)

// benchText is prose and code in paragraphs, some 64 KB.
var benchText = []byte(strings.Repeat("// Copyright 2009 The Go Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n\npackage strings\n\nfunc Index(s, substr string) int {\n\tn := len(substr)\n\treturn -1\n}\n\n", 300))

func BenchmarkParagraphs(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchText)))
	var rs []Range
	for b.Loop() {
		rs = Paragraphs(rs[:0], benchText)
	}
}

func BenchmarkWindows(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchText)))
	var tok token.Tokenizer
	var spans []token.Span
	var rs []Range
	ns := []int{}
	for b.Loop() {
		spans = tok.AppendSpans(spans[:0], benchText)
		rs, ns = Windows(rs[:0], ns[:0], spans, 50, 25)
	}
}
