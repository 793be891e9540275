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
package mcpkit
