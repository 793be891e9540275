package eval

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/tailormcp/tailor/internal/review/scenario"
)

// backendFor gives a trial its backend in a known state: a fresh one
// started for it (backend.start), or the target's --backend after the
// reset command (backend.reset), or the target's --backend as it is. It
// returns the backend's base URL ("" for none) and what ends it.
func backendFor(ctx context.Context, b Backend, t scenario.Target) (string, func(), error) {
	switch {
	case b.Start != "":
		return startBackend(ctx, b.Start)
	case b.Reset != "" && t.Backend != "":
		cmd := exec.CommandContext(ctx, "sh", "-c", b.Reset)
		cmd.Env = append(os.Environ(), "TAILOR_BACKEND="+t.Backend)
		ownGroup(cmd)
		cmd.Cancel = func() error { killGroup(cmd); return nil }
		cmd.WaitDelay = time.Second
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", nil, fmt.Errorf("backend.reset `%s` failed (%v): %s", b.Reset, err, tail(out))
		}
	}
	return t.Backend, func() {}, nil
}

// startBackend runs a backend command on a free loopback address and
// waits until it accepts connections.
func startBackend(ctx context.Context, command string) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	line := strings.ReplaceAll(command, "{addr}", addr)
	// In a process group of its own, killed whole when the trial ends: a
	// command that forks (go run, a script) leaves no child behind.
	cmd := exec.Command("sh", "-c", line)
	ownGroup(cmd)
	out := &tailWriter{}
	cmd.Stdout, cmd.Stderr = out, out
	// Should a process escape the group with the output pipe, Wait does
	// not wait for it.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("backend.start `%s`: %w", line, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		killGroup(cmd)
		<-exited
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return "http://" + addr, stop, nil
		}
		select {
		case err := <-exited:
			exited <- err
			killGroup(cmd) // what it left running
			return "", nil, fmt.Errorf("backend.start `%s` exited before listening on %s (%v): %s", line, addr, err, tail(out.bytes()))
		case <-ctx.Done():
			stop()
			return "", nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("backend.start `%s` did not listen on %s within 30s: %s", line, addr, tail(out.bytes()))
		}
	}
}

// tail is the last lines of a command's output.
func tail(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	s := strings.Join(lines, "\n")
	if s == "" {
		return "(no output)"
	}
	return s
}
