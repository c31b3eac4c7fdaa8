// Package parts is the parts stage: it reads documents as shingle does and
// writes each part of each document, a paragraph or a window of word
// tokens, as a TSV document of its own,
//
//	doc#START-END TAB text
//
// whose id (record.AppendPartID) names the document and the byte range of
// the part in the document's text as the reader gives it (a TSV text
// unescaped, a JSON string decoded, a file's bytes), so that shingle,
// sketch, band, pairs, verify and cluster work on parts unchanged, and keep
// --drop-parts cuts the ranges chosen out of the corpus.
//
// Splitting (split.go) is a pure function of a document's text: Paragraphs
// (runs of non-blank lines) and Windows (of n tokens, every stride tokens,
// by shingle's word tokenizer). The stage runs on the stream pool, so its
// output is the same for any number of workers; memory is a document per
// worker: its parts are written as they are cut (EachParagraph, Windower),
// not held, however many they are.
package parts
