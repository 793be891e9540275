package model

import (
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/schema"
	"github.com/tailormcp/tailor/internal/parallel"
)

// The tools' schemas are converted in operation order, one tool after the
// other: the $defs names and the warnings of a component shared by many
// tools go to the first that reaches it. Encoding a converted schema as
// JSON depends on nothing but it and the components it reaches, which are
// whole once its tool is converted; so the converted schemas are encoded
// on every core in batches, between tools, and their values let go: the
// values of every tool at once would be live beside the document (stripe:
// about 5 MB more at the generator's peak).

// encodeBatch is how many converted schemas wait for encoding: enough that
// the cores share a batch evenly, few enough that their values are a small
// part of the heap.
var encodeBatch = 64 // a variable for its test

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

// encode queues root, converted in doc, for encodePending.
func (b *builder) encode(doc *schema.Doc, root map[string]any) *encoding {
	e := &encoding{doc: doc, root: root}
	b.encodings = append(b.encodings, e)
	return e
}

// encodeFull encodes the queued schemas when a batch is full; no
// conversion may run beside it.
func (b *builder) encodeFull() {
	if len(b.encodings) >= encodeBatch {
		b.encodePending()
	}
}

// encodePending encodes every queued schema and lets go of its value.
func (b *builder) encodePending() {
	parallel.For(len(b.encodings), func(i int) {
		e := b.encodings[i]
		e.json = e.doc.Marshal(e.root)
		e.doc, e.root = nil, nil
	})
	clear(b.encodings)
	b.encodings = b.encodings[:0]
}

// encodeAll encodes what is still queued and gives the tools their schemas.
func (b *builder) encodeAll() {
	b.encodePending()
	for _, ts := range b.schemas {
		ts.tool.InputSchema = ts.in.json
		if ts.out != nil {
			ts.tool.OutputSchema = ts.out.json
		}
	}
	b.encodings, b.schemas = nil, nil
}
