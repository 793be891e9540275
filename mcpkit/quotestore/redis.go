package quotestore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis keeps quotes in Redis, so that replicas of a server
// share them: a quote made on one is confirmed on another, and single use
// holds across all of them. Every Store method is one server-side
// atomic step (a Lua script, or one command), so the check and the change
// of a reservation can never interleave with another replica's.
//
// Keys, under a prefix per server (several servers can share one Redis):
//
//	<prefix>:quote:<id>  a hash: the quote as JSON ("q"), its reservation
//	                     ("by", "until" in Unix ms), when it was used
//	                     ("used"), the run's progress as JSON ("progress"),
//	                     the record kept of it once used ("stub": the
//	                     quote without its arguments and body, which
//	                     replaces "q" then); it expires natively
//	                     (PEXPIREAT) Keep after the quote does, so a late
//	                     confirm hears "expired".
//	<prefix>:quotes      a sorted set of the ids of quotes not used, by
//	                     expiry (Unix ms): the count that bounds the store.
//	<prefix>:used        a sorted set of the ids of used quotes, by the end
//	                     of their keep time: the count of used quotes
//	                     remembered.
//	<prefix>:caller:<h>  a sorted set, by expiry, of the quotes of one
//	                     caller (h: a hash of Quote.Caller) that may still
//	                     be open, for the per-caller bound; it expires with
//	                     the caller's last quote.
//
// The store is bounded like the memory store: Save drops the index
// entries of quotes gone (their keys expired), and at MaxQuotes drops
// expired quotes that hold no progress, oldest first, then refuses new
// quotes with ErrFull, all in the one script. Before that, a
// caller holding MaxPerCaller open quotes is refused with
// ErrCallerFull. Consume moves the quote from the first count to
// the used one, whose entries past MaxUsed are forgotten, closest to their
// end first: used quotes never take the room of new ones, and a confirm
// is never refused for room. Each Save and Consume does a bounded amount
// of that work. Redis's own maxmemory (with the noeviction policy) bounds
// the bytes; a write Redis refuses for memory is ErrFull too.
//
// Times come from the callers (as with the memory store): the replicas'
// clocks must agree to within a few seconds.
//
// A failure to reach Redis, or a command that does not answer within the
// client's timeouts, is an error wrapping ErrUnavailable; the
// client never retries a command (a script whose answer was lost may have
// run), so such an error leaves the caller not knowing, and doing nothing
// further.
type Redis struct {
	client redis.UniversalClient
	prefix string
	// Keep is how long quotes are kept after they expire (default 1h).
	Keep time.Duration
	// MaxQuotes bounds the quotes kept that are not used (0:
	// DefaultMaxQuotes).
	MaxQuotes int
	// MaxUsed bounds the used quotes remembered (0: DefaultMaxUsedQuotes).
	MaxUsed int
	// MaxPerCaller bounds the open quotes of one Quote.Caller (0:
	// DefaultMaxQuotesPerCaller; negative: no bound).
	MaxPerCaller int
}

// NewRedis returns a store on client whose keys start with
// prefix + ":".
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix, Keep: time.Hour}
}

func (s *Redis) quoteKey(id string) string { return s.prefix + ":quote:" + id }
func (s *Redis) indexKey() string          { return s.prefix + ":quotes" }
func (s *Redis) usedKey() string           { return s.prefix + ":used" }

// callerKey is the key of caller's open quotes: hashed, so that what a
// caller is made of never shapes a key.
func (s *Redis) callerKey(caller string) string {
	sum := sha256.Sum256([]byte(caller))
	return s.prefix + ":caller:" + hex.EncodeToString(sum[:16])
}

// Answers of the scripts (other than "ok").
var scriptAnswers = map[string]error{
	"not_found":    ErrNotFound,
	"used":         ErrUsed,
	"reserved":     ErrReserved,
	"not_reserved": ErrNotReserved,
	"full":         ErrFull,
	"caller_full":  ErrCallerFull,
}

