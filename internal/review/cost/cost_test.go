package cost_test

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/review/cost"
	"github.com/tailormcp/tailor/internal/serve"
	"github.com/tailormcp/tailor/mcpkit"
)

// TestToolsListIsWhatTheServerLists compares the JSON cost counts with
// what a real server (mcpkit, through tailor serve's interpreter) sends in
// tools/list, tool by tool.
func TestToolsListIsWhatTheServerLists(t *testing.T) {
	for _, c := range []struct{ spec, overlay string }{
		{"testdata/e2e/shop/openapi.yaml", "testdata/e2e/shop/overlay.yaml"},
		{"testdata/cases/curated-quote/openapi.yaml", "testdata/cases/curated-quote/overlay.yaml"},
		{"testdata/cases/petstore/openapi.yaml", ""},
	} {
		t.Run(c.spec, func(t *testing.T) {
			opts := generator.Options{SpecPath: filepath.Join("..", "..", "..", c.spec), SkipValidation: true}
			if c.overlay != "" {
				opts.OverlayPath = filepath.Join("..", "..", "..", c.overlay)
			}
			res, err := generator.Run(opts)
			if err != nil {
				t.Fatal(err)
			}
			api, register := serve.API(res.Curated)
			server, _, err := mcpkit.NewServer(api, mcpkit.Config{BaseURL: "http://127.0.0.1:1", Log: io.Discard}, register)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			st, ct := mcp.NewInMemoryTransports()
			ss, err := server.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			listed, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(listed.Tools) != len(res.Curated.Tools) {
				t.Fatalf("the server lists %d tools, the IR has %d", len(listed.Tools), len(res.Curated.Tools))
			}
			byName := map[string]*mcp.Tool{}
			for _, lt := range listed.Tools {
				byName[lt.Name] = lt
			}
			for _, tool := range res.Curated.Tools {
				var have, want any
				if err := json.Unmarshal(cost.ToolJSON(tool), &have); err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(byName[tool.Name])
				if err := json.Unmarshal(b, &want); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(have, want) {
					t.Errorf("%s:\ncost: %s\nlisted: %s", tool.Name, cost.ToolJSON(tool), b)
				}
			}
			m := cost.Of(res.Curated)
			if whole := cost.Tokens(cost.ToolsList(res.Curated)); whole != m.Tokens {
				t.Errorf("Of says %d tokens, the whole list counts %d", m.Tokens, whole)
			}
			if m.Bytes != len(cost.ToolsList(res.Curated)) {
				t.Errorf("Of says %d bytes, the list has %d", m.Bytes, len(cost.ToolsList(res.Curated)))
			}
		})
	}
}

func TestTokens(t *testing.T) {
	// o200k_base: "hello world" is two tokens.
	if n := cost.Tokens([]byte("hello world")); n != 2 {
		t.Errorf("hello world: %d tokens, want 2", n)
	}
}
