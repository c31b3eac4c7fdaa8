// Package synth generates a synthetic corpus with planted near-duplicates at
// known rates, and the ground truth of what was planted, for end-to-end tests
// of recall and for benchmarks.
//
// Every document is made from a seed and its own number alone, so the corpus
// is the same for a seed whatever is asked of it, documents can be made in
// any order, and a corpus of any size streams in constant memory.
//
// An original document is a run of words drawn from a vocabulary of made-up
// words (consonant-vowel syllables) under a Zipf law: the word of rank r has
// probability proportional to 1/r^s. Its length is drawn log-uniformly
// between MinWords and MaxWords, or (Lengths = Crawl) as a crawl's pages
// are: log-normal around MedianWords, with a heavy tail. The words are
// written as sentences of 4 to 23 words, the first capitalised, ended by a
// full stop, with a line break between paragraphs.
//
// A planted document is made from an earlier original, its source, chosen
// uniformly among the originals before it. It is one of:
//
//	exact    the source's text, byte for byte;
//	edit     the source's words, each deleted with probability Delete, else
//	         substituted by another word with probability Substitute, and
//	         followed by an inserted word with probability Insert;
//	contain  the source's words inside a larger document: new words before
//	         and after them, as many in all as a fraction of the source's
//	         length drawn uniformly from [0, ContainExtra].
//
// The ground truth has one line per planted document, "copy TAB source TAB
// kind". Two planted documents of one source are near-duplicates of each
// other as well; the ground truth lists only what was planted.
package synth
