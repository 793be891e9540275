package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Record is one audit line of a generated server (mcpkit's audit record),
// with where it was read.
type Record struct {
	Source string
	Line   int

	Time    time.Time
	Tool    string
	Session string
	// Args are the model's arguments; nil when the server refused them
	// before decoding (too large, not an object).
	Args     map[string]any
	Quote    *QuoteRef
	Approval string
	Calls    []Call
	Outcome  string
	Message  string
	Messages []string
	Rule     *int
	Invalid  []string
}

// QuoteRef is the quote a call made or carried out.
type QuoteRef struct {
	ID      string
	Tool    string
	Expires time.Time
}

// Call is one HTTP request a tool call made.
type Call struct {
	Step    string
	Method  string
	Path    string
	Status  int
	Outcome string
}

// Outcomes of an audit record (mcpkit's audit.go).
const (
	outcomeOK       = "ok"
	outcomeError    = "error"
	outcomeAwaiting = "awaiting approval"
)

// Log is what was read from audit logs: the records in time order, and
// what was skipped.
type Log struct {
	Sources []string
	Lines   int
	Records []*Record
	// OtherLines are JSON log lines that are not audit records.
	OtherLines int
	// Malformed are lines that are neither (not JSON, cut short, an audit
	// record missing what every record has), skipped.
	Malformed []Skipped
}

// Skipped is a line that could not be read, and why.
type Skipped struct {
	Source string `json:"source"`
	Line   int    `json:"line"`
	Why    string `json:"why"`
}

func (s Skipped) String() string { return fmt.Sprintf("%s:%d: %s", s.Source, s.Line, s.Why) }

// maxLine bounds one line; audit lines are at most 8 KiB, and a longer line
// is skipped without being held in memory.
const maxLine = 1 << 20

// Read adds the lines of r, named name, to the log. Only a failure to read
// r is an error: a line that cannot be used is counted and skipped.
func (l *Log) Read(name string, r io.Reader) error {
	l.Sources = append(l.Sources, name)
	br := bufio.NewReaderSize(r, 64<<10)
	line := 0
	for {
		text, tooLong, err := readLine(br)
		if len(text) > 0 || tooLong || err == nil {
			line++
			l.Lines++
			l.add(name, line, text, tooLong)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
	}
	sort.SliceStable(l.Records, func(i, j int) bool { return l.Records[i].Time.Before(l.Records[j].Time) })
	return nil
}

// readLine returns the next line without its end, or tooLong (and nothing)
// for a line over maxLine, which is read to its end and dropped.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxLine {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), tooLong, err
	}
}

func (l *Log) add(source string, line int, text []byte, tooLong bool) {
	skip := func(why string) { l.Malformed = append(l.Malformed, Skipped{source, line, why}) }
	if tooLong {
		skip(fmt.Sprintf("longer than %d bytes", maxLine))
		return
	}
	text = bytes.TrimSpace(text)
	if len(text) == 0 {
		return
	}
	var head struct {
		Msg any `json:"msg"`
	}
	if text[0] != '{' || json.Unmarshal(text, &head) != nil {
		if text[0] == '{' {
			skip("not valid JSON (cut short?)")
		} else {
			skip("not a JSON log line")
		}
		return
	}
	if head.Msg != "audit" {
		l.OtherLines++
		return
	}
	rec, why := parseRecord(text)
	if why != "" {
		skip("audit record " + why)
		return
	}
	rec.Source, rec.Line = source, line
	l.Records = append(l.Records, rec)
}

// auditLine is mcpkit's audit record as written.
type auditLine struct {
	Time     string          `json:"time"`
	Tool     string          `json:"tool"`
	Session  string          `json:"session"`
	Args     json.RawMessage `json:"args"`
	Quote    *auditQuote     `json:"quote"`
	Approval string          `json:"approval"`
	Calls    []Call          `json:"calls"`
	Outcome  string          `json:"outcome"`
	Message  string          `json:"message"`
	Messages []string        `json:"messages"`
	Rule     *int            `json:"error_rule"`
	Invalid  []string        `json:"invalid_args"`
}

type auditQuote struct {
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Expires string `json:"expires"`
}

func parseRecord(text []byte) (*Record, string) {
	var a auditLine
	if err := json.Unmarshal(text, &a); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, fmt.Sprintf("has a %s where `%s` should be a %s", te.Value, te.Field, te.Type)
		}
		return nil, "is not valid JSON"
	}
	switch {
	case a.Tool == "":
		return nil, "names no tool"
	case a.Outcome == "":
		return nil, "has no outcome"
	}
	t, err := time.Parse(time.RFC3339Nano, a.Time)
	if err != nil {
		return nil, fmt.Sprintf("has no valid time (%q)", truncate(a.Time, 40))
	}
	rec := &Record{Time: t, Tool: a.Tool, Session: a.Session, Approval: a.Approval, Calls: a.Calls,
		Outcome: a.Outcome, Message: a.Message, Messages: a.Messages, Rule: a.Rule, Invalid: a.Invalid}
	// Arguments refused undecoded are a string preview: no arguments.
	_ = json.Unmarshal(a.Args, &rec.Args)
	if q := a.Quote; q != nil && q.ID != "" {
		rec.Quote = &QuoteRef{ID: q.ID, Tool: q.Tool}
		rec.Quote.Expires, _ = time.Parse(time.RFC3339, q.Expires)
	}
	return rec, ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
