//go:build !linux

package hugeheap

// wanted: elsewhere the heap is left to the runtime's own policy.
func wanted() bool { return false }

func advise(int) bool { return false }

func unadvise() {}
