package sqlstore

import "testing"

func TestCutUint(t *testing.T) {
	n, rest, ok := cutInt("12 345 6")
	if !ok || n != 12 || rest != "345 6" {
		t.Fatalf("cutInt = %d %q %v", n, rest, ok)
	}
	if n, rest, ok = cutInt("6"); !ok || n != 6 || rest != "" {
		t.Fatalf("last number: %d %q %v", n, rest, ok)
	}
	for _, bad := range []string{"", " 1", "x", "1x", "-1", "12345678901234567890123"} {
		if _, _, ok := cutInt(bad); ok {
			t.Errorf("cutInt(%q) accepted", bad)
		}
	}
}
