package bench

import (
	"os"
	"path/filepath"
	"strings"
)

// Spec is one OpenAPI description the benchmark runs both generators on,
// and the tool call it times: a read of one resource by id, the same
// operation on both sides (tailor names tools in snake_case, the
// alternative keeps the operationId).
type Spec struct {
	// Name is the generated package (tailor) and the label in the table.
	Name string
	// Path is the spec file.
	Path string
	// Ops is the number of operations, for the table.
	Ops int
	// TailorTool and AltTool name the same operation on each side; Args are
	// its arguments (JSON), the same for both.
	TailorTool, AltTool string
	Args                string
	// Method, BackendPath and Header are the HTTP request both servers make
	// for that call, which the benchmark also makes directly to measure the
	// servers' overhead.
	Method      string
	BackendPath string
	Header      map[string]string
	// TailorEnv and AltEnv are the credentials each server reads (each
	// generator names its environment variables its own way).
	TailorEnv, AltEnv []string
}

// DefaultSpecs are the specs of `make bench`: the bundled example (in the
// repository, so it always exists) and three real-world APIs from the
// shared corpus beside the checkout. corpus may be "" (no corpus): then only
// the bundled example is returned.
func DefaultSpecs(root, corpus string) []Spec {
	specs := []Spec{PetstoreSpec(root)}
	if corpus == "" {
		return specs
	}
	return append(specs,
		Spec{
			Name: "stripe", Path: filepath.Join(corpus, "stripe.yaml"), Ops: 468,
			TailorTool: "get_customers_customer", AltTool: "GetCustomersCustomer",
			Args:   `{"customer":"cus_bench"}`,
			Method: "GET", BackendPath: "/v1/customers/cus_bench",
			// Both servers refuse an operation that requires credentials
			// when none is set (tailor says so without sending).
			Header:    map[string]string{"Authorization": "Bearer bench-token"},
			TailorEnv: []string{"STRIPE_BEARER_AUTH_TOKEN=bench-token"},
			AltEnv:    []string{"BEARER_TOKEN_BEARERAUTH=bench-token"},
		},
		Spec{
			Name: "kubernetes", Path: filepath.Join(corpus, "kubernetes-v2.json"), Ops: 738,
			// Not readCoreV1NamespacedPod: openapi-mcp-generator gives that
			// tool (like 402 others of this Swagger 2.0 spec) an empty input
			// schema, so its path parameters never reach the URL.
			TailorTool: "get_core_v1_api_resources", AltTool: "getCoreV1APIResources",
			Args:   `{}`,
			Method: "GET", BackendPath: "/api/v1/",
			Header:    map[string]string{"Authorization": "bench-token"},
			TailorEnv: []string{"KUBERNETES_BEARER_TOKEN=bench-token"},
			AltEnv:    []string{"API_KEY_BEARERTOKEN=bench-token"},
		},
		Spec{
			Name: "discourse", Path: filepath.Join(corpus, "discourse-31.yaml"), Ops: 93,
			TailorTool: "get_topic", AltTool: "getTopic",
			Args:   `{"Api-Key":"bench-key","Api-Username":"system","id":"42"}`,
			Method: "GET", BackendPath: "/t/42.json",
			Header: map[string]string{"Api-Key": "bench-key", "Api-Username": "system"},
		},
	)
}

// PetstoreSpec is the bundled example (examples/petstore): the small spec,
// and the only one --quick uses.
func PetstoreSpec(root string) Spec {
	return Spec{
		Name: "petstore", Path: filepath.Join(root, "examples", "petstore", "openapi.yaml"), Ops: 3,
		TailorTool: "get_pet", AltTool: "getPet",
		Args:   `{"petId":"p_17"}`,
		Method: "GET", BackendPath: "/pets/p_17",
		Header:    map[string]string{"X-Shelter-Key": "bench-key"},
		TailorEnv: []string{"PETSTORE_SHELTER_KEY=bench-key"},
		AltEnv:    []string{"API_KEY_SHELTERKEY=bench-key"},
	}
}

// FindCorpus returns ../shared/corpus beside the checkout, or "".
func FindCorpus(root string) string {
	d := filepath.Join(root, "..", "shared", "corpus")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return filepath.Clean(d)
	}
	return ""
}

// SelectSpecs keeps the specs named in the comma-separated list (all when
// empty).
func SelectSpecs(all []Spec, names string) []Spec {
	if strings.TrimSpace(names) == "" {
		return all
	}
	want := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []Spec
	for _, s := range all {
		if want[s.Name] {
			out = append(out, s)
		}
	}
	return out
}
