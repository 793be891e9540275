package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/tailormcp/tailor/internal/review/cost"
)

// errBudget stops a trial before a request that could take the run past
// its token budget.
var errBudget = errors.New("the token budget is spent")

// budget is the tokens a run may spend, shared by its trials, as a hard
// bound: before each model request it reserves what the request can cost
// at most (its input, estimated, and the whole reply its max_tokens
// allows) and makes the request only when what was spent, what the
// requests in flight reserved, and this reservation fit in the limit. A
// request that does not fit ends its trial and no new trial starts.
type budget struct {
	limit int64 // 0: no limit

	mu       sync.Mutex
	spent    int64
	reserved int64
	// unanswered is what requests that got no answer (timed out) had
	// reserved: the provider may have charged them, so they count as spent.
	unanswered int64
	refused    bool
	// ratio is the most input tokens a provider counted per token of
	// ours, over the run's requests so far (providers count in tokenizers
	// of their own, and add framing for tools).
	ratio float64
}

const (
	// firstRatio is the ratio assumed before a provider's usage says.
	firstRatio = 1.25
	// framing is what a provider may add to a request's input beyond its
	// text (the tool-use instructions Anthropic adds are ~350 tokens).
	framing = 512
)

// reservation is what a request of counted input tokens (ours) and a
// reply of at most maxOutput tokens may cost.
func (b *budget) reservation(counted, maxOutput int64) int64 {
	return int64(math.Ceil(float64(counted)*max(b.ratio, firstRatio))) + framing + maxOutput
}

// call makes a model request within the budget and counts its usage.
func (b *budget) call(_ context.Context, counted, maxOutput int64, do func() (*Turn, error)) (*Turn, error) {
	b.mu.Lock()
	est := b.reservation(counted, maxOutput)
	if b.limit > 0 && b.spent+b.unanswered+b.reserved+est > b.limit {
		b.refused = true
		b.mu.Unlock()
		return nil, fmt.Errorf("%w: %d of %d tokens spent, %d reserved by requests in flight; the next request could cost %d", errBudget, b.spent+b.unanswered, b.limit, b.reserved, est)
	}
	b.reserved += est
	b.mu.Unlock()
	t, err := do()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved -= est
	switch {
	case t != nil:
		b.spent += t.Usage.Total()
		if counted > 0 {
			b.ratio = max(b.ratio, float64(t.Usage.Input)/float64(counted))
		}
	case errors.Is(err, errTimeout) || errors.Is(err, context.DeadlineExceeded):
		b.unanswered += est
	}
	return t, err
}

// exhausted says whether a request was refused: no new trial starts.
func (b *budget) exhausted() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refused
}

// total is what the providers reported spent, and what requests that
// got no answer had reserved.
func (b *budget) total() (spent, unanswered int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent, b.unanswered
}

// countTokens is what sending c is in o200k_base tokens, our count of its
// input (providers count differently; the budget scales it).
func countTokens(c *Conversation) int64 {
	b, _ := json.Marshal(c)
	return int64(cost.Tokens(b))
}
