package mcpkit

// A tool call's stack is grown in one step when the call starts.
//
// go-sdk runs each request's handler on a new goroutine, which starts with
// a small stack (the average the runtime measures over all goroutines,
// most of them small and idle). A tool call then doubled it three or four
// times as it went deeper (go-sdk's frames, input validation, the HTTP
// client, the encoders), and each doubling copies the whole stack and
// adjusts every frame on it: about a tenth of a call's CPU on a warm loop.
// Growing it once at the handler's top copies only go-sdk's few frames.
//
// Calls used to run on worker goroutines kept from earlier calls, whose
// stacks had already grown, which the handler's goroutine handed each call
// to and waited for. That saved the one copy but cost two goroutine
// switches per call, each waking a second thread to look for work: with a
// call after 1 ms of quiet, as an agent calls, the median round trip was
// 6–7 % longer and the process used more CPU per call than with the stack
// grown here (interleaved A/B runs on 2 vCPUs).

// callStack is how much stack a tool call is given from the start.
const callStack = 32 << 10

// growCallStack makes the calling goroutine's stack large enough for a
// tool call in one step.
func growCallStack() {
	growStack(0)
}

// growStack needs a frame of nearly callStack bytes, which makes the
// runtime grow the calling goroutine's stack in one step (it sizes a new
// stack to fit the frame that did not).
//
//go:noinline
func growStack(i int) byte {
	var frame [callStack - 4<<10]byte
	frame[i%len(frame)] = 1
	return frame[(i+1)%len(frame)]
}
