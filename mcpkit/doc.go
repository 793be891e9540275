// Package mcpkit is the run-time library of the MCP servers tailor generates.
//
// Generated code holds only what is specific to an API: tool definitions
// (name, description, JSON schemas, annotations) and one handler per tool
// that reads like the request it makes. Everything else lives here, written
// and tested once: argument validation against the input schema, building
// the HTTP request so that model-filled values cannot escape their slot,
// credentials, retries for read-only calls, shaping responses and failures
// into results the model can act on, and the stdio and streamable HTTP
// transports.
//
// A handler looks like this:
//
//	func showPetByID(c *mcpkit.Call) *mcp.CallToolResult {
//		r := c.Request(http.MethodGet, "/pets/{petId}")
//		r.Path("petId", c.Arg("petId"), mcpkit.Simple)
//		return c.Do(r)
//	}
//
// # Identity policy
//
// Context values (a customer, a tenant, a user: whatever the overlay's
// server.context names) identify the caller and never come from the model.
// Each is resolved per call, by the first rule that applies:
//
//  1. A claim of the caller's verified bearer token. It must be a
//     non-empty string; a number, object, array or boolean is refused,
//     never turned into text.
//  2. When bearer tokens are verified (Config.Verifier, or a request that
//     carries a verified token), nothing else counts: a token without the
//     claim leaves the value missing, and the request's header and the
//     server's environment are ignored, unless the operator allows
//     unverified sources (Config.AllowUnverifiedContext;
//     --allow-unverified-context), in which case they fill only a claim
//     the token lacks.
//  3. Otherwise the MCP HTTP request's header, then the server's
//     environment variable. Over stdio there are no headers: the
//     environment is the session's identity.
//
// A missing or refused value makes the call an isError result before
// anything is sent. NewRuntime refuses a verifier with a context value that has
// no claim source (unless unverified sources are allowed); Run refuses to
// read identity headers on a non-loopback address unless the operator says
// a gateway sets them (--trust-context-headers). identity.go enforces this.
//
// # Approvals and quotes
//
// A confirm tool reserves its quote in the QuoteStore before asking the
// person, and counts an answer only with the signed requestState of the
// request it made (approval.go): for this quote, tool, session and caller,
// once. A run that stops part-way keeps its progress in the quote, and the
// next confirm finishes it (steps.go).
//
// # Exported surface
//
// Generated code uses:
//
//   - Main, NewServer, API, Config, Register, Runtime: the program and the
//     server a generated package builds.
//   - Tool, Handler, Call, Request, Value, Fixed, M: a tool's definition,
//     its handler and the request it makes.
//   - Style and its values (Simple, SimpleExplode, Form, FormNoExplode,
//     FormStyle, DeepObject, JSON, JSONValue, Multipart, Raw): how a
//     parameter or body is serialized.
//   - Scheme, SchemeKind (Bearer, Basic, APIKey), Scope, ContextValue:
//     credentials, per-tool scopes and caller context.
//   - QuoteSpec, Confirmation, Approval, Step, ErrorRule, Field, Toolset:
//     quotes, confirm runs, error rules and tool groups of an overlay.
//
// A program that embeds a generated server uses:
//
//   - Config and its parts: OAuth (an issuer's tokens), Selection (which
//     tools a session sees), ReadyCheck,
//     ToolRule with RequestInfo and Refusal (per-request tool policy).
//   - Run (Main with explicit streams), NewRuntime.
//   - HeaderPrefix, RequestIDHeader: the HTTP headers the server reads
//     and writes.
//   - The packages mcpkit/quotestore, for a quote store of its own, and
//     mcpkit/telemetry, for OpenTelemetry providers of its own.
//
// tailor itself (the compiler and tailor serve) uses:
//
//   - Catalog, LookupMessage, Message: the messages the model reads.
//   - ParseTemplate, TemplateFuncs: the overlay's message templates.
//   - MetaTools and the meta-tool names (ListToolsetsTool,
//     EnableToolsetsTool, SearchToolsTool, DescribeToolTool,
//     CallToolTool): the tools of dynamic selection.
//
// Below the root, in packages of their own: bearer-token verification and
// the HTTP gate (internal/bearer), redaction (internal/redact), log-line
// limits (internal/loglimit), Redis connections (internal/redisconn), the
// quote stores (quotestore) and the telemetry providers (telemetry).
package mcpkit
