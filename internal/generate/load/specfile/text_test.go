package specfile

import (
	"path/filepath"
	"testing"
)

func TestDisplayPath(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	specs := filepath.Join(wd, "specs")
	for _, tc := range []struct{ file, spec, want string }{
		{filepath.Join(specs, "api.yaml"), "specs/api.yaml", "specs/api.yaml"},
		{filepath.Join(specs, "common", "pet.yaml"), "specs/api.yaml", filepath.Join("specs", "common", "pet.yaml")},
		{filepath.Join(specs, "common", "pet.yaml"), filepath.Join(specs, "api.yaml"), filepath.Join(specs, "common", "pet.yaml")},
		{filepath.Join(wd, "other.yaml"), "specs/api.yaml", "other.yaml"},
		{filepath.Join(filepath.Dir(wd), "outside.yaml"), "specs/api.yaml", filepath.Join(filepath.Dir(wd), "outside.yaml")},
		{"", "specs/api.yaml", "specs/api.yaml"},
	} {
		if got := DisplayPath(tc.file, tc.spec); got != tc.want {
			t.Errorf("DisplayPath(%q, %q) = %q, want %q", tc.file, tc.spec, got, tc.want)
		}
	}
}
