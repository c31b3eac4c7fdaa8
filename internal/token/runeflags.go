package token

import (
	"sync"
	"unicode"
)

// Rune flags: what the tokenizer and the char normalizer ask of a rune,
// answered once for every rune of the Basic Multilingual Plane (a 64 KiB
// table made the first time a text has a rune outside ASCII) instead of by
// the unicode package's range tables for every rune of every text: they
// made Cyrillic, Chinese and Japanese text shingle at a third of the speed
// of ASCII. Each flag but rfCased is of the rune lower-cased.
const (
	rfCased    = 1 << iota // unicode.ToLower changes the rune
	rfWord                 // isWordRune: a letter or digit
	rfSingle               // isSingleRuneToken: Han, Hiragana, Katakana, Hangul
	rfCharWord             // isCharWordRune: a letter, digit or mark
	rfSpace                // isSpace
)

var (
	bmpOnce  sync.Once
	bmpFlags *[0x10000]uint8
)

// flagsOf computes the flags of r.
func flagsOf(r rune) uint8 {
	var f uint8
	l := unicode.ToLower(r)
	if l != r {
		f |= rfCased
	}
	if isWordRune(l) {
		f |= rfWord
	}
	if isSingleRuneToken(l) {
		f |= rfSingle
	}
	if isCharWordRune(l) {
		f |= rfCharWord
	}
	if isSpace(l) {
		f |= rfSpace
	}
	return f
}

// asciiFlags are the flags of the ASCII runes.
var asciiFlags = func() (t [0x80]uint8) {
	for c := range rune(0x80) {
		t[c] = flagsOf(c)
	}
	return t
}()

// runeFlags returns the flags of r: from the table in the BMP.
func runeFlags(r rune) uint8 {
	if uint32(r) >= 0x10000 {
		return flagsOf(r)
	}
	return bmpTable()[r]
}

// bmpTable returns the flags of every rune of the BMP, made on first use.
func bmpTable() *[0x10000]uint8 {
	bmpOnce.Do(func() {
		t := new([0x10000]uint8)
		for r := range rune(0x10000) {
			t[r] = flagsOf(r)
		}
		bmpFlags = t
	})
	return bmpFlags
}

// lowerOf returns r lower-cased, given its flags.
func lowerOf(r rune, f uint8) rune {
	if f&rfCased != 0 {
		return unicode.ToLower(r)
	}
	return r
}