// saveScript: KEYS quote, index, caller's quotes, used index; ARGV id, quote JSON,
// now, expires, keep-until (Unix ms), the cap, the quote key's prefix, the
// caller's bound (0: none), the record kept once used (JSON).
var saveScript = redis.NewScript(`
local now, expires, cap = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[6])
local keep = tonumber(ARGV[5]) - expires
local percaller = tonumber(ARGV[8])
if percaller > 0 then
  -- Expired quotes are not open; used ones leave when the bound is
  -- reached, so each is walked past once.
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  redis.call('ZREM', KEYS[3], ARGV[1])
  if redis.call('ZCARD', KEYS[3]) >= percaller then
    for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
      if redis.call('EXISTS', ARGV[7] .. id) == 0 or redis.call('HEXISTS', ARGV[7] .. id, 'used') == 1 then
        redis.call('ZREM', KEYS[3], id)
      end
    end
    if redis.call('ZCARD', KEYS[3]) >= percaller then
      return 'caller_full'
    end
  end
end
-- Index entries of quotes past their keep time: their keys are gone or
-- going; a bounded batch per save keeps every save O(1) amortized.
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - keep, 'LIMIT', 0, 256)
for _, id in ipairs(gone) do
  redis.call('DEL', ARGV[7] .. id)
  redis.call('ZREM', KEYS[2], id)
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= cap then
  -- Expired quotes are kept only for a kinder message; a run that stopped
  -- part-way is kept for its resumption.
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3], 'LIMIT', 0, 256)
  for _, id in ipairs(expired) do
    if redis.call('HEXISTS', ARGV[7] .. id, 'progress') == 0 then
      redis.call('DEL', ARGV[7] .. id)
      redis.call('ZREM', KEYS[2], id)
    end
  end
  if redis.call('ZCARD', KEYS[2]) >= cap then
    return 'full'
  end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'q', ARGV[2], 'stub', ARGV[9])
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], expires, ARGV[1])
if percaller > 0 then
  redis.call('ZADD', KEYS[3], expires, ARGV[1])
  if redis.call('PTTL', KEYS[3]) < 0 then
    redis.call('PEXPIREAT', KEYS[3], expires)
  else
    redis.call('PEXPIREAT', KEYS[3], expires, 'GT')
  end
end
return 'ok'
`)

// reserveScript: KEYS quote; ARGV from, to, until, now (Unix ms).
var reserveScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'not_found' end
local f = redis.call('HMGET', KEYS[1], 'used', 'by', 'until')
if f[1] then return 'used' end
if ARGV[1] == '' then
  if f[2] and f[2] ~= '' and tonumber(ARGV[4]) < tonumber(f[3]) then return 'reserved' end
elseif f[2] ~= ARGV[1] then
  return 'not_reserved'
end
redis.call('HSET', KEYS[1], 'by', ARGV[2], 'until', ARGV[3])
return 'ok'
`)

// releaseScript: KEYS quote; ARGV token, progress JSON ("": none).
var releaseScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'not_found' end
if ARGV[1] == '' or redis.call('HGET', KEYS[1], 'by') ~= ARGV[1] then return 'not_reserved' end
redis.call('HDEL', KEYS[1], 'by', 'until')
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], 'progress')
else
  redis.call('HSET', KEYS[1], 'progress', ARGV[2])
end
return 'ok'
`)

// checkpointScript: KEYS quote; ARGV token, progress JSON ("": none).
var checkpointScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'not_found' end
local f = redis.call('HMGET', KEYS[1], 'used', 'by')
if f[1] then return 'used' end
if ARGV[1] == '' or f[2] ~= ARGV[1] then return 'not_reserved' end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], 'progress')
else
  redis.call('HSET', KEYS[1], 'progress', ARGV[2])
end
return 'ok'
`)

// consumeScript: KEYS quote, index, used index; ARGV token, used at (Unix
// ms), id, Keep (ms), the bound of used quotes, the quote key's prefix.
var consumeScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'not_found' end
local f = redis.call('HMGET', KEYS[1], 'used', 'by', 'stub')
if f[1] then return 'used' end
if ARGV[1] == '' or f[2] ~= ARGV[1] then return 'not_reserved' end
redis.call('HSET', KEYS[1], 'used', ARGV[2])
if f[3] then
  redis.call('HSET', KEYS[1], 'q', f[3])
end
redis.call('HDEL', KEYS[1], 'by', 'until', 'progress', 'stub')
-- From the count of quotes not used to the count of used ones, scored by
-- the end of the key's life.
local ends = tonumber(ARGV[2]) + redis.call('PTTL', KEYS[1])
local expires = redis.call('ZSCORE', KEYS[2], ARGV[3])
if expires then
  ends = tonumber(expires) + tonumber(ARGV[4])
end
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], ends, ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[5])
if over > 0 then
  -- ZPOPMIN answers member, score, member, score, ...
  local popped = redis.call('ZPOPMIN', KEYS[3], over)
  for i = 1, #popped, 2 do
    redis.call('DEL', ARGV[6] .. popped[i])
  end
end
return 'ok'
`)

func (s *Redis) run(ctx context.Context, script *redis.Script, keys []string, args ...any) error {
	answer, err := script.Run(ctx, s.client, keys, args...).Text()
	if err != nil {
		return redisError(err)
	}
	if answer == "ok" {
		return nil
	}
	if e, ok := scriptAnswers[answer]; ok {
		return e
	}
	return fmt.Errorf("quote store: unexpected answer %q", answer)
}

