//go:build unix

package eval

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tailormcp/tailor/internal/review/scenario"
)

// listenEnv makes the test binary a backend that listens on its value
// (the grandchild of the tests below).
const listenEnv = "TAILOR_EVAL_TEST_LISTEN"

func TestMain(m *testing.M) {
	if addr := os.Getenv(listenEnv); addr != "" {
		http.ListenAndServe(addr, http.NotFoundHandler())
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// alive says whether pid is a running process (a zombie waiting to be
// reaped is not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: kill says it exists
	}
	// pid (comm) STATE ...
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

// A backend.start command that forks, as go run does, leaves no process
// behind when its trial ends: the backend listens in a grandchild of
// tailor, which stopping the backend ends too.
func TestBackendStopEndsItsChildren(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := fmt.Sprintf(`env %s={addr} '%s' -test.run='^$' & echo $! > '%s'; wait`, listenEnv, self, pidFile)
	url, stop, err := backendFor(t.Context(), Backend{Start: start}, scenario.Target{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(url + "/anything")
	if err != nil {
		stop()
		t.Fatal(err)
	}
	res.Body.Close()
	data, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid == 0 || !alive(pid) {
		stop()
		t.Fatalf("the backend's pid %q (%v)", data, err)
	}
	stop()
	for deadline := time.Now().Add(5 * time.Second); alive(pid); {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the backend's child %d outlived its trial", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
