package cli

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeNamesTheServerAsGenerateDoes: without --name, tailor serve is
// the server generate makes from the same overlay: its name is the
// overlay's server.name, and so is its environment prefix (it once was
// always "tailor", and read TAILOR_* variables). Without server.name it
// is a short name of the spec's title, else tailor, and the environment
// prefix the title's in upper snake case, as --name's help and
// docs/runtime.md say.
func TestServeNamesTheServerAsGenerateDoes(t *testing.T) {
	shop := []string{"serve", "--spec", filepath.Join(shopDir, "openapi.yaml"), "--overlay", filepath.Join(shopDir, "overlay.yaml")}

	// The flags and variables it reads.
	code, stdout, stderr := run(t, append(shop, "--", "-h")...)
	if code != ExitOK || !strings.Contains(stdout+stderr, "Usage: shop [flags]") || !strings.Contains(stdout+stderr, "(env SHOP_BASE_URL)") || strings.Contains(stdout+stderr, "TAILOR_") {
		t.Errorf("-h: exit %d\n%s%s", code, stdout, stderr)
	}

	// It reads them: a wrong base URL in SHOP_BASE_URL stops it.
	t.Setenv("SHOP_BASE_URL", "ftp://shop.example.test")
	if code, _, stderr := run(t, shop...); code == ExitOK || !strings.Contains(stderr, "SHOP_BASE_URL") {
		t.Errorf("with SHOP_BASE_URL=ftp://...: exit %d\n%s", code, stderr)
	}
	t.Setenv("SHOP_BASE_URL", "")

	// And tells the client its name.
	stdin, toServer := io.Pipe()
	fromServer, serverOut := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int)
	go func() { done <- Run(shop, stdin, serverOut, &errb); serverOut.Close() }()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	if _, err := io.WriteString(toServer, initialize); err != nil {
		t.Fatal(err)
	}
	answer, err := bufio.NewReader(fromServer).ReadString('\n')
	toServer.Close()
	if code := <-done; err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v\n%s", code, err, errb.String())
	}
	if !strings.Contains(answer, `"serverInfo":{"name":"shop"`) {
		t.Errorf("initialize answered:\n%s", answer)
	}

	// Without an overlay naming it, the name is the spec's title's.
	code, stdout, stderr = run(t, "serve", "--spec", filepath.Join(shopDir, "openapi.yaml"), "--", "-h")
	if code != ExitOK || !strings.Contains(stdout+stderr, "(env SHOP_API_BASE_URL)") {
		t.Errorf("raw -h: exit %d\n%s%s", code, stdout, stderr)
	}

	// A title with nothing to make a name of leaves "tailor"; --env-prefix
	// wins over the name's.
	spec := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(spec, []byte("openapi: 3.0.3\ninfo: {title: 目録, version: '1'}\npaths: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, "serve", "--spec", spec, "--", "-h")
	if code != ExitOK || !strings.Contains(stdout+stderr, "Usage: tailor [flags]") || !strings.Contains(stdout+stderr, "(env TAILOR_BASE_URL)") {
		t.Errorf("untitled -h: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, append(shop[:len(shop):len(shop)], "--env-prefix", "STORE", "--", "-h")...)
	if code != ExitOK || !strings.Contains(stdout+stderr, "Usage: shop [flags]") || !strings.Contains(stdout+stderr, "(env STORE_BASE_URL)") {
		t.Errorf("--env-prefix STORE -h: exit %d\n%s%s", code, stdout, stderr)
	}
}
