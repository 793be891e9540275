// Package smaps reads a Linux process's memory mappings from
// /proc/PID/smaps, for tests that check how memory is advised.
package smaps

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// FlagBytes sums the sizes of process pid's mappings whose VmFlags in
// /proc/PID/smaps include flag ("hg": asks for huge pages, "nh": refuses
// them). The error is /proc's, where there is none.
func FlagBytes(pid int, flag string) (int, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	total, size := 0, 0
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if k, ok := strings.CutPrefix(line, "Size:"); ok {
			size, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(k), " kB"))
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && strings.Contains(" "+flags+" ", " "+flag+" ") {
			total += size << 10
		}
	}
	return total, s.Err()
}
