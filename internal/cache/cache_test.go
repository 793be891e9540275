package cache

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEntryRoundTrip(t *testing.T) {
	t.Setenv("TAILOR_CACHE", t.TempDir())
	e := Open("kind", "k1", "k1")
	if _, ok := e.Read(); ok {
		t.Fatal("an entry never written was a hit")
	}
	payload := []byte("payload \x00\xff bytes")
	e.Write(payload)
	got, ok := e.Read()
	if !ok || !bytes.Equal(got, payload) {
		t.Fatalf("read %q, %v; want %q", got, ok, payload)
	}
	// An empty payload is a hit too (no warnings, say).
	e2 := Open("kind", "k2", "k2")
	e2.Write(nil)
	if got, ok := e2.Read(); !ok || len(got) != 0 {
		t.Errorf("empty payload: %q, %v", got, ok)
	}
}

// TestEntryRefusesDamage: whatever is in the file, Read returns the payload
// written under this key or nothing.
func TestEntryRefusesDamage(t *testing.T) {
	t.Setenv("TAILOR_CACHE", t.TempDir())
	e := Open("kind", "abc", "abc")
	payload := bytes.Repeat([]byte("schema "), 1000)
	e.Write(payload)
	whole, err := os.ReadFile(e.File())
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(whole)
	flipped[len(flipped)-100] ^= 1
	other := Open("kind", "abd", "abd")
	other.Write(payload)
	foreign, _ := os.ReadFile(other.File())
	for name, content := range map[string][]byte{
		"empty":         nil,
		"garbage":       []byte("\x00\xff garbage"),
		"header only":   whole[:len(magic)+4],
		"truncated":     whole[:len(whole)-1],
		"longer":        append(bytes.Clone(whole), 'x'),
		"a flipped bit": flipped,
		"another key":   foreign,
	} {
		if err := os.WriteFile(e.File(), content, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, ok := e.Read(); ok {
			t.Errorf("%s: read %d bytes as a hit", name, len(got))
		}
	}
	// An entry of another key in the same slot is a miss too; writing
	// replaces it.
	older := Open("kind", "abc", "older")
	older.Write(payload)
	if _, ok := e.Read(); ok {
		t.Error("another key's entry in the slot was a hit")
	}
	e.Write(payload)
	if got, ok := e.Read(); !ok || !bytes.Equal(got, payload) {
		t.Error("rewritten entry is not read back")
	}
}

func TestCacheOff(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("TAILOR_CACHE", "off")
	e := Open("kind", "k", "k")
	if e != nil {
		t.Fatalf("TAILOR_CACHE=off opened %s", e.File())
	}
	e.Write([]byte("x"))
	if _, ok := e.Read(); ok {
		t.Error("a nil entry read as a hit")
	}
	t.Setenv("TAILOR_CACHE", "")
	if got, want := Open("kind", "k", "k").File(), filepath.Join(home, ".cache", "tailor", "kind", "k"+suffix); runtime.GOOS == "linux" && got != want {
		t.Errorf("default entry %s, want %s", got, want)
	}
}

// TestUnwritableCache: a cache directory that cannot be written, or whose
// path is a file, costs nothing but the entry.
func TestUnwritableCache(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root: the read-only directory is writable; the file-as-directory case still runs")
	}
	ro := t.TempDir()
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	for _, dir := range []string{ro, file, filepath.Join(file, "below")} {
		t.Setenv("TAILOR_CACHE", dir)
		e := Open("kind", "k", "k")
		e.Write([]byte("x"))
		if dir != ro || os.Geteuid() != 0 {
			if _, ok := e.Read(); ok {
				t.Errorf("%s: wrote an entry", dir)
			}
		}
	}
}

// TestConcurrentWriters: writers racing on one entry leave one whole
// entry and no temporary files; readers meanwhile see a whole payload or
// nothing.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TAILOR_CACHE", dir)
	payload := bytes.Repeat([]byte("0123456789"), 100_000)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { Open("kind", "k", "k").Write(payload) })
		wg.Go(func() {
			if got, ok := Open("kind", "k", "k").Read(); ok && !bytes.Equal(got, payload) {
				t.Error("a reader saw a partial payload")
			}
		})
	}
	wg.Wait()
	if got, ok := Open("kind", "k", "k").Read(); !ok || !bytes.Equal(got, payload) {
		t.Error("no whole entry after the race")
	}
	names, _ := os.ReadDir(filepath.Join(dir, "kind"))
	for _, n := range names {
		if strings.HasPrefix(n.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", n.Name())
		}
	}
}

// Entries unused for a month and temporary files of dead writers go; the
// rest stays, and trimming runs at most once a day.
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	files := map[string]time.Duration{
		"fresh.entry": time.Hour,
		"stale.entry": 40 * 24 * time.Hour,
		"stale.json":  40 * 24 * time.Hour, // an earlier version's entry
		".tmp-dead":   2 * time.Hour,
		".tmp-active": time.Minute,
		"other":       400 * 24 * time.Hour,
	}
	for name, age := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	trim(dir, now)
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{".tmp-active", "fresh.entry", "other", "trimmed"}
	if !slices.Equal(left, want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	// Within a day of the last trim nothing is looked at.
	stale := filepath.Join(dir, "stale2.entry")
	os.WriteFile(stale, []byte("{}"), 0o644)
	os.Chtimes(stale, now.Add(-40*24*time.Hour), now.Add(-40*24*time.Hour))
	trim(dir, now.Add(time.Hour))
	if _, err := os.Stat(stale); err != nil {
		t.Error("trimmed again within a day")
	}
	trim(dir, now.Add(25*time.Hour))
	if _, err := os.Stat(stale); err == nil {
		t.Error("not trimmed after a day")
	}
}

// TestBuildIsTheGoBuildID: the running binary is named by the build ID the
// go command gave it.
func TestBuildIsTheGoBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	if got, want := Build(), "go build "+strings.TrimSpace(string(out)); got != want {
		t.Errorf("Build() = %q, want %q", got, want)
	}
	if got := rawBuildID([]byte("....\xff Go build ID: \"abc/def\"\n \xff....")); got != "abc/def" {
		t.Errorf("raw build ID %q", got)
	}
	for _, bad := range []string{"", "\xff Go build ID: \"abc", "\xff Go build ID: \"\"\n \xff"} {
		if got := rawBuildID([]byte(bad)); got != "" {
			t.Errorf("raw build ID of %q: %q", bad, got)
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if buildID(exe) == "" {
			b.Fatal("no build ID")
		}
	}
}
