package words

import (
	"strings"
	"testing"
)

// Every form is read as words of their own: no standard word is itself a
// form of another, none is its own form, and no form is a stopword (which
// no query keeps) or a word of reaction.
func TestStandardFormsAreClosed(t *testing.T) {
	if len(standard) < 100 {
		t.Fatalf("the list holds %d forms", len(standard))
	}
	for form, std := range standard {
		if form == std || form != strings.ToLower(form) || std == "" {
			t.Errorf("%q = %q", form, std)
		}
		for _, w := range strings.Fields(std) {
			if _, ok := standard[w]; ok {
				t.Errorf("%q stands for %q, itself a form of %q", form, w, standard[w])
			}
		}
		if IsStopword(form) || IsReaction(form) && form != "congrats" {
			t.Errorf("%q is a stopword or a reaction", form)
		}
	}
}

// Every form is ASCII and shorter than the buffer Standard folds it in.
func TestStandardFormsFitTheFold(t *testing.T) {
	for form := range standard {
		for i := 0; i < len(form); i++ {
			if form[i] >= 0x80 {
				t.Errorf("%q is not ASCII", form)
			}
		}
		if len(form) > 24 {
			t.Errorf("%q is longer than Standard folds", form)
		}
	}
}
