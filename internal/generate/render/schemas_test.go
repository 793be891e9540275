package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/constant"
	"go/parser"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// schemaTexts are compact JSON texts as the generator writes them: every
// JSON file of the corpus re-encoded, and a few that take the edges.
func schemaTexts(t *testing.T) []string {
	texts := []string{`{}`, `{"a":[],"b":{},"c":[{}],"d":"x\"y\\z:,{}[]","e":[1,2.5,true,null]}`, "{\"d\":\"`tick` \\u2028 \ufeff\"}",
		"{\"d\":\"``a`` \\\"`\\\\` \u0085\x7f\"}"}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "shared", "corpus", "*.json"))
	for _, f := range files {
		if testing.Short() {
			break
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			continue
		}
		b, _ := json.Marshal(v)
		texts = append(texts, string(b))
	}
	return texts
}

// TestSchemaLiteral: appendSchemaLiteral writes what json.Indent and
// appendRawLiteral write apart, with indentation capped at maxIndent.
func TestSchemaLiteral(t *testing.T) {
	deep := `"x"`
	for range maxIndent + 3 {
		deep = `{"a":[` + deep + `,1]}`
	}
	for _, s := range append(schemaTexts(t), `{"a": 1}`, `{"a":`, `}{`, `{]`, "{\"a\":\"`x`\\\"``\u00e9\ufeff\u0085\xff\x7f\"}", deep) {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(s), "", "\t"); err != nil {
			want.Reset()
			want.WriteString(s)
		} else {
			capped := strings.Split(want.String(), "\n")
			for i, line := range capped {
				text := strings.TrimLeft(line, "\t")
				capped[i] = strings.Repeat("\t", min(len(line)-len(text), maxIndent)) + text
			}
			want.Reset()
			want.WriteString(strings.Join(capped, "\n"))
		}
		prefix := []byte("const x = ")
		prefix = prefix[:len(prefix):len(prefix)] // each append its own copy
		have := appendSchemaLiteral(prefix, s)
		if want := appendRawLiteral(prefix, want.String()); !bytes.Equal(have, want) {
			t.Errorf("appendSchemaLiteral(%.60q) = %.80q, want %.80q", s, have, want)
		}
	}
}

// TestSchemaLiteralGrowsLinearly: a schema nested thousands of levels deep
// (a hostile or generated spec) is printed in about its own size times the
// deepest indentation, not its depth squared, and reads back as the same
// JSON.
func TestSchemaLiteralGrowsLinearly(t *testing.T) {
	const levels = 4000
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"string"}` + strings.Repeat(`}}`, levels)
	have := appendSchemaLiteral(nil, deep)
	// A tab a level, it would be about 540 times its size; at most 64 tabs a
	// line, it is about 10 times.
	if limit := 16 * len(deep); len(have) > limit {
		t.Fatalf("a schema %d levels deep (%d bytes) printed in %d bytes, want at most %d", levels, len(deep), len(have), limit)
	}
	text, ok := strings.CutPrefix(string(have), "`")
	if text, ok = strings.CutSuffix(text, "`"); !ok {
		t.Fatalf("not one raw string: %.80q", have)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(text)); err != nil || compact.String() != deep {
		t.Fatalf("the constant does not read back as the schema (%v)", err)
	}
}

// TestRawLiteral: the Go expression appendRawLiteral writes is the text.
func TestRawLiteral(t *testing.T) {
	texts := []string{"", "`", "a`b``c", "`x", "x`", "x\r\ny", "\x00\x7f\u0085", "bad \xff utf-8", "\ufeffbom"}
	for _, s := range schemaTexts(t) {
		var indented bytes.Buffer
		json.Indent(&indented, []byte(s), "", "\t")
		texts = append(texts, indented.String())
	}
	for _, s := range texts {
		lit := string(appendRawLiteral(nil, s))
		expr, err := parser.ParseExpr(lit)
		if err != nil {
			t.Fatalf("%.60q: %s does not parse: %v", s, lit, err)
		}
		tv, err := evalConst(expr)
		if err != nil || tv != s {
			t.Errorf("%.60q: %.80s is not the text (%v)", s, lit, err)
		}
		if strings.Contains(lit, "\r") {
			t.Errorf("%.60q: a carriage return in a raw string is dropped by the compiler", s)
		}
	}
}

// evalConst evaluates a constant expression of string literals joined by +.
func evalConst(e any) (string, error) {
	var eval func(x any) (constant.Value, error)
	eval = func(x any) (constant.Value, error) {
		switch n := x.(type) {
		case *ast.BasicLit:
			return constant.MakeFromLiteral(n.Value, n.Kind, 0), nil
		case *ast.BinaryExpr:
			a, err := eval(n.X)
			if err != nil {
				return nil, err
			}
			b, err := eval(n.Y)
			if err != nil {
				return nil, err
			}
			return constant.BinaryOp(a, n.Op, b), nil
		case *ast.ParenExpr:
			return eval(n.X)
		}
		return nil, errors.New("not a constant expression of literals")
	}
	v, err := eval(e)
	if err != nil {
		return "", err
	}
	return constant.StringVal(v), nil
}
