// Package input opens input files (standard input is "-") and reads the
// document formats neardup accepts: TSV "id TAB text", JSON Lines, one file
// per document, one line per document, and WARC records. gzip and zstd
// inputs are recognised by their magic bytes and decompressed
// transparently. Formats are registered (format.go): a name, file name
// endings, magic prefixes, and for formats read as records (WARC) a record
// reader. html.go takes the visible text of HTML (--text html).
package input
