package mcpkit

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/mcpkit/quotestore"
)

// An approval answers a request the server made, for this call, once.
//
// When a confirm tool needs the person's approval, the server first
// reserves the quote under a fresh random token (the nonce), then returns
// an input request with a requestState: an HS256-signed token of the quote
// id, the tool, a hash of the session id and the caller's identity (in
// stateless HTTP there is no session: the identity alone), the nonce and
// an expiry. The client (natively, or go-sdk on its behalf by eliciting on
// the session) calls again with the person's answer and that state. Only
// an answer whose state verifies, names this quote, tool and caller, and
// whose nonce still holds the quote's reservation counts; accepting swaps
// the reservation to a new token in one atomic store step, so a replayed
// state finds the quote no longer reserved by its nonce. inputResponses
// without a valid state count as no approval: the person is asked.
//
// The key is random per process unless Config.ApprovalKey is set, so a
// state can be checked without any server memory (stateless HTTP), and
// replicas sharing the key and the quote store check each other's.

// approvalWindow bounds how long the person has to answer.
const approvalWindow = 10 * time.Minute

// approvalClaims is the payload of a requestState.
type approvalClaims struct {
	Quote string `json:"qid"`
	Tool  string `json:"tool"`
	Bind  string `json:"bind"`
	Nonce string `json:"nonce"`
	jwt.Claims
}

// stateSigner signs and verifies request states.
type stateSigner struct {
	key      []byte
	audience string
	signer   jose.Signer
	// kid names the key in each state's header, so that a state signed by
	// a replica with another key is told from a forged one (see otherKey).
	kid string
}

func newStateSigner(key []byte, audience string) (*stateSigner, error) {
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
	} else if len(key) < 32 {
		return nil, fmt.Errorf("the approval key has %d bytes; give at least 32 (random) bytes", len(key))
	}
	// A key of its own, derived, so that a key shared with another use
	// (a token secret) never makes that use's tokens valid states.
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("tailor approval request state v1"))
	derived := mac.Sum(nil)
	sum := sha256.Sum256(derived)
	kid := hex.EncodeToString(sum[:6])
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: derived},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		return nil, err
	}
	return &stateSigner{key: derived, kid: kid, audience: audience, signer: signer}, nil
}

func (s *stateSigner) sign(c approvalClaims) (string, error) {
	c.Audience = jwt.Audience{s.audience}
	return jwt.Signed(s.signer).Claims(c).Serialize()
}

// otherKey reports whether a state that does not verify names another
// key than this server's: issued by a replica configured with another
// approval key (or forged to look so; either way it counts for nothing).
func (s *stateSigner) otherKey(state string) bool {
	t, err := jwt.ParseSigned(state, []jose.SignatureAlgorithm{jose.HS256})
	if err != nil || len(t.Headers) != 1 {
		return false
	}
	kid := t.Headers[0].KeyID
	return kid != "" && kid != s.kid
}

// errStateExpired says a request state verified but its time is up.
var errStateExpired = errors.New("the request state expired")

func (s *stateSigner) verify(state string) (*approvalClaims, error) {
	t, err := jwt.ParseSigned(state, []jose.SignatureAlgorithm{jose.HS256})
	if err != nil {
		return nil, err
	}
	var c approvalClaims
	if err := t.Claims(s.key, &c); err != nil {
		return nil, err
	}
	if c.Expiry == nil {
		return nil, errors.New("the request state has no expiry")
	}
	// The expiry and audience count; iat only records when (on the
	// runtime's clock, which tests may set).
	times := c.Claims
	times.IssuedAt = nil
	err = times.ValidateWithLeeway(jwt.Expected{AnyAudience: jwt.Audience{s.audience}, Time: time.Now()}, 0)
	if errors.Is(err, jwt.ErrExpired) {
		return nil, errStateExpired
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// binding ties a request state to this session and caller.
func (c *Call) binding() string {
	session := ""
	if c.req != nil && c.req.Session != nil {
		session = c.req.Session.ID()
	}
	sum := sha256.Sum256([]byte(session + "\x00" + c.identity()))
	return hex.EncodeToString(sum[:])
}

// answer is what a confirm call brought back for its approval request.
type answer struct {
	claims *approvalClaims
	result *mcp.ElicitResult
	// ignored says why inputResponses or a requestState were not taken
	// as an answer (for the audit log).
	ignored string
	// otherKey: the state was signed with another approval key.
	otherKey bool
}

// approvalAnswer checks the call's requestState and inputResponses. It
// returns nil when the call carries neither.
func (c *Call) approvalAnswer(quoteID string) *answer {
	if c.req == nil || c.req.Params == nil {
		return nil
	}
	p := c.req.Params
	if p.RequestState == "" && len(p.InputResponses) == 0 {
		return nil
	}
	if p.RequestState == "" {
		return &answer{ignored: "inputResponses without a requestState"}
	}
	claims, err := c.kit.states.verify(p.RequestState)
	switch {
	case errors.Is(err, errStateExpired):
		return &answer{ignored: "requestState expired"}
	case err != nil && c.kit.states.otherKey(p.RequestState):
		return &answer{ignored: "requestState signed with another approval key", otherKey: true}
	case err != nil:
		return &answer{ignored: "requestState not issued by this server"}
	case claims.Tool != c.tool.Name || claims.Quote != quoteID:
		return &answer{ignored: "requestState issued for another quote or tool"}
	case claims.Bind != c.binding():
		return &answer{ignored: "requestState issued to another session or caller"}
	}
	a := &answer{claims: claims}
	a.result, _ = p.InputResponses["approval"].(*mcp.ElicitResult)
	return a
}

// canElicit reports whether the client can show the person an approval
// request: from the request's own capabilities (2026-07-28 protocol) or the
// session's.
func (c *Call) canElicit() bool {
	if c.req == nil {
		return false
	}
	caps := c.req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil
}

// inputRequest asks the person to approve msg, with the signed state of
// the reservation.
func (c *Call) inputRequest(q *quotestore.Quote, nonce string, until time.Time, msg string) (*mcp.CallToolResult, error) {
	state, err := c.kit.states.sign(approvalClaims{Quote: q.ID, Tool: c.tool.Name, Bind: c.binding(), Nonce: nonce,
		Claims: jwt.Claims{Expiry: jwt.NewNumericDate(until), IssuedAt: jwt.NewNumericDate(c.kit.now())}})
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{
			"approval": &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}},
		},
		RequestState: state,
	}, nil
}

