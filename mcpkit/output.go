package mcpkit

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tailormcp/tailor/internal/jsonv"
	"github.com/tailormcp/tailor/mcpkit/internal/loglimit"
	"github.com/tailormcp/tailor/mcpkit/internal/redact"
)

// A tool that declares an outputSchema must return structuredContent that
// validates against it: clients check it (the TypeScript SDK, and so the
// Inspector, rejects the whole call when it is missing or does not fit).
// The generator writes output schemas that describe rather than police
// (no required fields, no closed objects, null allowed), but an API can
// still answer an object where its spec says array, or a string where it
// says number. So every successful result is checked here against the
// schema the tool declared, compiled on the tool's first result:
//
//   - a result with no structuredContent (an empty or non-JSON body) gets
//     an empty object, which every output schema admits;
//   - a value that does not fit is left out of structuredContent (an
//     object member is removed, an array element becomes null) until the
//     rest fits, and the log says what and why.
//
// The text content is never changed: the model still reads the whole
// response.

type outputCheck struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

var outputChecks sync.Map // *Tool → *outputCheck

// outputSchema is the tool's compiled outputSchema (nil when it has none
// or it does not compile, which is logged once).
func (k *Runtime) outputSchema(t *Tool) *jsonschema.Schema {
	if t.OutputSchema == "" {
		return nil
	}
	// Loaded first: LoadOrStore would make a check to throw away on every
	// call.
	v, ok := outputChecks.Load(t)
	if !ok {
		v, _ = outputChecks.LoadOrStore(t, &outputCheck{})
	}
	oc := v.(*outputCheck)
	oc.once.Do(func() {
		var val *validator
		val, oc.err = compileSchema(t.Name+".output", t.OutputSchema)
		if oc.err != nil {
			k.log.Error("output schema does not compile; results are sent unchecked", "tool", t.Name, "error", oc.err.Error())
			return
		}
		oc.schema = val.schema
	})
	return oc.schema
}

// conform makes a successful result's structuredContent valid against the
// tool's outputSchema. What it logs passes red (the call's redactor, on
// top of the server's log redaction): a problem can quote the response.
func (k *Runtime) conform(t *Tool, res *mcp.CallToolResult, red *redact.Redactor) {
	if res == nil || res.IsError || len(res.InputRequests) > 0 || t.OutputSchema == "" {
		return // an error, or a request for input: not a result yet
	}
	s := k.outputSchema(t)
	if s == nil {
		return
	}
	if res.StructuredContent == nil {
		res.StructuredContent = map[string]any{}
		return
	}
	sc := res.StructuredContent
	err := s.Validate(sc)
	if err == nil {
		return
	}
	if _, ok := err.(*jsonschema.ValidationError); !ok {
		// Not JSON-typed values (a Go type the validator does not know):
		// check their JSON form.
		sc = jsonValue(sc)
		if err = s.Validate(sc); err == nil {
			res.StructuredContent = sc
			return
		}
	}
	sc = jsonv.DeepCopy(sc) // the original may be shared (a stored quote's body)
	var leaves []*jsonschema.ValidationError
	for round := 0; err != nil && round < 8; round++ {
		ve, ok := err.(*jsonschema.ValidationError)
		if !ok {
			break
		}
		for _, loc := range leafErrors(ve, &leaves) {
			if len(loc) == 0 {
				sc = map[string]any{}
				break
			}
			sc = removeAt(sc, loc)
		}
		err = s.Validate(sc)
	}
	if err != nil {
		sc = map[string]any{}
	}
	res.StructuredContent = sc
	k.afterReply.do(func() { k.warnMisfit(t, leaves, red) })
}

// misfitLogEvery is how often the same misfit of the same tool is logged.
// An API whose answers drifted from its description drifts on every call:
// one line a minute says so, with the count of the calls in between
// (similar_lines_held_back), where a line per call flooded the log and
// took a share of every call's CPU (the benchmark's discourse calls: 6 %).
const misfitLogEvery = time.Minute

// warnMisfit logs what of a result did not fit the tool's output schema,
// unless the same did for the same tool within misfitLogEvery. It runs
// once the result is out, as the audit line does (afterReply): an API
// whose answers drifted from its description would otherwise make every
// call wait for this line, and for the text of its problems. What it logs
// passes red (the call's redactor, on top of the server's log redaction):
// a problem can quote the response.
func (k *Runtime) warnMisfit(t *Tool, leaves []*jsonschema.ValidationError, red *redact.Redactor) {
	held, ok := k.misfits.Allow(misfitKey(t, leaves))
	if !ok {
		return
	}
	problems := make([]string, len(leaves))
	for i, e := range leaves {
		where := argPath(e.InstanceLocation)
		if where == "" {
			where = "(the whole result)"
		}
		problems[i] = where + ": " + e.ErrorKind.LocalizedString(printer)
	}
	k.log.Warn("the response does not match the tool's output schema; structuredContent leaves out what does not fit (the text content has the whole response)",
		loglimit.WithHeld([]any{"tool", t.Name, "problems", red.String(strings.Join(dedupeStrings(problems), "; "))}, held)...)
}

// misfitKey names a misfit by its tool and where and against which
// keyword each problem is, not by the values: a drifted field whose value
// changes from call to call is the same misfit. Hashed, so that what
// the limiter keeps names no member of a response.
func misfitKey(t *Tool, leaves []*jsonschema.ValidationError) string {
	h := fnv.New64a()
	for _, e := range leaves {
		io.WriteString(h, e.SchemaURL)
		for _, s := range e.ErrorKind.KeywordPath() {
			io.WriteString(h, "\x00"+s)
		}
		for _, s := range e.InstanceLocation {
			io.WriteString(h, "\x01"+s)
		}
		io.WriteString(h, "\x02")
	}
	return t.Name + "\x00" + strconv.FormatUint(h.Sum64(), 16)
}

// leafErrors appends the innermost failures of a validation error to
// leaves and returns their instance locations, deepest first.
func leafErrors(ve *jsonschema.ValidationError, leaves *[]*jsonschema.ValidationError) [][]string {
	var locs [][]string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		*leaves = append(*leaves, e)
		locs = append(locs, e.InstanceLocation)
	}
	walk(ve)
	sort.SliceStable(locs, func(i, j int) bool { return len(locs[i]) > len(locs[j]) })
	return locs
}

// removeAt leaves the value at loc out: an object member is deleted, an
// array element becomes null (output schemas admit null below the root),
// so the places of the other elements do not move.
func removeAt(root any, loc []string) any {
	parent := root
	for _, seg := range loc[:len(loc)-1] {
		switch p := parent.(type) {
		case map[string]any:
			parent = p[seg]
		case []any:
			i, ok := index(seg, len(p))
			if !ok {
				return root
			}
			parent = p[i]
		default:
			return root
		}
	}
	last := loc[len(loc)-1]
	switch p := parent.(type) {
	case map[string]any:
		delete(p, last)
	case []any:
		if i, ok := index(last, len(p)); ok {
			p[i] = nil
		}
	}
	return root
}

func index(seg string, n int) (int, bool) {
	if !isIndex(seg) || len(seg) > 9 {
		return 0, false
	}
	i := 0
	for _, r := range seg {
		i = i*10 + int(r-'0')
	}
	return i, i < n
}

// jsonValue is v as decoded JSON (numbers as json.Number).
func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]any{}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return map[string]any{}
	}
	return out
}

func dedupeStrings(l []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) > 8 {
		out = append(out[:8], "…")
	}
	return out
}
