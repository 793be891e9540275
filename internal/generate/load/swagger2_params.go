package load

import (
	"maps"
	"slices"
	"sync"

	"github.com/getkin/kin-openapi/openapi2"
)

// paramMemo holds the parameters decoded so far by their text, for every
// decode job of a document. What it holds is never handed out: each use
// gets a copy (cloneParameter).
type paramMemo struct {
	mu sync.Mutex
	m  map[string]*openapi2.Parameter
}

func (pm *paramMemo) get(raw []byte) *openapi2.Parameter {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	return pm.m[string(raw)]
}

func (pm *paramMemo) put(raw []byte, p *openapi2.Parameter) {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	pm.m[string(raw)] = p
}

// cloneParameter copies a parameter without a schema or items, sharing
// nothing a later stage could change: what a fresh decode of its text
// would make. TestCloneParameterCopiesEveryField fails when kin-openapi's
// Parameter gains a field this does not know.
func cloneParameter(p *openapi2.Parameter) *openapi2.Parameter {
	c := *p
	if p.Extensions != nil {
		c.Extensions = cloneJSON(p.Extensions).(map[string]any)
	}
	if p.Type != nil {
		t := slices.Clone(*p.Type)
		c.Type = &t
	}
	if p.Enum != nil {
		c.Enum = cloneJSON(p.Enum).([]any)
	}
	c.Default = cloneJSON(p.Default)
	c.MultipleOf, c.Minimum, c.Maximum = clonePtr(p.MultipleOf), clonePtr(p.Minimum), clonePtr(p.Maximum)
	c.MaxLength, c.MaxItems = clonePtr(p.MaxLength), clonePtr(p.MaxItems)
	return &c
}

// cloneJSON copies a value encoding/json decoded into an any.
func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		c := maps.Clone(v)
		for k, e := range c {
			c[k] = cloneJSON(e)
		}
		return c
	case []any:
		c := slices.Clone(v)
		for i, e := range c {
			c[i] = cloneJSON(e)
		}
		return c
	}
	return v // a string, a float64, a bool or nil
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
