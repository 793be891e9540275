package lower

import "sync"

// schemaTexts keeps each distinct schema text of a tool set once. Tools
// share schemas: every operation that answers with one resource has the
// same outputSchema (in a CRUD API four of five), and operations with the
// same parameters the same inputSchema. A served tool set holds its
// schemas for as long as it runs, and they are most of its memory (a
// 50,000-operation spec: ~1.4 KB a tool), so equal texts are one string.
type schemaTexts struct {
	mu sync.Mutex
	m  map[string]string
}

// of returns the text of b, the same string for equal bytes; a nil
// schemaTexts returns a copy.
func (x *schemaTexts) of(b []byte) string {
	if x == nil || len(b) == 0 {
		return string(b)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if s, ok := x.m[string(b)]; ok { // no copy: the compiler looks up b as it is
		return s
	}
	s := string(b)
	x.m[s] = s
	return s
}

// ShareSchemas makes equal schema texts of s one string again, as Of
// made them: a tool set read back from tailor serve's cache (gob) holds a
// copy of each.
func ShareSchemas(s *Server) {
	texts := &schemaTexts{m: map[string]string{}}
	for _, t := range s.Tools {
		if t != nil && t.Def != nil {
			t.Def.InputSchema = texts.text(t.Def.InputSchema)
			t.Def.OutputSchema = texts.text(t.Def.OutputSchema)
		}
	}
}

// text is of for a string.
func (x *schemaTexts) text(s string) string {
	if s == "" {
		return s
	}
	if shared, ok := x.m[s]; ok {
		return shared
	}
	x.m[s] = s
	return s
}
