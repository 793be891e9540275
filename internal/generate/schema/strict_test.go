package schema

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// strictCase converts full and checks the result obeys the strict rules.
func strictCase(t *testing.T, full string) (map[string]any, *StrictPlan, []string) {
	t.Helper()
	sf, err := ToStrict([]byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if p := CheckStrict(sf.Schema); len(p) > 0 {
		t.Fatalf("strict form breaks the rules: %v\n%s", p, sf.Schema)
	}
	root, err := Decode(sf.Schema)
	if err != nil {
		t.Fatal(err)
	}
	var plan *StrictPlan
	if len(sf.Plan) > 0 {
		if err := json.Unmarshal(sf.Plan, &plan); err != nil {
			t.Fatal(err)
		}
	}
	return root, plan, sf.Lost
}

func prop(root map[string]any, path ...string) map[string]any {
	m := root
	for _, p := range path {
		m = m["properties"].(map[string]any)[p].(map[string]any)
	}
	return m
}

func compact(v any) string { return string(Marshal(v)) }

func TestStrictOptionalBecomesNullable(t *testing.T) {
	root, plan, _ := strictCase(t, `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"integer","enum":[1,2]},"c":{"$ref":"#/$defs/C","description":"the c"}},"required":["a"],
		"$defs":{"C":{"type":"object","properties":{"x":{"type":"boolean"}}}}}`)
	if got := compact(root["required"]); got != `["a","b","c"]` {
		t.Errorf("required = %s", got)
	}
	if got := compact(prop(root, "a")); got != `{"type":"string"}` {
		t.Errorf("a = %s", got)
	}
	if got := compact(prop(root, "b")); got != `{"enum":[1,2,null],"type":["integer","null"]}` {
		t.Errorf("b = %s", got)
	}
	if got := compact(prop(root, "c")); got != `{"anyOf":[{"$ref":"#/$defs/C"},{"type":"null"}],"description":"the c"}` {
		t.Errorf("c = %s", got)
	}
	if got := compact(plan.Optional); got != `["b","c"]` {
		t.Errorf("plan optional = %s", got)
	}
	if plan.Defs["C"] == nil || compact(plan.Defs["C"].Optional) != `["x"]` {
		t.Errorf("plan of C = %+v", plan.Defs["C"])
	}
}

func TestStrictOpenObjectsAndMaps(t *testing.T) {
	root, plan, lost := strictCase(t, `{"type":"object","properties":{
		"labels":{"type":"object","additionalProperties":{"type":"string"}},
		"free":{"type":"object","description":"Anything."},
		"open":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":true}
	},"required":["labels","free","open"]}`)
	labels := prop(root, "labels")
	if labels["type"] != "array" || compact(labels["items"]) != `{"additionalProperties":false,"properties":{"key":{"type":"string"},"value":{"type":"string"}},"required":["key","value"],"type":"object"}` {
		t.Errorf("labels = %s", compact(labels))
	}
	if plan.Props["labels"].Pairs == nil {
		t.Errorf("labels not planned as pairs: %+v", plan.Props["labels"])
	}
	free := prop(root, "free")
	if free["type"] != "string" || !strings.Contains(free["description"].(string), "JSON object.") || !plan.Props["free"].JSON {
		t.Errorf("free = %s, plan %+v", compact(free), plan.Props["free"])
	}
	if open := prop(root, "open"); open["additionalProperties"] != false {
		t.Errorf("open = %s", compact(open))
	}
	if len(lost) != 1 || !strings.Contains(lost[0], "open") {
		t.Errorf("lost = %q, want the open object's extra properties", lost)
	}
}

func TestStrictAllOfMerged(t *testing.T) {
	root, _, _ := strictCase(t, `{"type":"object","properties":{"pet":{"allOf":[{"$ref":"#/$defs/Base"},{"type":"object","properties":{"bark":{"type":"boolean"}},"required":["bark"]}]}},"required":["pet"],
		"$defs":{"Base":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`)
	pet := prop(root, "pet")
	if got := compact(pet["required"]); got != `["bark","name"]` {
		t.Errorf("pet = %s", compact(pet))
	}
	if prop(pet, "bark")["type"] != "boolean" || prop(pet, "name")["type"] != "string" {
		t.Errorf("pet = %s", compact(pet))
	}
}

// TestMergerFoldsWithoutWritingItsInputs: folding schemas one after
// another gives what merging them two at a time gives, and no input (a
// shared $defs entry, say) is changed by what is merged into it.
func TestMergerFoldsWithoutWritingItsInputs(t *testing.T) {
	parts := []string{
		`{"type":["object","null"],"properties":{"a":{"type":"string","description":"A."}},"required":["a","a"]}`,
		`{"type":"object","properties":{"a":{"minLength":1,"description":"At least one."},"b":{"type":"integer"}},"required":["b","a"],"additionalProperties":false}`,
		`{"description":"Third.","properties":{"c":{"type":"number"}},"required":["c"],"additionalProperties":true}`,
		`{"type":"object","required":[1,"d"]}`,
	}
	var inputs []map[string]any
	for _, p := range parts {
		m, err := Decode([]byte(p))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, m)
	}
	pairwise := inputs[0]
	for _, m := range inputs[1:] {
		pairwise = mergeSchemas(pairwise, m)
	}
	fold := merger{out: mergeSchemas(inputs[0], map[string]any{})}
	for _, m := range inputs[1:] {
		fold.add(m)
	}
	if have, want := compact(fold.out), compact(pairwise); have != want {
		t.Errorf("fold = %s\npairwise = %s", have, want)
	}
	want := `{"additionalProperties":false,"description":"Third.","properties":{"a":{"description":"A. At least one.","minLength":1,"type":"string"},"b":{"type":"integer"},"c":{"type":"number"}},"required":["a","b","c","d"],"type":"object"}`
	if have := compact(fold.out); have != want {
		t.Errorf("fold = %s\nwant   %s", have, want)
	}
	for i, p := range parts {
		var orig map[string]any
		if err := json.Unmarshal([]byte(p), &orig); err != nil {
			t.Fatal(err)
		}
		if compact(inputs[i]) != compact(orig) {
			t.Errorf("input %d changed: %s, was %s", i, compact(inputs[i]), p)
		}
	}
}

