//go:build !linux

package bench

import "syscall"

// The benchmark is meant for Linux (it reads /proc); elsewhere it runs, but
// memory figures are missing.

func procAttr() *syscall.SysProcAttr { return nil }

func cpuSeconds() (machine, ours float64, ok bool) { return 0, 0, false }

func rssKiB(int) (rss, hwm int64, ok bool) { return 0, 0, false }

func loadAvg() float64 { return -1 }

func dropCached(string) error { return nil }
