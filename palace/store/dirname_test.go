package store

import "testing"

func TestPortableDirNames(t *testing.T) {
	for name, want := range map[string]bool{
		"notes": true, "my-project.v2": true, "_x": true, "con-game": true, "console": true, "com10": true, "lpt": true,
		"Notes": false, "NOTES": false, "notes.": false, "v2..": false,
		"con": false, "CON": false, "nul.txt": false, "Aux": false, "prn": false, "com1": false, "lpt9": false, "com0.db": false,
	} {
		if got := PortableDirName(name); got != want {
			t.Errorf("PortableDirName(%q) = %v, want %v", name, got, want)
		}
	}
}
