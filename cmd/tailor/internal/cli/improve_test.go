package cli

import "testing"

// TestReportReports runs testdata/report/<case> (see reportCases): tailor
// report on recorded and crafted audit logs, in each format.
func TestReportReports(t *testing.T) { reportCases(t, "report", nil) }
