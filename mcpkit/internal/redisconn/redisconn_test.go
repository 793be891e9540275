package redisconn

import (
	"strings"
	"testing"
	"time"
)

// TestRedisURL: a bad URL is refused at start with a message that names
// the setting and never shows the password.
func TestRedisURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://u:s3cret-pw@host:6379":        "must be redis:// or rediss://",
		"redis://u:s3cret-pw@host:6379/x":     "invalid database number",
		"redis://u:s3cret-pw@host:6379/0?a=b": "unexpected option",
		"redis://u:s3cret-pw@:bad port/0":     "not a URL",
		"redis:///0":                          "no host",
	} {
		_, err := Open("--quote-store", raw, time.Second)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--quote-store") {
			t.Errorf("%s: %v, want %q", raw, err, want)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the password shows: %v", err)
		}
	}
	target, err := Open("--quote-store", "rediss://user:s3cret-pw@cache.internal:6380/2", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer target.Client.Close()
	if target.Shown != "rediss://user:xxxxx@cache.internal:6380/2" || len(target.Secrets) != 1 || target.Secrets[0] != "s3cret-pw" {
		t.Fatalf("shown %q, secrets %v", target.Shown, target.Secrets)
	}
	if opts := target.Client.Options(); opts.TLSConfig == nil || opts.DB != 2 || opts.MaxRetries > 0 || opts.ReadTimeout != time.Second {
		t.Fatalf("options: TLS %v, DB %d, retries %d, read timeout %s", opts.TLSConfig != nil, opts.DB, opts.MaxRetries, opts.ReadTimeout)
	}
}
