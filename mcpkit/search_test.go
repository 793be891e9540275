package mcpkit

import (
	"strings"
	"testing"
)

func TestRank(t *testing.T) {
	tool := func(name, desc, schema string) *entry {
		return &entry{tool: &Tool{Name: name, Description: desc, InputSchema: schema}}
	}
	all := []*entry{
		tool("list_core_v1_pod_for_all_namespaces", "list or watch objects of kind Pod", `{"properties":{"limit":{}}}`),
		tool("list_core_v1_namespaced_pod", "list or watch objects of kind Pod", `{"properties":{"namespace":{},"limit":{}},"required":["namespace"]}`),
		tool("watch_core_v1_namespaced_pod", "Deprecated: the API marks this operation as deprecated. watch Pods", `{"properties":{"namespace":{}},"required":["namespace"]}`),
		tool("get_invoices", "You can list all invoices, or list the invoices for a specific customer.", `{"properties":{"customer":{},"limit":{}}}`),
		tool("get_customers_customer", "Retrieves a Customer object.", `{"properties":{"customer":{}},"required":["customer"]}`),
		tool("unrelated", "Does something else.", `{}`),
	}
	for _, c := range []struct{ query, want string }{
		{"list pods in a namespace", "list_core_v1_namespaced_pod,list_core_v1_pod_for_all_namespaces,watch_core_v1_namespaced_pod"},
		{"list invoices of a customer", "get_invoices,get_customers_customer"},
		{"listInvoices", "get_invoices"},
		{"nothing matches this", ""},
	} {
		var got []string
		for _, e := range rank(c.query, all) {
			got = append(got, e.tool.Name)
		}
		if g := strings.Join(got, ","); !strings.HasPrefix(g, c.want) || (c.want == "" && g != "") {
			t.Errorf("rank(%q) = %s, want it to start %s", c.query, g, c.want)
		}
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]string{
		"listCoreV1NamespacedPod":      "list core v1 namespaced pod",
		"the customer's invoices":      "customer invoice",
		"HTTPServer status_categories": "http server status category",
	} {
		if got := strings.Join(words(in), " "); got != want {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}
