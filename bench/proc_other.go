//go:build !linux

package bench

import (
	"os"
	"syscall"
)

// The benchmark is meant for Linux (it reads /proc); elsewhere it runs, but
// memory figures are missing.

func procAttr() *syscall.SysProcAttr { return nil }

func maxRSSKiB(*os.ProcessState) int64 { return 0 }

func cpuTime(ps *os.ProcessState) float64 { return (ps.UserTime() + ps.SystemTime()).Seconds() }

func rssKiB(int) (rss, hwm int64, ok bool) { return 0, 0, false }

func loadAvg() float64 { return -1 }
