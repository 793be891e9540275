package repair

// The repair pass (repair.go) walks a spec's YAML knowing what each node
// is: which OpenAPI object, which map or list of them. This file is that
// knowledge, for OpenAPI 3.x and Swagger 2.0, as small tables.

// kind is the OpenAPI object a node holds; zero is anything the pass does
// not look into (extensions, examples' values, security requirements).
type kind uint8

const (
	kNone kind = iota
	kDoc
	kInfo
	kTag
	kServer
	kPathItem
	kOperation
	kParameter
	kRequestBody
	kResponse
	kMediaType
	kEncoding
	kHeader
	kSchema
	kExample
	kLink
	kCallback
	kSecurityScheme
	kComponents
	kExternalDocs
	kDiscriminator
)

var kindNames = [...]string{
	kNone: "value", kDoc: "document", kInfo: "info", kTag: "tag", kServer: "server",
	kPathItem: "path item", kOperation: "operation", kParameter: "parameter",
	kRequestBody: "request body", kResponse: "response", kMediaType: "media type",
	kEncoding: "encoding", kHeader: "header", kSchema: "schema", kExample: "example",
	kLink: "link", kCallback: "callback", kSecurityScheme: "security scheme",
	kComponents: "components", kExternalDocs: "external docs", kDiscriminator: "discriminator",
}

func (k kind) String() string { return kindNames[k] }

// slot is what a key holds: one object of a kind, or a map ('m') or list
// ('l') of them.
type slot struct {
	many byte
	kind kind
}

func one(k kind) slot   { return slot{kind: k} }
func mapOf(k kind) slot { return slot{many: 'm', kind: k} }
func listOf(k kind) slot {
	return slot{many: 'l', kind: k}
}

// methods are the keys of a path item that hold operations.
var methods = map[string]bool{
	"get": true, "put": true, "post": true, "delete": true, "options": true,
	"head": true, "patch": true, "trace": true, "query": true,
}

// schemaOne, schemaMap and schemaList are a schema's keywords that hold
// one subschema, a map of them and a list of them, in every version.
var (
	schemaOne = []string{"items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems", "itemSchema"}
	schemaMap  = []string{"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
	schemaList = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
)

// shapes3 says, per kind, what its keys hold in OpenAPI 3.x. Operations of
// a path item are handled by name (methods); a schema's subschemas by the
// lists above.
var shapes3 = map[kind]map[string]slot{
	kDoc: {"info": one(kInfo), "servers": listOf(kServer), "paths": mapOf(kPathItem), "webhooks": mapOf(kPathItem),
		"components": one(kComponents), "tags": listOf(kTag), "externalDocs": one(kExternalDocs)},
	kTag:      {"externalDocs": one(kExternalDocs)},
	kPathItem: {"parameters": listOf(kParameter), "servers": listOf(kServer), "additionalOperations": mapOf(kOperation)},
	kOperation: {"parameters": listOf(kParameter), "requestBody": one(kRequestBody), "responses": mapOf(kResponse),
		"callbacks": mapOf(kCallback), "servers": listOf(kServer), "externalDocs": one(kExternalDocs)},
	kParameter:   {"schema": one(kSchema), "content": mapOf(kMediaType), "examples": mapOf(kExample)},
	kHeader:      {"schema": one(kSchema), "content": mapOf(kMediaType), "examples": mapOf(kExample)},
	kRequestBody: {"content": mapOf(kMediaType)},
	kResponse:    {"headers": mapOf(kHeader), "content": mapOf(kMediaType), "links": mapOf(kLink)},
	kMediaType:   {"schema": one(kSchema), "itemSchema": one(kSchema), "examples": mapOf(kExample), "encoding": mapOf(kEncoding)},
	kEncoding:    {"headers": mapOf(kHeader)},
	kCallback:    {}, // a map of path items, walked as such
	kLink:        {"server": one(kServer)},
	kComponents: {"schemas": mapOf(kSchema), "responses": mapOf(kResponse), "parameters": mapOf(kParameter),
		"examples": mapOf(kExample), "requestBodies": mapOf(kRequestBody), "headers": mapOf(kHeader),
		"securitySchemes": mapOf(kSecurityScheme), "links": mapOf(kLink), "callbacks": mapOf(kCallback),
		"pathItems": mapOf(kPathItem), "mediaTypes": mapOf(kMediaType)},
	kSchema: {"discriminator": one(kDiscriminator), "externalDocs": one(kExternalDocs)},
}

// shapes2 is shapes3 for Swagger 2.0.
var shapes2 = map[kind]map[string]slot{
	kDoc: {"info": one(kInfo), "paths": mapOf(kPathItem), "definitions": mapOf(kSchema), "parameters": mapOf(kParameter),
		"responses": mapOf(kResponse), "securityDefinitions": mapOf(kSecurityScheme), "tags": listOf(kTag),
		"externalDocs": one(kExternalDocs)},
	kTag:       {"externalDocs": one(kExternalDocs)},
	kPathItem:  {"parameters": listOf(kParameter)},
	kOperation: {"parameters": listOf(kParameter), "responses": mapOf(kResponse), "externalDocs": one(kExternalDocs)},
	// A 2.0 parameter's items, and a header, are a restricted schema.
	kParameter: {"schema": one(kSchema), "items": one(kSchema)},
	kResponse:  {"schema": one(kSchema), "headers": mapOf(kHeader)},
	kHeader:    {"items": one(kSchema)},
	kSchema:    {"externalDocs": one(kExternalDocs)},
}

// refable are the kinds a $ref may stand for, so that kin-openapi follows
// it; a $ref anywhere else is the repair pass's to resolve.
var refable3 = map[kind]bool{kSchema: true, kResponse: true, kParameter: true, kExample: true, kRequestBody: true,
	kHeader: true, kSecurityScheme: true, kLink: true, kCallback: true, kPathItem: true}

var refable2 = map[kind]bool{kSchema: true, kResponse: true, kParameter: true, kPathItem: true}

// sections3 and sections2 name the components section that holds each
// kind, for $refs into the wrong one.
var sections3 = map[string]kind{"schemas": kSchema, "responses": kResponse, "parameters": kParameter,
	"examples": kExample, "requestBodies": kRequestBody, "headers": kHeader, "securitySchemes": kSecurityScheme,
	"links": kLink, "callbacks": kCallback, "pathItems": kPathItem}

var sections2 = map[string]kind{"definitions": kSchema, "parameters": kParameter, "responses": kResponse}

// texts are the keys that hold text in every object kind that has them
// (never in maps, where they would be names).
var texts = map[string]bool{"description": true, "summary": true, "title": true}

// fits reports whether the keys of an object written for one kind make
// sense as another: a request body with only description and content
// reads as a response.
func fitsKind(k kind, keys []string) bool {
	allowed := map[kind]map[string]bool{
		kResponse:    {"description": true, "content": true, "headers": true, "links": true},
		kRequestBody: {"description": true, "content": true, "required": true},
		kHeader:      {"description": true, "required": true, "deprecated": true, "schema": true, "content": true, "example": true, "examples": true, "style": true, "explode": true},
		kExample:     {"summary": true, "description": true, "value": true, "externalValue": true},
	}[k]
	if allowed == nil {
		return false
	}
	for _, key := range keys {
		if !allowed[key] && !isExtension(key) {
			return false
		}
	}
	return true
}

func isExtension(key string) bool { return len(key) > 2 && key[0] == 'x' && key[1] == '-' }
