package schema

import (
	"fmt"
	"sync"

	"github.com/segmentio/encoding/json"
)

// Marshal encodes v as compact JSON with sorted keys, without HTML
// escaping (descriptions keep their < and >): how the generator writes
// every schema. The bytes are encoding/json's (an Encoder with
// SetEscapeHTML(false), its newline trimmed); segmentio/encoding writes
// them, which caches an encoder per type instead of reflecting on every
// value (encoding/json took half of the model stage's encoding on large
// specs). A json.RawMessage is written as it stands, where encoding/json
// would compact it: the only ones are Marshal's own ($defs components
// encoded once), compact already.
//
// The bytes are built in a buffer kept for the next call and returned in
// a slice of their own size: the schemas are kept until the files are
// written, and a slice grown by appending holds up to twice its length.
func Marshal(v any) []byte {
	p := scratch.Get().(*[]byte)
	b, err := json.Append((*p)[:0], v, json.SortMapKeys)
	if err != nil {
		panic(fmt.Sprintf("tailor: schema is not JSON: %v", err))
	}
	out := append([]byte(nil), b...)
	if cap(b) <= maxScratch {
		*p = b
		scratch.Put(p)
	}
	return out
}

// scratch holds Marshal's buffers; one larger than maxScratch is let go.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

const maxScratch = 1 << 20
