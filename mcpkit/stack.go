package mcpkit

// Tool calls run on goroutines whose stacks have already grown.
//
// go-sdk runs each request's handler on a new goroutine, which starts with
// a small stack (the average the runtime measures over all goroutines,
// most of them small and idle). A tool call then doubled it three or four
// times as it went deeper (go-sdk's frames, input validation, the HTTP
// client, the encoders), and each doubling copies the whole stack and
// adjusts every frame on it: about a tenth of a call's CPU. Growing it in
// one step at the handler's top still paid one copy of go-sdk's frames.
// So a call runs on a worker goroutine kept from earlier calls, whose
// stack is already large; the handler's goroutine waits for it.

// callStack is how much stack a tool call is given from the start.
const callStack = 32 << 10

// idleWorkers are the workers waiting for a call; a worker that finds it
// full ends (calls running at once beyond it start their own).
var idleWorkers = make(chan chan func(), 64)

// onWarmStack runs f on a worker and returns when it has returned; a panic
// in f is raised again here, on the caller's goroutine.
func onWarmStack(f func()) {
	var w chan func()
	select {
	case w = <-idleWorkers:
	default:
		w = make(chan func())
		go work(w)
	}
	var p any
	done := make(chan struct{})
	w <- func() {
		defer func() {
			p = recover()
			close(done)
		}()
		f()
	}
	<-done
	if p != nil {
		panic(p)
	}
}

func work(jobs chan func()) {
	var sink byte // keeps growStack's frame from being optimized away
	for f := range jobs {
		// The collector halves an idle goroutine's stack: grown again
		// here, where the stack is two frames deep, it costs next to
		// nothing.
		sink = growStack(int(sink))
		f()
		select {
		case idleWorkers <- jobs:
		default:
			return
		}
	}
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
