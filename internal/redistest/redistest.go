// Package redistest runs a real redis-server (the Debian package) for a
// test: on a free loopback port, in a directory of the test's own, stopped
// when the test ends. A test can stop and restart it, with or without
// persistence, to see what the server under test does meanwhile.
//
// Without redis-server on PATH the test is skipped with a message saying
// how to install it, except under CI (CI=true), where it fails: CI must
// run these tests (.ci/run installs the package).
package redistest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is a redis-server process of one test.
type Server struct {
	// Port is the loopback port it listens on, the same across restarts.
	Port int
	// Dir holds its data files (the AOF when persistence is on).
	Dir string

	t       testing.TB
	proc    *os.Process
	exited  chan struct{}
	out     *lockedBuffer
	persist bool
}

// Binary returns redis-server's path, skipping (or, under CI, failing) t
// when it is not installed.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err == nil {
		return bin
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("redis-server is not installed, and CI must run the Redis tests: .ci/run installs it (apt-get install -y redis-server)")
	}
	t.Skip("redis-server is not installed: apt-get install redis-server to run the Redis tests")
	return ""
}

// Start runs a redis-server for t; persist turns on the append-only file
// (fsync on every write), so a restart keeps what was written.
func Start(t testing.TB, persist bool) *Server {
	t.Helper()
	bin := Binary(t)
	s := &Server{t: t, Dir: t.TempDir(), persist: persist}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		s.Port = freePort(t)
		if err = s.start(bin); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("redis-server did not start: %v", err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

// URL is the server's redis:// URL (database 0).
func (s *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.Port) }

// Addr is host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// Stop shuts the server down (SIGTERM: with persistence, it writes its
// data first) and waits for it to exit. Stopping a stopped server does
// nothing.
func (s *Server) Stop() {
	if s.proc == nil {
		return
	}
	_ = s.proc.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.proc.Kill()
		<-s.exited
	}
	s.proc = nil
}

// Restart starts the server again on the same port and directory, with
// persistence on or off: with it on (and on before), the data written
// before the stop is back; with it off, the server starts empty.
func (s *Server) Restart(persist bool) {
	s.t.Helper()
	s.Stop()
	s.persist = persist
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		// The port may still be held briefly by the old process's sockets.
		if err = s.start(Binary(s.t)); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("redis-server did not restart: %v", err)
}

// Log is what the server printed.
func (s *Server) Log() string { return s.out.String() }

func (s *Server) start(bin string) error {
	args := []string{"--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1", "--dir", s.Dir,
		"--daemonize", "no", "--protected-mode", "yes", "--save", "", "--logfile", ""}
	if s.persist {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = s.Dir
	s.out = &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("redis-server exited:\n%s", s.out.String())
		default:
		}
		if ping(s.Addr()) == nil {
			s.proc, s.exited = cmd.Process, exited
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-exited
	return fmt.Errorf("redis-server did not answer PING within 10s:\n%s", s.out.String())
}

// ping sends PING over a plain connection and expects +PONG.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// AOFExists reports whether the server wrote an append-only file.
func (s *Server) AOFExists() bool {
	matches, _ := filepath.Glob(filepath.Join(s.Dir, "appendonlydir", "*"))
	return len(matches) > 0
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
