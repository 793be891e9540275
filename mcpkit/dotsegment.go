package mcpkit

import (
	"net/url"
	"strings"
)

// maxUnescapes bounds how many layers of percent-encoding a path segment is
// looked through: a proxy or a framework in front of the API may decode a
// segment once more than the API itself does, so "%252E%252E" is ".." two
// decodings away.
const maxUnescapes = 4

// dotSegment reports whether the path segment seg, as escaped into the
// request, is or decodes to "." or "..": RFC 3986 removes such segments
// (and the one before a ".."), and proxies normalise them, so a value that
// makes one would move the request to another path however it is escaped.
func dotSegment(seg string) bool {
	for range maxUnescapes {
		if seg == "." || seg == ".." {
			return true
		}
		next, err := url.PathUnescape(seg)
		if err != nil || next == seg {
			return false
		}
		seg = next
	}
	return seg == "." || seg == ".."
}

// templateSegment returns the segment of the path template that holds the
// placeholder {name}, and whether it was found.
func templateSegment(template, name string) (string, bool) {
	ph := "{" + name + "}"
	for seg := range strings.SplitSeq(template, "/") {
		if strings.Contains(seg, ph) {
			return seg, true
		}
	}
	return "", false
}

// checkSegment refuses the request when the segment holding {name}, with
// every placeholder in it filled, is a dot segment. It runs as each path
// value is filled, so it sees a segment made of several placeholders once
// the last of them is.
func (r *Request) checkSegment(name string) {
	seg, ok := templateSegment(r.template, name)
	if !ok {
		return
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(seg, '{')
		if i < 0 {
			b.WriteString(seg)
			break
		}
		j := strings.IndexByte(seg[i:], '}')
		if j < 0 {
			b.WriteString(seg)
			break
		}
		v, filled := r.path[seg[i+1:i+j]]
		if !filled {
			return
		}
		b.WriteString(seg[:i])
		b.WriteString(v)
		seg = seg[i+j+1:]
	}
	if dotSegment(b.String()) {
		r.fail("argument for path parameter %q makes the path segment %q, which reads as %q: a relative step that would move the request to another path instead of naming an item", name, b.String(), dotForm(b.String()))
	}
}

// dotForm is what a dot segment decodes to, for the message.
func dotForm(seg string) string {
	for range maxUnescapes {
		if seg == "." || seg == ".." {
			break
		}
		next, err := url.PathUnescape(seg)
		if err != nil || next == seg {
			break
		}
		seg = next
	}
	return seg
}
