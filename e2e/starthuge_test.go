package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/hugeheap"
	"github.com/tailormcp/tailor/internal/smaps"
	"github.com/tailormcp/tailor/internal/testkit"
)

// A generated server whose tool definitions are large asks for huge pages
// for its first tools/list and takes the advice back once it has answered
// (mcpkit/startgc.go): seen from outside, in the server's /proc smaps, as
// heap mappings marked "no huge pages" (VmFlags nh) after the start-up.
// Go's runtime marks some of its own metadata so too, the same in every
// server; a small server, which does not ask, is the baseline.
func TestLargeServerStartsOnHugePagesAndTakesThemBack(t *testing.T) {
	if runtime.GOOS != "linux" || !hugeheap.Applies() {
		t.Skip("the kernel does not give huge pages on request only")
	}
	m := testkit.NewModule(t)
	m.Generate(t, largeSpec(t, 300), "large")
	m.Generate(t, largeSpec(t, 3), "small")
	bins := m.Compile(t, "large", "small")
	withdrawn := map[string]int{}
	for _, pkg := range []string{"small", "large"} {
		srv := testkit.StartStdio(t, bins[pkg], []string{strings.ToUpper(pkg) + "_BASE_URL=http://127.0.0.1:9"})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		for _, err := range srv.Session.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
		}
		cancel()
		// The start-up ends with the answer written; the advice is taken
		// back on its own goroutine right after.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			withdrawn[pkg] = vmFlagBytes(t, srv.Process.Pid, "nh")
			if pkg == "small" || withdrawn[pkg] >= withdrawn["small"]+32<<20 || time.Now().After(deadline) {
				break
			}
		}
	}
	if got := withdrawn["large"] - withdrawn["small"]; got < 32<<20 {
		t.Errorf("after start-up, the large server has %d bytes more heap withdrawn from huge pages than the small one, want its region (≥ 32 MiB)", got)
	}
}

// largeSpec writes an OpenAPI spec with n operations whose request bodies
// carry about 6 KB of documented properties each.
func largeSpec(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: Large, version: '1'}\npaths:\n")
	for i := range n {
		fmt.Fprintf(&b, "  /things%d:\n    post:\n      operationId: createThing%d\n      requestBody:\n        required: true\n        content:\n          application/json:\n            schema:\n              type: object\n              properties:\n", i, i)
		for p := range 20 {
			fmt.Fprintf(&b, "                field%d: {type: string, description: %q}\n", p, strings.Repeat(fmt.Sprintf("Field %d of thing %d, as the caller names it. ", p, i), 6))
		}
		b.WriteString("      responses:\n        '200': {description: ok}\n")
	}
	p := filepath.Join(t.TempDir(), "large.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// vmFlagBytes is smaps.FlagBytes, skipping where /proc has no smaps.
func vmFlagBytes(t *testing.T, pid int, flag string) int {
	t.Helper()
	n, err := smaps.FlagBytes(pid, flag)
	if err != nil {
		t.Skip(err)
	}
	return n
}
