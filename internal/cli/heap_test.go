package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailormcp/tailor/internal/hugeheap"
)

// TestLargeSpecAsksForHugePages: generate on a spec past the size where
// huge pages pay asks for them before it loads (internal/hugeheap tests
// that the heap then faults in huge pages), and the output is the same.
func TestLargeSpecAsksForHugePages(t *testing.T) {
	if !hugeheap.Applies() {
		t.Skip("this kernel does not give huge pages on request only")
	}
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: Large, version: '1'}\npaths:\n")
	for i := 0; b.Len() < 400<<10; i++ {
		fmt.Fprintf(&b, "  /items%d/{id}:\n    get:\n      operationId: getItem%d\n      description: %s\n      parameters:\n        - {name: id, in: path, required: true, schema: {type: string}}\n      responses:\n        '200': {description: ok}\n", i, i, strings.Repeat("Reads one item. ", 40))
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "large.yaml")
	if err := os.WriteFile(spec, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "generate", "--spec", spec, "--out", filepath.Join(dir, "out"), "--omit-version", "-q")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if hugeheap.Reserved() == 0 {
		t.Errorf("generate on a %d-byte spec asked for no huge pages", b.Len())
	}
}
