// Package cache is tailor's one on-disk cache: results that cost CPU at
// every run and depend only on inputs a key can name are computed once and
// read back (the spec validation's warnings, internal/generate/load; the
// tool set tailor serve starts with, internal/serve).
//
// An entry is one file, <dir>/<kind>/<slot>.entry: a header naming the key
// and a CRC-32C of the payload, then the payload. The key is a digest of
// everything the payload depends on; the slot says which entries replace
// each other: one whose slot is its key is kept beside every other, one
// named after where its inputs are (not what they hold) replaces the
// previous entry for them, so that editing a spec again and again leaves
// one entry, not one per version. It is written to a
// temporary file and renamed into place, so concurrent writers are safe and
// a reader sees a whole entry or none. An entry that cannot be read, is
// truncated, names another key or fails its checksum is a miss (and is
// rewritten by the caller's next Write); failing to write never fails the
// run. A hit refreshes the entry's time; entries unused for a month are
// deleted (trim).
//
// <dir> is $TAILOR_CACHE, else os.UserCacheDir()/tailor; TAILOR_CACHE=off
// (or no cache directory) turns the cache off: Open returns nil, which
// every method accepts.
package cache

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Dir is $TAILOR_CACHE, else the user's cache directory's tailor, or ""
// when caching is off.
func Dir() string {
	switch dir := os.Getenv("TAILOR_CACHE"); dir {
	case "off":
		return ""
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(base, "tailor")
	default:
		return dir
	}
}

// Entry is one cache entry; nil when the cache is off.
type Entry struct {
	key, file string
}

// Open returns the entry of key (a hex digest over everything the payload
// depends on) in slot (a file name) among kind's, or nil when the cache is
// off.
func Open(kind, slot, key string) *Entry {
	dir := Dir()
	if dir == "" {
		return nil
	}
	return &Entry{key: key, file: filepath.Join(dir, kind, slot+suffix)}
}

// File is where the entry is kept ("" when the cache is off).
func (e *Entry) File() string {
	if e == nil {
		return ""
	}
	return e.file
}

const (
	suffix = ".entry"
	magic  = "tailor cache 1\n"
)

// castagnoli is made when first used: every command pays for a table made
// at init.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// header is what precedes the payload: the magic line, the key and a
// line, the payload's length and CRC-32C.
func (e *Entry) header(payload []byte) []byte {
	h := make([]byte, 0, len(magic)+len(e.key)+1+12)
	h = append(h, magic...)
	h = append(h, e.key...)
	h = append(h, '\n')
	h = binary.LittleEndian.AppendUint64(h, uint64(len(payload)))
	return binary.LittleEndian.AppendUint32(h, crc32.Checksum(payload, castagnoli()))
}

// Read returns the entry's payload, or false when there is none that is
// whole and of this key.
func (e *Entry) Read() ([]byte, bool) {
	if e == nil {
		return nil, false
	}
	data, err := os.ReadFile(e.file)
	if err != nil {
		return nil, false
	}
	n := len(magic) + len(e.key) + 1 + 12
	if len(data) < n || string(data[:len(magic)]) != magic || string(data[len(magic):len(magic)+len(e.key)]) != e.key || data[len(magic)+len(e.key)] != '\n' {
		return nil, false
	}
	payload := data[n:]
	if !bytes.Equal(data[:n], e.header(payload)) {
		return nil, false
	}
	// Used now: trim keeps it.
	now := time.Now()
	os.Chtimes(e.file, now, now)
	return payload, true
}

// Write stores payload as the entry; any failure leaves the cache as it
// was.
func (e *Entry) Write(payload []byte) {
	if e == nil {
		return
	}
	dir := filepath.Dir(e.file)
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, err = f.Write(e.header(payload))
	if err == nil {
		_, err = f.Write(payload)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), e.file)
	}
	if err != nil {
		os.Remove(f.Name())
		return
	}
	trim(dir, time.Now())
}

// Entries not used for entryMaxAge are deleted, at most once per
// trimInterval (a marker file's time says when it last happened), so that
// a cache that sees a new spec version every day does not grow forever.
// A hit refreshes its entry's time. Temporary files of a writer that died
// are removed after an hour.
const (
	entryMaxAge  = 30 * 24 * time.Hour
	trimInterval = 24 * time.Hour
)

func trim(dir string, now time.Time) {
	marker := filepath.Join(dir, "trimmed")
	if st, err := os.Stat(marker); err == nil && now.Sub(st.ModTime()) < trimInterval {
		return
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		maxAge := entryMaxAge
		switch {
		case strings.HasPrefix(name, ".tmp-"):
			maxAge = time.Hour
		case !strings.HasSuffix(name, suffix) && !strings.HasSuffix(name, ".json"): // .json: entries of earlier versions
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > maxAge {
			os.Remove(filepath.Join(dir, name))
		}
	}
}
