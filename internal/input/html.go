package input

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Text modes (--text): how the text of a document is taken.
const (
	// TextRaw shingles the document as it is (markup too).
	TextRaw = "raw"
	// TextHTML shingles the visible text of HTML (HTMLText).
	TextHTML = "html"
	// TextAuto is TextHTML for HTML documents (a Content-Type text/html or
	// application/xhtml+xml for WARC records; else a document that starts
	// with <!doctype html or <html) and TextRaw for the others.
	TextAuto = "auto"
)

// ParseText checks a --text value.
func ParseText(mode string) (string, error) {
	switch mode {
	case TextRaw, TextHTML, TextAuto:
		return mode, nil
	}
	return "", fmt.Errorf("unknown --text %q: want raw, html or auto", mode)
}

// TextOf returns the text a document's content gives under r's text mode:
// contentType is its media type when the format says (WARC), else empty.
// The result may be content itself or live in s.Text.
func TextOf(content, contentType []byte, r Reading, s *Scratch) []byte {
	switch r.Text {
	case TextHTML:
	case TextAuto:
		if !IsHTML(content, contentType) {
			return content
		}
	default:
		return content
	}
	s.Text = HTMLText(s.Text[:0], content, r.Main)
	return s.Text
}

// IsHTML says whether a document is HTML: by its media type when given,
// else by its start (<!doctype html or <html, after white space).
func IsHTML(content, contentType []byte) bool {
	if len(contentType) > 0 {
		mt := strings.ToLower(strings.TrimSpace(strings.SplitN(string(contentType), ";", 2)[0]))
		return mt == "text/html" || mt == "application/xhtml+xml"
	}
	t := bytes.TrimLeft(content, " \t\r\n\ufeff")
	if len(t) > 15 {
		t = t[:15]
	}
	l := strings.ToLower(string(t))
	return strings.HasPrefix(l, "<!doctype html") || strings.HasPrefix(l, "<html")
}

// dropped are the elements whose content is not visible text.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Template: true, atom.Noscript: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Select: true,
}

// boilerplate are the elements that main content (--main) drops.
var boilerplate = map[atom.Atom]bool{
	atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true,
}

// boilerplateWords in a class or id mark an element main content drops.
var boilerplateWords = []string{"menu", "nav", "footer", "sidebar", "cookie", "breadcrumb", "related"}

// block are the elements that break the text: a line between them.
var block = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Br: true, atom.Dd: true, atom.Details: true, atom.Dialog: true, atom.Div: true,
	atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true,
	atom.Hr: true, atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true,
	atom.P: true, atom.Pre: true, atom.Section: true, atom.Table: true, atom.Tr: true,
	atom.Td: true, atom.Th: true, atom.Ul: true, atom.Title: true, atom.Summary: true,
	atom.Caption: true, atom.Option: true, atom.Body: true, atom.Html: true,
}

// maxHTMLDepth bounds the elements tracked open; deeper ones are not
// dropped by kind (their text is kept), as a browser would show it.
const maxHTMLDepth = 512

// HTMLText appends to dst the visible text of an HTML document: the
// content of script, style, template, noscript (and svg, math, iframe,
// object, select) dropped, markup dropped, entities decoded, runs of white
// space one space, and a line break between block elements (p, div, li,
// h1…, br, tr, td…). With main only the main content: nav, header, footer
// and aside dropped, and elements whose class or id holds menu, nav,
// footer, sidebar, cookie, breadcrumb or related.
func HTMLText(dst, src []byte, main bool) []byte {
	z := html.NewTokenizer(bytes.NewReader(src))
	// skip counts the open elements whose content is dropped; the stack
	// holds the open elements.
	type open struct {
		a    atom.Atom
		drop bool
	}
	var stack []open
	skip := 0
	space := true // the text so far ends in white space (or is empty)
	lineEnd := true
	breakLine := func() {
		if len(dst) > 0 && !lineEnd {
			// A trailing space before the break is dropped.
			dst = bytes.TrimRight(dst, " ")
			dst = append(dst, '\n')
			lineEnd, space = true, true
		}
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return bytes.TrimRight(dst, " \n")
		case html.TextToken:
			if skip > 0 {
				continue
			}
			for _, r := range string(z.Text()) {
				if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\u00a0' {
					if !space {
						dst = append(dst, ' ')
						space = true
					}
					continue
				}
				dst = append(dst, string(r)...)
				space, lineEnd = false, false
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if block[a] {
				breakLine()
			}
			if tt == html.EndTagToken {
				if isVoid(a) {
					continue
				}
				// Close up to the matching element: unclosed ones inside
				// it (a p, an li) close with it; an end tag that matches
				// no open element is passed over.
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i].a != a {
						continue
					}
					for _, o := range stack[i:] {
						if o.drop {
							skip--
						}
					}
					stack = stack[:i]
					break
				}
				continue
			}
			if tt == html.SelfClosingTagToken || isVoid(a) {
				continue
			}
			drop := dropped[a]
			if main && !drop {
				drop = boilerplate[a] || hasAttr && boilerplateAttr(z)
			}
			if len(stack) < maxHTMLDepth {
				stack = append(stack, open{a, drop})
				if drop {
					skip++
				}
			}
		}
	}
}

// isVoid says whether an element has no end tag.
func isVoid(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img,
		atom.Input, atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

// boilerplateAttr says whether the tag's class or id names boilerplate.
func boilerplateAttr(z *html.Tokenizer) bool {
	for {
		k, v, more := z.TagAttr()
		if key := string(k); key == "class" || key == "id" || key == "role" {
			l := strings.ToLower(string(v))
			for _, w := range boilerplateWords {
				if strings.Contains(l, w) {
					return true
				}
			}
			if key == "role" && (l == "navigation" || l == "banner" || l == "contentinfo") {
				return true
			}
		}
		if !more {
			return false
		}
	}
}
