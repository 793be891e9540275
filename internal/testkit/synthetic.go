package testkit

import (
	"fmt"
	"strings"
)

// SyntheticSpec writes an OpenAPI 3.0 description with ops operations (a
// multiple of five is exact), shaped like a large real API rather than a
// minimal one: resources of five operations each (list with paging and a
// filter, create, get, update, delete), each resource with its own schema
// that refers to shared ones, shared parameters and a shared error answer.
// It is written compactly (flow style), about 240 bytes an operation, the
// density of the 50,000-operation spec issue 31 measured (11.8 MB). The
// scale test and `make bench` use it to see how memory and start-up time
// grow with the number of operations.
func SyntheticSpec(ops int) []byte {
	resources := (ops + 4) / 5
	var b strings.Builder
	b.Grow(ops * 250)
	b.WriteString("openapi: 3.0.3\ninfo: {title: Synthetic, version: 1.0.0}\nservers: [{url: \"https://api.example.com/v1\"}]\npaths:\n")
	// ok is a 200 or 201 answer with the resource's answer s; the error
	// answer is shared.
	ok := func(code, s string) string {
		return fmt.Sprintf(`{"%s": {$ref: "#/components/responses/%s"}, default: {$ref: "#/components/responses/Error"}}`, code, s)
	}
	body := func(s string) string { return fmt.Sprintf(`{$ref: "#/components/requestBodies/%s"}`, s) }
	n := 0
	for r := range resources {
		res := fmt.Sprintf("item%d", r)
		g := r % 50
		fmt.Fprintf(&b, "  /%ss:\n", res)
		if n < ops {
			fmt.Fprintf(&b, "    get: {operationId: list_%ss, summary: List %s records., tags: [g%d], parameters: [$ref: \"#/components/parameters/limit\", $ref: \"#/components/parameters/cursor\", $ref: \"#/components/parameters/state\"], responses: %s}\n", res, res, g, ok("200", res+"Page"))
			n++
		}
		if n < ops {
			fmt.Fprintf(&b, "    post: {operationId: create_%s, summary: Create a %s record., tags: [g%d], requestBody: %s, responses: %s}\n", res, res, g, body(res), ok("201", res))
			n++
		}
		if n >= ops {
			continue
		}
		fmt.Fprintf(&b, "  /%ss/{id}:\n    parameters: [$ref: \"#/components/parameters/id\"]\n", res)
		for _, m := range []string{"get", "patch", "delete"} {
			if n >= ops {
				break
			}
			fmt.Fprintf(&b, "    %s: {operationId: %s_%s, summary: %s one %s record., tags: [g%d], ", m, m, res, strings.ToUpper(m[:1])+m[1:], res, g)
			if m == "patch" {
				fmt.Fprintf(&b, "requestBody: %s, ", body(res))
			}
			fmt.Fprintf(&b, "responses: %s}\n", ok("200", res))
			n++
		}
	}
	b.WriteString(`components:
  parameters:
    id: {name: id, in: path, required: true, schema: {type: string}}
    limit: {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 100}}
    cursor: {name: cursor, in: query, schema: {type: string}}
    state: {name: state, in: query, schema: {$ref: "#/components/schemas/State"}}
  responses:
    Error: {description: An error., content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}}
`)
	for r := range resources {
		fmt.Fprintf(&b, "    item%[1]d: {description: OK, content: {application/json: {schema: {$ref: \"#/components/schemas/item%[1]d\"}}}}\n", r)
		fmt.Fprintf(&b, "    item%[1]dPage: {description: OK, content: {application/json: {schema: {$ref: \"#/components/schemas/item%[1]dPage\"}}}}\n", r)
	}
	b.WriteString("  requestBodies:\n")
	for r := range resources {
		fmt.Fprintf(&b, "    item%[1]d: {required: true, content: {application/json: {schema: {$ref: \"#/components/schemas/item%[1]d\"}}}}\n", r)
	}
	b.WriteString(`  schemas:
    Error: {type: object, required: [code, message], properties: {code: {type: string}, message: {type: string}}}
    State: {type: string, enum: [open, closed]}
    Address: {type: object, properties: {line1: {type: string}, city: {type: string}, postal_code: {type: string}, country: {type: string, minLength: 2, maxLength: 2}}}
    Money: {type: object, required: [amount, currency], properties: {amount: {type: integer, description: In the currency's smallest unit.}, currency: {type: string, minLength: 3, maxLength: 3}}}
`)
	for r := range resources {
		res := fmt.Sprintf("item%d", r)
		fmt.Fprintf(&b, `    %[1]s: {type: object, required: [name], properties: {id: {type: string, readOnly: true}, name: {type: string, description: The %[1]s's name.}, state: {$ref: "#/components/schemas/State"}, price: {$ref: "#/components/schemas/Money"}, address: {$ref: "#/components/schemas/Address"}, created: {type: string, format: date-time, readOnly: true}}}
    %[1]sPage: {type: object, properties: {items: {type: array, items: {$ref: "#/components/schemas/%[1]s"}}, next_cursor: {type: string}}}
`, res)
	}
	return []byte(b.String())
}