// TestStrictAllOfGrowsLinearly: an allOf of n branches, each adding a
// property, is merged in memory that grows with n, not n² (merging two
// at a time copied all gathered so far for every branch).
func TestStrictAllOfGrowsLinearly(t *testing.T) {
	alloc := func(n int) uint64 {
		branches := make([]string, n)
		for i := range branches {
			branches[i] = fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string"}},"required":["p%d"]}`, i, i)
		}
		full := []byte(`{"type":"object","properties":{"x":{"allOf":[` + strings.Join(branches, ",") + `]}}}`)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := ToStrict(full); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(500), alloc(4000)
	if ratio := float64(large) / float64(small); ratio > 16 {
		t.Errorf("8 times the branches allocated %.0f times the bytes (%d → %d)", ratio, small, large)
	}
}

func TestStrictOneOfAndSiblingsBecomeAnyOf(t *testing.T) {
	root, _, _ := strictCase(t, `{"type":"object","properties":{
		"v":{"oneOf":[{"type":"string"},{"type":"integer"}],"description":"id or name"},
		"w":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}
	},"required":["v","w"]}`)
	if got := compact(prop(root, "v")); got != `{"anyOf":[{"type":"string"},{"type":"integer"}],"description":"id or name"}` {
		t.Errorf("v = %s", got)
	}
	// The object beside the anyOf goes into each branch: one where a is
	// required (b may be null), one where b is.
	w := prop(root, "w")
	if got := compact(w); got != `{"anyOf":[{"additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":["string","null"]}},"required":["a","b"],"type":"object"},{"additionalProperties":false,"properties":{"a":{"type":["string","null"]},"b":{"type":"string"}},"required":["a","b"],"type":"object"}]}` {
		t.Errorf("w = %s", got)
	}
}

func TestStrictOptionalInsideAnyOf(t *testing.T) {
	root, plan, _ := strictCase(t, `{"type":"object","properties":{"q":{"anyOf":[{"type":"object","properties":{"gt":{"type":"integer"}}},{"type":"integer"}]}},"required":["q"]}`)
	q := prop(root, "q")
	br := q["anyOf"].([]any)[0].(map[string]any)
	if compact(br["required"]) != `["gt"]` || compact(prop(br, "gt")["type"]) != `["integer","null"]` {
		t.Errorf("q = %s", compact(q))
	}
	if len(plan.Props["q"].Any) != 1 || compact(plan.Props["q"].Any[0].Optional) != `["gt"]` {
		t.Errorf("plan = %s", compact(plan))
	}
}

func TestStrictTypelessGetATypeAndWrongKeywordsGo(t *testing.T) {
	root, _, _ := strictCase(t, `{"type":"object","properties":{
		"any":{"description":"whatever"},
		"props":{"properties":{"x":{"type":"string"}},"required":["x"]},
		"e":{"enum":["a","b"]},
		"u":{"type":"string","uniqueItems":true,"minimum":3},
		"n":{"type":"integer","format":"int64","pattern":"^x$"},
		"arr":{"type":"array","items":{"type":"string"},"uniqueItems":true,"minItems":1}
	},"required":["any","props","e","u","n","arr"]}`)
	if any := prop(root, "any"); any["type"] != "string" || !strings.Contains(any["description"].(string), "whatever") {
		t.Errorf("any = %s", compact(any))
	}
	if prop(root, "props")["type"] != "object" {
		t.Errorf("props = %s", compact(prop(root, "props")))
	}
	if got := compact(prop(root, "e")); got != `{"enum":["a","b"],"type":"string"}` {
		t.Errorf("e = %s", got)
	}
	if got := compact(prop(root, "u")); got != `{"type":"string"}` {
		t.Errorf("u = %s", got)
	}
	if got := compact(prop(root, "n")); got != `{"type":"integer"}` {
		t.Errorf("n = %s", got)
	}
	if got := compact(prop(root, "arr")); got != `{"description":"Items must be unique.","items":{"type":"string"},"minItems":1,"type":"array"}` {
		t.Errorf("arr = %s", got)
	}
}

func TestStrictFormatsAndConstraintsIntoDescription(t *testing.T) {
	root, _, _ := strictCase(t, `{"type":"object","properties":{
		"url":{"type":"string","format":"uri","description":"Where."},
		"id":{"type":"string","format":"UUID"},
		"code":{"type":"string","minLength":2,"maxLength":8},
		"n":{"type":"integer","default":10,"deprecated":true}
	},"required":["url","id","code","n"]}`)
	if got := compact(prop(root, "url")); got != `{"description":"Where. Format: uri.","type":"string"}` {
		t.Errorf("url = %s", got)
	}
	if got := compact(prop(root, "id")); got != `{"format":"uuid","type":"string"}` {
		t.Errorf("id = %s", got)
	}
	if got := prop(root, "code")["description"]; got != "Length: at least 2, at most 8 characters." {
		t.Errorf("code = %s", compact(prop(root, "code")))
	}
	if got := prop(root, "n")["description"]; got != "Deprecated. Default: 10." {
		t.Errorf("n = %s", compact(prop(root, "n")))
	}
}

func TestStrictRecursionBounded(t *testing.T) {
	// A recursive component stays one $defs entry referring to itself.
	root, plan, _ := strictCase(t, `{"type":"object","properties":{"tree":{"$ref":"#/$defs/Node"}},"required":["tree"],
		"$defs":{"Node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/Node"}},"name":{"type":"string"}},"required":["name"]}}}`)
	defs := root["$defs"].(map[string]any)
	if len(defs) != 1 || compact(prop(defs["Node"].(map[string]any), "children")["items"]) != `{"$ref":"#/$defs/Node"}` {
		t.Errorf("defs = %s", compact(defs))
	}
	if plan.Defs["Node"] == nil {
		t.Errorf("no plan for Node: %s", compact(plan))
	}
	// Inline nesting deeper than StrictMaxDepth becomes JSON text.
	deep := `{"type":"string"}`
	for i := 0; i < StrictMaxDepth+3; i++ {
		deep = `{"type":"object","properties":{"x":` + deep + `},"required":["x"]}`
	}
	root, _, _ = strictCase(t, `{"type":"object","properties":{"d":`+deep+`},"required":["d"]}`)
	m := prop(root, "d")
	depth := 1
	for m["type"] == "object" {
		m = prop(m, "x")
		depth++
	}
	if depth > StrictMaxDepth+1 || m["type"] != "string" {
		t.Errorf("nesting %d deep, ends in %s", depth, compact(m))
	}
}

func TestCheckStrictFindsBreaks(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, "without additionalProperties false"},
		{`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, "property a is not required"},
		{`{"type":"object","properties":{"a":{}},"required":["a"],"additionalProperties":false}`, "no type"},
		{`{"type":"object","properties":{"a":{"type":"string","uniqueItems":true}},"required":["a"],"additionalProperties":false}`, "uniqueItems is not supported"},
		{`{"type":"object","properties":{"a":{"type":"string","format":"uri"}},"required":["a"],"additionalProperties":false}`, `format "uri"`},
		{`{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}},"required":["a"],"additionalProperties":false}`, "allOf"},
		{`{"type":"object","properties":{"a":{"type":"string","anyOf":[{"type":"string"}]}},"required":["a"],"additionalProperties":false}`, "type beside anyOf"},
		{`{"type":"object","properties":{"a":{"type":"integer","pattern":"x"}},"required":["a"],"additionalProperties":false}`, "pattern on a schema of type integer"},
	} {
		p := CheckStrict([]byte(tc.schema))
		if !strings.Contains(strings.Join(p, "\n"), tc.want) {
			t.Errorf("%s: problems %q, want one with %q", tc.schema, p, tc.want)
		}
	}
}

func TestTrimTextAtSentences(t *testing.T) {
	s := "First sentence here. Second one follows. Third is the longest of them all."
	if got := TrimText(s, 45); got != "First sentence here. Second one follows." {
		t.Errorf("TrimText 45 = %q", got)
	}
	if got := TrimText(s, 200); got != s {
		t.Errorf("TrimText 200 = %q", got)
	}
	if got := TrimText("one very long sentence without any stop at all in it", 20); got != "one very long…" {
		t.Errorf("TrimText without a stop = %q", got)
	}
	if got := TrimText(strings.Repeat("word ", 400), 1000); len(got) > 1000 {
		t.Errorf("TrimText 1000 gives %d bytes", len(got))
	}
	if got := PlainText("<p>Creates a <code>customer</code> &amp; more.</p><p>Then this.</p>"); got != "Creates a customer & more.\nThen this." {
		t.Errorf("PlainText = %q", got)
	}
}

// A schema over ToolBudget is listed at a leaner level: every argument
// stays, objects become JSON text naming their fields, and the plan parses
// them back.
func TestStrictBudgetSummarises(t *testing.T) {
	var props []string
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		props = append(props, `"`+n+`":{"type":"object","description":"`+strings.Repeat("Long text about it. ", 8)+`","properties":{"x":{"type":"integer"},"y":{"type":"string"}}}`)
	}
	full := `{"type":"object","properties":{` + strings.Join(props, ",") + `,"id":{"type":"string","description":"The id."}},"required":["id"]}`
	root, plan, _ := strictCase(t, full)
	sf, _ := ToStrict([]byte(full))
	if len(sf.Schema) > len(full)/2 {
		t.Errorf("listed schema is %d bytes, the full one %d", len(sf.Schema), len(full))
	}
	if got := len(root["properties"].(map[string]any)); got != 9 {
		t.Errorf("%d arguments listed, want 9", got)
	}
	a := prop(root, "a")
	if compact(a["type"]) != `["string","null"]` || !strings.Contains(a["description"].(string), "JSON object with fields x, y.") || !plan.Props["a"].JSON {
		t.Errorf("a = %s, plan %s", compact(a), compact(plan.Props["a"]))
	}
	if prop(root, "id")["description"] != "The id." {
		t.Errorf("id = %s", compact(prop(root, "id")))
	}
}

// Branches of one scalar type are one schema: an id or an object as JSON
// text is a string described as both, and "" to unset is said in words.
// The plans stay: JSON text is still parsed back.
func TestStrictMergesScalarBranches(t *testing.T) {
	root, plan, _ := strictCase(t, `{"type":"object","properties":{
		"card":{"anyOf":[{"type":"object","description":"Card details."},{"type":"string","description":"A token."}]},
		"meta":{"anyOf":[{"type":"string","description":"A note."},{"type":"string","enum":[""]}]},
		"when":{"anyOf":[{"type":"string"},{"type":"integer"}]}
	}}`)
	meta := prop(root, "meta")
	if compact(meta) != `{"description":"A note. Or \"\".","type":["string","null"]}` {
		t.Errorf("meta = %s", compact(meta))
	}
	if when := prop(root, "when"); when["anyOf"] == nil {
		t.Errorf("branches of two types were merged: %s", compact(when))
	}
	card := prop(root, "card")
	if card["anyOf"] != nil || compact(card["type"]) != `["string","null"]` {
		t.Errorf("card = %s", compact(card))
	}
	if p := plan.Props["card"]; p == nil || !p.JSON {
		t.Errorf("card's JSON text is not parsed back: %s", compact(plan))
	}
}

// An argument whose description the tool set says once is listed with its
// short form; another text under the same name keeps its own.
func TestStrictSaidOnce(t *testing.T) {
	said := "A cursor for pagination. Pass the next value of the previous answer; leave it out for the first page."
	full := `{"type":"object","properties":{"after":{"type":"string","description":"` + said + `"},"limit":{"type":"integer","description":"At most this many."}}}`
	sf, err := ToStrictWith([]byte(full), StrictOptions{Said: map[string]string{"after": said, "limit": "Another text."}})
	if err != nil {
		t.Fatal(err)
	}
	got := string(sf.Schema)
	if !strings.Contains(got, `"A cursor for pagination."`) || strings.Contains(got, "previous answer") || !strings.Contains(got, "At most this many.") {
		t.Errorf("listed %s", got)
	}
	if p := CheckStrict(sf.Schema); len(p) > 0 {
		t.Errorf("breaks strict rules: %v", p)
	}
}

// The short form of a shared description is its first sentence after a
// leading aside, within SaidShortMax.
func TestSaidShort(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Fields to expand.", "Fields to expand."},
		{"<p>A limit on the number of objects.</p> <p>Between 1 and 100.</p>", "A limit on the number of objects."},
		{"(Sent as body field `dryRun`; named body_dryRun because another input is called dryRun.) When present, nothing is persisted. More.", "When present, nothing is persisted."},
		{"No sentence end", "No sentence end"},
		{strings.Repeat("word ", 30) + "end. Next.", strings.Repeat("word ", 14) + "word…"},
	} {
		got := SaidShort(c.in)
		if got != c.want {
			t.Errorf("SaidShort(%q) = %q, want %q", c.in, got, c.want)
		}
		if len(got) > SaidShortMax {
			t.Errorf("SaidShort(%q) is %d bytes, over %d", c.in, len(got), SaidShortMax)
		}
	}
}

// A definition summarised as JSON text is written where it is used once:
// no $ref, no $defs entry, no anyOf to make it nullable; its plan moves
// with it. One with a long text used twice stays a $ref.
func TestStrictInlinesScalarDefs(t *testing.T) {
	var filler []string
	for i := range 40 {
		filler = append(filler, fmt.Sprintf(`"n%02d":{"type":"integer"}`, i))
	}
	full := `{"type":"object","required":["once"],"properties":{` + strings.Join(filler, ",") + `,` +
		`"once":{"$ref":"#/$defs/Once","description":"Used once."},` +
		`"twice1":{"$ref":"#/$defs/Twice"},"twice2":{"type":"array","items":{"$ref":"#/$defs/Twice"}}},` +
		`"$defs":{"Once":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"string"}}},` +
		`"Twice":{"type":"object","description":"` + strings.Repeat("A long text about it. ", 5) + `","properties":{"z":{"type":"integer"}}}}}`
	root, plan, _ := strictCase(t, full)
	once := prop(root, "once")
	if compact(once) != `{"description":"Used once. JSON object with fields x, y.","type":"string"}` {
		t.Errorf("once = %s", compact(once))
	}
	if p := plan.Props["once"]; p == nil || !p.JSON {
		t.Errorf("once is not parsed back: %s", compact(plan))
	}
	defs, _ := root["$defs"].(map[string]any)
	if _, ok := defs["Once"]; ok {
		t.Errorf("Once is still a definition: %s", compact(defs))
	}
	if _, ok := defs["Twice"]; !ok || !strings.Contains(compact(prop(root, "twice1")), `"$ref":"#/$defs/Twice"`) {
		t.Errorf("Twice was written twice: %s", compact(root))
	}
	if plan.Defs["Twice"] == nil || !plan.Defs["Twice"].JSON {
		t.Errorf("Twice's plan: %s", compact(plan))
	}
}
