package words

import "testing"

func TestUnaccented(t *testing.T) {
	for in, want := range map[string]string{
		"José": "Jose", "Zoë": "Zoe", "Noémie": "Noemie", "Chloé": "Chloe",
		"Søren": "Søren", "Łukasz": "Łukasz", // no mark to take off
		"plain": "plain", "": "",
	} {
		if got := Unaccented(in); got != want {
			t.Errorf("Unaccented(%q) = %q, want %q", in, got, want)
		}
	}
}
