package curate

import (
	"fmt"

	"github.com/tailormcp/tailor/internal/generate/overlay"
	"github.com/tailormcp/tailor/internal/generate/tmplcheck"
	"github.com/tailormcp/tailor/mcpkit"
)

// messages checks overrides of mcpkit's built-in messages and returns them
// by id: each template must parse and read only the fields its message
// has. (overlay.Parse checked the ids.)
func (c *curator) messages(list []*overlay.Message, where string) map[string]string {
	if len(list) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, m := range list {
		msg, ok := mcpkit.LookupMessage(m.ID)
		if !ok {
			continue
		}
		scope := tmplcheck.Scope{}
		for _, f := range msg.Fields {
			scope[f.Name] = tmplcheck.Sym{}
		}
		text := m.Text
		c.checkTemplate(&text, fmt.Sprintf("%s `%s`", where, m.ID), scope)
		out[m.ID] = m.Text.S
	}
	return out
}
