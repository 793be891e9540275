package model

import (
	"fmt"
	"strings"
)

// Client is how one agent client names an MCP tool for its model's API:
// the name the model sees is Prefix(server) + tool, and the model API
// refuses (or the client shortens or filters out) one longer than Max.
type Client struct {
	// Name is the client as people call it.
	Name string `json:"client"`
	// Pattern shows the name the model sees.
	Pattern string `json:"pattern"`
	// Max is the longest name the client passes on whole.
	Max int `json:"max"`
	// Prefix is what the client puts before a tool's name, given the name
	// the server is registered under.
	Prefix func(server string) string `json:"-"`
	// Chars are the characters the name may hold; the client replaces
	// others (tailor's names keep to a-z A-Z 0-9 _ -, which all accept).
	Chars string `json:"chars"`
	// Over says what happens past Max.
	Over string `json:"over"`
}

// Clients are the name rules of the major agent clients, read in their
// published code (the npm packages named) and documentation. Every tool
// name tailor makes fits all of them; NameBudget is the tightest.
var Clients = []Client{
	{
		// @anthropic-ai/claude-agent-sdk (and Claude Code): "mcp__" +
		// server + "__" + tool, characters outside [a-zA-Z0-9_-] of the
		// server name replaced by "_"; the Anthropic API takes names of
		// ^[a-zA-Z0-9_-]{1,64}$.
		Name: "Claude Code", Pattern: "mcp__<server>__<tool>", Max: 64, Chars: "a-zA-Z0-9_-",
		Prefix: func(s string) string { return "mcp__" + s + "__" },
		Over:   "the Anthropic API refuses the request",
	},
	{
		// @google/gemini-cli-core (generateValidName in tools/mcp-tool):
		// "mcp_" + server + "_" + tool, characters outside
		// [a-zA-Z0-9_.:-] replaced by "_"; over 63 characters the middle
		// is replaced by "...", which can make two tools one.
		Name: "Gemini CLI", Pattern: "mcp_<server>_<tool>", Max: 63, Chars: "a-zA-Z0-9_.:-",
		Prefix: func(s string) string { return "mcp_" + s + "_" },
		Over:   "the name is cut to its first and last 30 characters",
	},
	{
		// Cursor (closed source): server name and tool name together must
		// stay under 60 characters, else it filters the tool out ("Combined
		// server and tool name length (60) exceeds 60 characters").
		Name: "Cursor", Pattern: "<server><tool>", Max: 59, Chars: "a-zA-Z0-9_-",
		Prefix: func(s string) string { return s },
		Over:   "the tool is filtered out",
	},
	{
		// OpenAI function names (the Agents SDK passes MCP tool names
		// as they are): ^[a-zA-Z0-9_-]{1,64}$.
		Name: "OpenAI", Pattern: "<tool>", Max: 64, Chars: "a-zA-Z0-9_-",
		Prefix: func(string) string { return "" },
		Over:   "the API refuses the request",
	},
}

// MinNameBudget is the fewest characters NameBudget leaves a tool name,
// however long the server's name: below it names stop saying what they do
// (the server name's own check says to shorten it).
const MinNameBudget = 24

// Limit is the longest tool name c passes whole for a server registered
// as server.
func (c Client) Limit(server string) int { return c.Max - len(c.Prefix(clientServerName(server))) }

// NameBudget is the longest tool name every client of Clients passes
// whole for a server registered as server, and never more than
// MaxToolName nor less than MinNameBudget.
func NameBudget(server string) int {
	budget := MaxToolName
	for _, c := range Clients {
		budget = min(budget, c.Limit(server))
	}
	return max(budget, MinNameBudget)
}

// OverLimit lists the clients whose limit name exceeds for server.
func OverLimit(server, name string) []Client {
	var out []Client
	for _, c := range Clients {
		if len(name) > c.Limit(server) {
			out = append(out, c)
		}
	}
	return out
}

// clientServerName is the server's name as the clients count it: each
// byte that is not a-z A-Z 0-9 _ - becomes "_" (the clients replace each
// UTF-16 unit: a letter beyond ASCII counts as its bytes here, which can
// only overcount).
func clientServerName(s string) string {
	if s == "" {
		return "server"
	}
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// tightest says which client sets the budget for server, as a reader
// checks it: "Claude Code names it mcp__shop__<tool>, 64 characters in all".
func tightest(server string) string {
	c := Clients[0]
	for _, x := range Clients[1:] {
		if x.Limit(server) < c.Limit(server) {
			c = x
		}
	}
	return fmt.Sprintf("%s names it %s<tool>, %d characters in all", c.Name, c.Prefix(clientServerName(server)), c.Max)
}

// FitName suggests a shorter form of a tool name chosen by hand, within
// max characters, by the same steps as the names tailor chooses.
func FitName(name string, max int) string { return shorten(name, max, nil) }

// Over describes the clients whose limit name exceeds for server, for a
// message: "Claude Code (mcp__shop__<tool>: 66 of 64 characters), Cursor
// (...)"; "" when it fits all.
func Over(server, name string) string {
	var parts []string
	for _, c := range OverLimit(server, name) {
		p := c.Prefix(clientServerName(server))
		parts = append(parts, fmt.Sprintf("%s (%s<tool>: %d of %d characters)", c.Name, p, len(p)+len(name), c.Max))
	}
	return strings.Join(parts, ", ")
}

// ClientNames is a tool set's names against one client's limit.
type ClientNames struct {
	Client string `json:"client"`
	// Pattern is the name the model sees: mcp__shop__<tool>.
	Pattern string `json:"pattern"`
	// Max is the client's limit on the whole name, Limit what it leaves
	// the tool's name with this server's name.
	Max   int `json:"max"`
	Limit int `json:"tool_name_limit"`
	// Over are the tools whose names are longer than Limit.
	Over []string `json:"over"`
}

// NamesByClient checks names against each client of Clients for a server
// registered as server.
func NamesByClient(server string, names []string) []ClientNames {
	out := make([]ClientNames, len(Clients))
	for i, c := range Clients {
		out[i] = ClientNames{Client: c.Name, Pattern: strings.ReplaceAll(c.Pattern, "<server>", clientServerName(server)), Max: c.Max, Limit: c.Limit(server), Over: []string{}}
		for _, n := range names {
			if len(n) > out[i].Limit {
				out[i].Over = append(out[i].Over, n)
			}
		}
	}
	return out
}
