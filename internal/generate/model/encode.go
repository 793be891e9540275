package model

import (
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/schema"
	"github.com/tailormcp/tailor/internal/parallel"
)

// The tools' schemas are converted in operation order, one tool after the
// other: the $defs names and the warnings of a component shared by many
// tools go to the first that reaches it. Encoding the converted schemas
// as JSON depends on nothing but them, so it waits until every tool is
// converted and then runs on every core.

// encoding is one schema document converted, and its JSON once encoded.
type encoding struct {
	doc  *schema.Doc
	root map[string]any
	json []byte
}

// toolSchemas are a tool's input and output schema (out nil for none).
type toolSchemas struct {
	tool    *ir.Tool
	in, out *encoding
}

// encode queues root, converted in doc, for encodeAll.
func (b *builder) encode(doc *schema.Doc, root map[string]any) *encoding {
	e := &encoding{doc: doc, root: root}
	b.encodings = append(b.encodings, e)
	return e
}

// encodeAll encodes every queued schema and gives the tools theirs.
func (b *builder) encodeAll() {
	parallel.For(len(b.encodings), func(i int) {
		e := b.encodings[i]
		e.json = e.doc.Marshal(e.root)
	})
	for _, ts := range b.schemas {
		ts.tool.InputSchema = ts.in.json
		if ts.out != nil {
			ts.tool.OutputSchema = ts.out.json
		}
	}
	b.encodings, b.schemas = nil, nil
}
