package cli

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tailormcp/tailor/examples/backoffice/backend"
)

// TestReportReports runs testdata/report/<case> (see reportCases): tailor
// report on recorded and crafted audit logs, in each format.
func TestReportReports(t *testing.T) { reportCases(t, "report", nil) }

// TestTestReports runs testdata/test/<case>: tailor test on scenario files
// that pass, fail and are wrong, against tailor serve on the back-office
// example and its backend ($BACKEND and $BACKEND2, fresh for each case).
func TestTestReports(t *testing.T) { reportCases(t, "test", shopBackends) }

// shopBackends starts two back-office backends with the story's clock.
func shopBackends(t *testing.T) map[string]string {
	vars := map[string]string{}
	for _, name := range []string{"BACKEND", "BACKEND2"} {
		shop := backend.New(func() time.Time { return time.Date(2026, 10, 5, 14, 0, 0, 0, time.UTC) })
		srv := httptest.NewServer(shop.Handler())
		t.Cleanup(srv.Close)
		vars[name] = srv.URL
	}
	return vars
}
