package ir

import "strings"

// Placeholders lists the {name} segments of a path template, in order.
func Placeholders(path string) []string {
	var out []string
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, path[i+1:i+j])
		path = path[i+j+1:]
	}
}

// Unfilled lists the placeholders of c's path that no parameter fills:
// none is declared for it, or the one declared has neither an argument nor
// a value source. Such a call could never be sent.
func (c *Call) Unfilled() []string {
	filled := map[string]bool{}
	for _, p := range c.Params {
		if p.In == InPath && (p.Arg != "" || p.Source.Hidden()) {
			filled[p.Name] = true
		}
	}
	var out []string
	for _, name := range Placeholders(c.Path) {
		if !filled[name] {
			out = append(out, name)
		}
	}
	return out
}
