package render

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatErrorShowsLines: generated source that does not parse is
// reported with the lines around the error, numbered, not just a position.
func TestFormatErrorShowsLines(t *testing.T) {
	src := "package x\n\nvar a = 1\n\nvar b = mcpkit.Tool{\n\tName: \"b\"\n}\n\nvar c = 3\n"
	_, err := formatSource("tools.go", []byte(src))
	if err == nil {
		t.Fatal("no error for source that does not parse")
	}
	for _, want := range []string{"generated tools.go does not parse", "6:11:", "    6 > \tName: \"b\"", "    3   var a = 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
}

// TestFormatPiecesEqualsWhole: formatting a file one top-level piece at a
// time writes what go/format writes for the whole file, on every golden
// and example file and on source whose pieces are each out of shape.
func TestFormatPiecesEqualsWhole(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	files, _ := filepath.Glob(filepath.Join(root, "testdata", "cases", "*", "out", "*.go"))
	more, _ := filepath.Glob(filepath.Join(root, "examples", "*", "mcpserver", "*.go"))
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("found %d generated files to compare; the test reads the goldens from testdata/cases", len(files))
	}
	srcs := map[string][]byte{
		"unformatted": []byte("package x\n\n\n// A is one.\nvar A = map[string]int{\"a\":1,\n\"bbb\": 2}\n\n\n\n// B is two.\nfunc B( ) int {return   2}\n// C follows B without a blank line.\nvar C=3\n\n/* D */\ntype D struct{X int;Longer string}\n"),
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = b
	}
	for name, src := range srcs {
		want, err := format.Source(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := formatSource(name, src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: formatted piece by piece differs from go/format of the whole file", name)
		}
	}
}
