package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/testkit"
)

// tailor serve's start grows linearly with the spec (issue 31): on
// synthetic specs of 1,000 and 5,000 operations, what the 4,000 more cost
// in peak memory and in CPU time up to the first tools/list page stays
// under a per-operation bound that a linear start meets several times
// over and a quadratic one does not, and the 5,000-operation start stays
// under a generous absolute bound. The bounds are per operation, measured
// as a difference, so that the process's fixed cost and the machine's
// speed move them little. `make bench` has the figures at 50,000.
const (
	// scaleBytesPerOp bounds the peak memory each operation adds: today
	// about 21 KiB (kin-openapi's decoding and document, the validation
	// view, the model, and the collector's headroom over them), 39-44 KiB
	// before the validation view shared its copies and the locator's YAML
	// parse became lazy. It catches growth that turns super-linear, and
	// one of those undone.
	scaleBytesPerOp = 32 << 10
	// scaleCPUPerOp bounds the CPU time each operation adds (today about
	// 0.3 ms on the 2-core CI machine).
	scaleCPUPerOp = 2 * time.Millisecond
	// scaleWall bounds the 5,000-operation start, spawn to first page.
	scaleWall = 30 * time.Second
)

func TestServeStartGrowsLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts tailor serve on specs of thousands of operations")
	}
	tailor := tailorBinary(t)
	small, large := serveScale(t, tailor, 1000), serveScale(t, tailor, 5000)
	t.Logf("1,000 operations: %s; 5,000: %s", small, large)
	ops := float64(large.ops - small.ops)
	if perOp := float64(large.hwm-small.hwm) / ops; perOp > scaleBytesPerOp {
		t.Errorf("peak memory grows %.0f bytes an operation between 1,000 and 5,000 operations, want at most %d", perOp, scaleBytesPerOp)
	}
	if perOp := time.Duration(float64(large.cpu-small.cpu) / ops); perOp > scaleCPUPerOp {
		t.Errorf("CPU time to the first tools/list page grows %v an operation, want at most %v", perOp, scaleCPUPerOp)
	}
	if large.wall > scaleWall {
		t.Errorf("5,000 operations: initialize and the first tools/list page took %v, want at most %v", large.wall, scaleWall)
	}
}

// scaleRun is one start of tailor serve.
type scaleRun struct {
	ops  int
	wall time.Duration // spawn → first tools/list page answered
	cpu  time.Duration // the process's CPU time, to its exit after that page
	hwm  int64         // peak resident memory by the first page, bytes
}

func (r scaleRun) String() string {
	return fmt.Sprintf("first page %v, CPU %v, peak %.0f MiB", r.wall.Round(time.Millisecond), r.cpu.Round(time.Millisecond), float64(r.hwm)/(1<<20))
}

// serveScale starts tailor serve (cache off) on a synthetic spec of ops
// operations, asks for initialize and the first tools/list page over
// stdio, checks the page, and ends the server by closing its stdin.
func serveScale(t *testing.T, tailor string, ops int) scaleRun {
	t.Helper()
	spec := filepath.Join(t.TempDir(), "syn.yaml")
	if err := os.WriteFile(spec, testkit.SyntheticSpec(ops), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tailor, "serve", "--spec", spec)
	cmd.Env = append(os.Environ(), "TAILOR_CACHE=off")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	out := bufio.NewReaderSize(stdout, 1<<20)
	rpc := func(id int, method, params string) []byte {
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: %v\n%s", method, err, stderr.String())
		}
		return line
	}
	rpc(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scale","version":"1"}}`)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	page := rpc(2, "tools/list", `{}`)
	r := scaleRun{ops: ops, wall: time.Since(start), hwm: peakRSS(t, cmd.Process.Pid)}
	var res struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		} `json:"result"`
	}
	if err := json.Unmarshal(page, &res); err != nil {
		t.Fatalf("tools/list: %v: %.300s", err, page)
	}
	if tools := len(res.Result.Tools); tools == 0 || tools < ops && res.Result.NextCursor == "" || tools > ops || len(res.Result.Tools[0].InputSchema) == 0 {
		t.Fatalf("the first tools/list page of %d operations has %d tools and next cursor %q, want a page of tools, and a cursor when there are more", ops, tools, res.Result.NextCursor)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tailor serve: %v\n%s", err, stderr.String())
	}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return r
}

// peakRSS is a running process's peak resident memory (VmHWM), in bytes;
// the test is skipped where /proc does not say.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no peak memory to read: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM: %q", line)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc")
	return 0
}
