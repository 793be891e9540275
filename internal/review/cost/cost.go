// Package cost measures what a tool set costs the model before it calls
// anything: the tools/list result a generated server sends — each tool
// lowered as the server has it (internal/generate/lower) and listed by
// mcpkit itself (mcpkit.Tool.Definition) — and its size in tokens.
//
// Tokens are counted with the o200k_base encoding (github.com/tiktoken-go/
// tokenizer, whose BPE tables are embedded: nothing is fetched at run time).
// Clients and models tokenize differently and wrap tool definitions in their
// own prompt format, so the count is an estimate of the context a tool set
// takes, good for comparing tool sets, not an exact bill.
package cost

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/lower"
	"github.com/tailormcp/tailor/internal/parallel"
)

// Encoding names the tokenizer the counts come from.
const Encoding = "o200k_base"

// ToolJSON is the JSON of one tool's entry in tools/list.
func ToolJSON(t *ir.Tool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(lower.OfTool(t).Def.Definition()); err != nil {
		// The schemas are JSON the generator produced; anything else is a
		// bug upstream.
		panic(fmt.Sprintf("tailor: tool %s does not encode: %v", t.Name, err))
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// ToolsList is the result of tools/list for api: {"tools":[...]}.
func ToolsList(api *ir.API) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"tools":[`)
	for i, t := range api.Tools {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(ToolJSON(t))
	}
	buf.WriteString(`]}`)
	return buf.Bytes()
}

var (
	once  sync.Once
	o200k *codec.Codec

	mu    sync.Mutex
	cache = map[[32]byte]int{}
)

// Tokens counts the tokens of s with o200k_base.
func Tokens(s []byte) int {
	once.Do(func() { o200k = codec.NewO200kBase() })
	n, err := o200k.Count(string(s))
	if err != nil {
		// Only the strict UTF-8 mode fails, and the codec is in the default
		// mode.
		return len(s) / 4
	}
	return n
}

// ToolTokens counts the tokens of one tool's tools/list entry. Counts are
// cached by content: a raw and a curated tool set share most entries.
func ToolTokens(t *ir.Tool) int {
	b := ToolJSON(t)
	key := sha256.Sum256(b)
	mu.Lock()
	n, ok := cache[key]
	mu.Unlock()
	if ok {
		return n
	}
	n = Tokens(b)
	mu.Lock()
	cache[key] = n
	mu.Unlock()
	return n
}

// Measure is the cost of one tool set.
type Measure struct {
	Tools int `json:"tools"`
	// Bytes and Tokens are those of the whole tools/list result.
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
}

// exactUpTo is the size of tools/list up to which it is counted as one
// text; larger lists are counted in parallel pieces cut between tools,
// which can be off by a token or two at each cut.
const exactUpTo = 256 << 10

// Of measures api's tools/list.
func Of(api *ir.API) Measure {
	var buf bytes.Buffer
	cuts := []int{0}
	buf.WriteString(`{"tools":[`)
	for i, t := range api.Tools {
		if i > 0 {
			buf.WriteByte(',')
		}
		if buf.Len()-cuts[len(cuts)-1] > exactUpTo/4 {
			cuts = append(cuts, buf.Len())
		}
		buf.Write(ToolJSON(t))
	}
	buf.WriteString(`]}`)
	list := buf.Bytes()
	m := Measure{Tools: len(api.Tools), Bytes: len(list)}
	if len(list) <= exactUpTo {
		m.Tokens = Tokens(list)
		return m
	}
	cuts = append(cuts, len(list))
	counts := make([]int, len(cuts)-1)
	parallel.For(len(counts), func(i int) { counts[i] = Tokens(list[cuts[i]:cuts[i+1]]) })
	for _, n := range counts {
		m.Tokens += n
	}
	return m
}
