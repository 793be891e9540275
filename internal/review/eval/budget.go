package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/tailormcp/tailor/internal/review/cost"
)

// errBudget stops a trial before a request that could take the run past
// its token budget.
var errBudget = errors.New("the token budget is spent")

// budget is the tokens a run may spend, shared by its trials. A request
// is made only when what was spent, what requests in flight may spend,
// and this request's estimate fit in the limit; the estimate of a request
// is at least what the conversation's previous one cost (a conversation
// only grows).
type budget struct {
	limit int64 // 0: no limit

	mu       sync.Mutex
	spent    int64
	reserved int64
	refused  bool
}

// call makes a model request within the budget and counts its usage.
func (b *budget) call(_ context.Context, estimate int64, do func() (*Turn, error)) (*Turn, error) {
	b.mu.Lock()
	if b.limit > 0 && b.spent+b.reserved+estimate > b.limit {
		b.refused = true
		b.mu.Unlock()
		return nil, fmt.Errorf("%w (%d of %d tokens; the next request was estimated at %d)", errBudget, b.spent, b.limit, estimate)
	}
	b.reserved += estimate
	b.mu.Unlock()
	t, err := do()
	b.mu.Lock()
	b.reserved -= estimate
	if t != nil {
		b.spent += t.Usage.Total()
	}
	b.mu.Unlock()
	return t, err
}

// exhausted says whether a request was refused: no new trial starts.
func (b *budget) exhausted() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refused
}

func (b *budget) total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// estimateTokens is a floor for what sending c costs: its text in
// o200k_base tokens (providers count differently, most a little more).
func estimateTokens(c *Conversation) int64 {
	b, _ := json.Marshal(c)
	return int64(cost.Tokens(b))
}
