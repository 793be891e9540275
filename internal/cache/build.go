package cache

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// Build names the running tailor binary: an entry whose payload tailor's
// own code computed (a compiled tool set) must miss once the binary
// changes. A source checkout's binary has no module version ("(devel)"),
// so the name is the Go build ID, which the go command derives from the
// hashes of every input of the link (every package's source, the
// toolchain, the flags): a rebuild after any change gets a new one. It is
// read from the executable's header (the ELF note .note.go.buildid, else
// the raw form the linker puts at the start of the text, which Mach-O and
// PE binaries carry), a few KiB, rather than hashing a binary of ~60 MB at
// every start (~25 ms). Without a build ID (stripped by -ldflags=-buildid=)
// a released binary's module version stands in; without either, Build is
// "" and such results are not cached.
var Build = sync.OnceValue(func() string {
	if exe, err := os.Executable(); err == nil {
		if id := buildID(exe); id != "" {
			return "go build " + id
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return "tailor " + bi.Main.Version
	}
	return ""
})

// buildID reads the Go build ID of the executable at path, or "".
func buildID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if ef, err := elf.NewFile(f); err == nil {
		if s := ef.Section(".note.go.buildid"); s != nil {
			if data, err := s.Data(); err == nil {
				return elfNote(data, ef.ByteOrder)
			}
		}
		return ""
	}
	head := make([]byte, 32<<10)
	n, _ := io.ReadFull(f, head)
	return rawBuildID(head[:n])
}

// elfNote is the description of a note named "Go" of type 4 (the build
// ID), or "".
func elfNote(data []byte, order binary.ByteOrder) string {
	for len(data) >= 12 {
		namesz, descsz, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
		name := 12 + (int(namesz)+3)&^3
		end := name + (int(descsz)+3)&^3
		if namesz > 1<<10 || descsz > 1<<10 || end > len(data) {
			return ""
		}
		if typ == 4 && strings.TrimRight(string(data[12:12+namesz]), "\x00") == "Go" {
			return string(data[name : name+int(descsz)])
		}
		data = data[end:]
	}
	return ""
}

// rawBuildID finds the linker's `\xff Go build ID: "…"\n \xff` in head.
func rawBuildID(head []byte) string {
	const prefix, end = "\xff Go build ID: \"", "\"\n \xff"
	i := bytes.Index(head, []byte(prefix))
	if i < 0 {
		return ""
	}
	rest := head[i+len(prefix):]
	j := bytes.Index(rest, []byte(end))
	if j <= 0 || j > 1<<10 {
		return ""
	}
	return string(rest[:j])
}