// redisError classifies a Redis failure: out of memory is a full store;
// anything else means the store cannot be used now.
func redisError(err error) error {
	if strings.HasPrefix(err.Error(), "OOM ") {
		return fmt.Errorf("%w: %w", ErrFull, err)
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

func (s *Redis) Save(ctx context.Context, q *Quote) error {
	stored := *q
	stored.Used, stored.UsedAt, stored.ReservedBy, stored.ReservedUntil, stored.Progress = false, time.Time{}, "", time.Time{}, nil
	data, err := json.Marshal(&stored)
	if err != nil {
		return err
	}
	record := usedRecord(&stored)
	record.Used = false // the hash's "used" says so
	stub, err := json.Marshal(&record)
	if err != nil {
		return err
	}
	limit := s.MaxQuotes
	if limit <= 0 {
		limit = DefaultMaxQuotes
	}
	perCaller := s.MaxPerCaller
	if perCaller == 0 {
		perCaller = DefaultMaxQuotesPerCaller
	}
	if perCaller < 0 || q.Caller == "" {
		perCaller = 0
	}
	keepUntil := q.Expires.Add(s.Keep)
	return s.run(ctx, saveScript, []string{s.quoteKey(q.ID), s.indexKey(), s.callerKey(q.Caller), s.usedKey()},
		q.ID, data, q.Created.UnixMilli(), q.Expires.UnixMilli(), keepUntil.UnixMilli(), limit, s.quoteKey(""), perCaller, stub)
}

func (s *Redis) Load(ctx context.Context, id string) (*Quote, error) {
	f, err := s.client.HGetAll(ctx, s.quoteKey(id)).Result()
	if err != nil {
		return nil, redisError(err)
	}
	data, ok := f["q"]
	if !ok {
		return nil, ErrNotFound
	}
	var q Quote
	if err := decodeNumbers(data, &q); err != nil {
		return nil, fmt.Errorf("quote store: quote %s does not read: %w", id, err)
	}
	q.ReservedBy = f["by"]
	q.ReservedUntil = unixMilli(f["until"])
	if used := unixMilli(f["used"]); !used.IsZero() {
		q.Used, q.UsedAt = true, used
	}
	if p, ok := f["progress"]; ok && p != "" {
		q.Progress = &Progress{}
		if err := decodeNumbers(p, q.Progress); err != nil {
			return nil, fmt.Errorf("quote store: the progress of quote %s does not read: %w", id, err)
		}
	}
	return &q, nil
}

// decodeNumbers reads JSON keeping numbers as json.Number, as the call
// that made the quote had them: 64-bit ids stay exact, and templates see
// the same values on every replica.
func decodeNumbers(data string, v any) error {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func unixMilli(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n == 0 {
		return time.Time{}
	}
	return time.UnixMilli(n)
}

func (s *Redis) Reserve(ctx context.Context, id string, r Reservation) error {
	return s.run(ctx, reserveScript, []string{s.quoteKey(id)}, r.From, r.To, r.Until.UnixMilli(), r.Now.UnixMilli())
}

func (s *Redis) Release(ctx context.Context, id, token string, progress *Progress) error {
	p, err := progressJSON(progress)
	if err != nil {
		return err
	}
	return s.run(ctx, releaseScript, []string{s.quoteKey(id)}, token, p)
}

func (s *Redis) Checkpoint(ctx context.Context, id, token string, progress *Progress) error {
	p, err := progressJSON(progress)
	if err != nil {
		return err
	}
	return s.run(ctx, checkpointScript, []string{s.quoteKey(id)}, token, p)
}

func (s *Redis) Consume(ctx context.Context, id, token string, at time.Time) error {
	limit := s.MaxUsed
	if limit <= 0 {
		limit = DefaultMaxUsedQuotes
	}
	return s.run(ctx, consumeScript, []string{s.quoteKey(id), s.indexKey(), s.usedKey()},
		token, at.UnixMilli(), id, s.Keep.Milliseconds(), limit, s.quoteKey(""))
}

func progressJSON(p *Progress) (string, error) {
	if p == nil {
		return "", nil
	}
	b, err := json.Marshal(p)
	return string(b), err
}

// Len is the number of quotes held that are not used (tests and
// metrics): what MaxQuotes bounds.
func (s *Redis) Len(ctx context.Context) (int, error) {
	return s.card(ctx, s.indexKey())
}

// UsedLen is the number of used quotes remembered: what MaxUsed bounds.
func (s *Redis) UsedLen(ctx context.Context) (int, error) {
	return s.card(ctx, s.usedKey())
}

func (s *Redis) card(ctx context.Context, key string) (int, error) {
	n, err := s.client.ZCard(ctx, key).Result()
	if err != nil {
		return 0, redisError(err)
	}
	return int(n), nil
}

// Ping checks that Redis answers: the server's readiness check.
func (s *Redis) Ping(ctx context.Context) error {
	if err := s.client.Ping(ctx).Err(); err != nil {
		return redisError(err)
	}
	return nil
}

// Prefix is what the store's keys start with (for the start-up log).
func (s *Redis) Prefix() string { return s.prefix }