// pendingReservation lets the server release a quote reserved for an approval
// request when the round trip fails before the handler sees the answer
// (go-sdk elicits on the session for older clients; when that fails, the
// handler is not called again).
type pendingReservation struct {
	mu    sync.Mutex
	quote string
	token string
	// asked is what the audit line of an approval request that got no
	// answer says: the tool, the call's argument hash and caller.
	asked *auditRecord
}

type pendingKey struct{}

func (p *pendingReservation) set(quote, token string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.quote, p.token = quote, token
	p.mu.Unlock()
}

// setPending notes the reservation held for this call's approval request,
// and what an audit line says if the request gets no answer.
func (c *Call) setPending(quote, token string) {
	p := c.pending()
	if p == nil {
		return
	}
	p.set(quote, token)
	if token == "" {
		return
	}
	_, caller := c.owner()
	rec := &auditRecord{Msg: "audit", Tool: c.tool.Name, Session: c.sessionID(), RequestID: c.requestID,
		Args: "(not shown)", ArgsHash: c.argsHash(), Caller: caller}
	if q := c.audit.Quote; q != nil {
		rec.Quote = &auditQuote{ID: q.ID, Tool: q.Tool, Values: "(not shown)", Expires: q.Expires.UTC().Format(time.RFC3339)}
	}
	p.mu.Lock()
	p.asked = rec
	p.mu.Unlock()
}

func (p *pendingReservation) take() (quote, token string, asked *auditRecord) {
	p.mu.Lock()
	defer p.mu.Unlock()
	quote, token, asked = p.quote, p.token, p.asked
	p.quote, p.token, p.asked = "", "", nil
	return quote, token, asked
}

func (c *Call) pending() *pendingReservation {
	p, _ := c.ctx.Value(pendingKey{}).(*pendingReservation)
	return p
}

// releaseFailedApprovals is a receiving middleware, outside go-sdk's own:
// a tools/call that ends in a protocol error while its quote is reserved for
// an approval request gives the quote back.
func (k *Runtime) releaseFailedApprovals(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		p := &pendingReservation{}
		start := time.Now()
		res, err := next(context.WithValue(ctx, pendingKey{}, p), method, req)
		if err != nil {
			if quote, token, asked := p.take(); token != "" {
				if rerr := k.quotes.Release(context.WithoutCancel(ctx), quote, token, nil); rerr == nil {
					k.log.Info("approval request failed; quote released", "quote", quote, "error", err.Error())
				}
				k.auditUnanswered(asked, err, start)
			}
		}
		return res, err
	}
}

// otherKeyHolds refuses, saying why, an answer signed with another
// approval key while the quote is still held for an approval request:
// another replica asked, and this one cannot check the answer. (Asking
// afresh would only find the quote held.)
func (c *Call) otherKeyHolds(q *quotestore.Quote, a *answer) *mcp.CallToolResult {
	if !a.otherKey || q.ReservedBy == "" || !c.kit.now().Before(q.ReservedUntil) {
		return nil
	}
	c.logger().Error("an approval answer was signed by a replica with another approval key; nothing was done",
		"tool", c.tool.Name, "quote", q.ID, "fix", fmt.Sprintf("give every replica the same %s_APPROVAL_KEY", c.kit.api.EnvPrefix))
	return errorResult(c.say("approval_key_mismatch", M{"id": q.ID, "free_at": q.ReservedUntil.UTC().Format("15:04:05 UTC")}))
}

// auditUnanswered writes the audit line of an approval request that got no
// answer: the request go-sdk made on the session for a client without
// native input requests failed or timed out, so the handler never saw an
// answer. Nothing was done; the line says so, with the tool, the hash of
// the arguments and the caller (never the arguments or identity values).
func (k *Runtime) auditUnanswered(rec *auditRecord, err error, start time.Time) {
	if rec == nil {
		return
	}
	rec.Time = start.UTC().Format(time.RFC3339Nano)
	rec.Millis = time.Since(start).Milliseconds()
	rec.Outcome = "error"
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		rec.Approval = "timed out"
	case errors.Is(err, context.Canceled):
		rec.Approval = "cancelled"
	default:
		rec.Approval = "failed"
	}
	rec.Message = truncate("the approval request got no answer: "+err.Error(), 500)
	b, jerr := json.Marshal(rec)
	if jerr != nil {
		return
	}
	line := append(escapeInvisible(k.redactor.Bytes(b)), '\n')
	k.auditOut.mu.Lock()
	defer k.auditOut.mu.Unlock()
	k.auditOut.w.Write(line)
}
