package server

import (
	"reflect"
	"testing"

	"github.com/loci-mem/loci/server/argname"
)

// argname.Meant finds, among a tool's arguments, the one a misnamed
// argument stands for, and nothing where no argument is likely.
func TestMeantArgument(t *testing.T) {
	for _, c := range []struct {
		params reflect.Type
		name   string
		want   string
	}{
		{reflect.TypeFor[memoryRecallParams](), "topK", "top_k"},
		{reflect.TypeFor[memoryRecallParams](), "top-k", "top_k"},
		{reflect.TypeFor[memoryRecallParams](), "k", "top_k"},
		{reflect.TypeFor[memoryRecallParams](), "limit", "top_k"},
		{reflect.TypeFor[memoryRecallParams](), "max_results", "top_k"},
		{reflect.TypeFor[memoryRecallParams](), "tags", "tag"},
		{reflect.TypeFor[memoryRecallParams](), "querry", "query"},
		{reflect.TypeFor[memoryRecallParams](), "room_name", "room"},
		{reflect.TypeFor[memoryRecallParams](), "speakers", "speaker"},
		{reflect.TypeFor[memoryRecallParams](), "flavour", ""},
		{reflect.TypeFor[memoryRecallParams](), "n", "top_k"},
		{reflect.TypeFor[memoryRecallParams](), "", ""},
		{reflect.TypeFor[memoryListParams](), "top_k", "limit"},
		{reflect.TypeFor[memSearchParams](), "limit", "topK"},
		{reflect.TypeFor[memoryRememberParams](), "content", "text"},
		{reflect.TypeFor[memoryRememberParams](), "memory", "text"},
		{reflect.TypeFor[saveFactParams](), "text", "fact"},
		{reflect.TypeFor[memoryForgetParams](), "id", "drawer_id"},
		{reflect.TypeFor[memoryForgetParams](), "drawerId", "drawer_id"},
	} {
		plan := planOf(c.params)
		names := make([]string, len(plan.fields))
		for i, f := range plan.fields {
			names[i] = f.name
		}
		if got := argname.Meant(c.name, names); got != c.want {
			t.Errorf("%s %q: meant %q, want %q", c.params.Name(), c.name, got, c.want)
		}
	}
}

// withWarnings adds a last member to a JSON object, or the only member of
// an empty one; withNotes adds closing lines to markdown.
func TestWithWarnings(t *testing.T) {
	w := []string{"unknown argument 'k' ignored"}
	for _, c := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1,"warnings":["unknown argument 'k' ignored"]}`},
		{`{}`, `{"warnings":["unknown argument 'k' ignored"]}`},
	} {
		if !isJSONObject(c.in) {
			t.Errorf("isJSONObject(%q) = false", c.in)
		}
		if got := withWarnings(c.in, w); got != c.want {
			t.Errorf("withWarnings(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, in := range []string{`[1,2]`, `"x"`, `{"a":1`, `stored mem-0001`} {
		if isJSONObject(in) {
			t.Errorf("isJSONObject(%q) = true", in)
		}
	}
	if got, want := withNotes("# Title\n\nbody\n", w), "# Title\n\nbody\n\n> Note: unknown argument 'k' ignored\n"; got != want {
		t.Errorf("withNotes = %q, want %q", got, want)
	}
	if got := withWarnings(`{"a":1}`, nil); got != `{"a":1}` {
		t.Errorf("no warnings changed the text: %q", got)
	}
}

// A call's warnings name five unknown arguments and count the rest.
func TestArgWarningsAreBounded(t *testing.T) {
	p := reflect.TypeFor[memoryRecallParams]()
	unknown, err := decodeArgs([]byte(`{"query":"x","a1":1,"a2":1,"a3":1,"a4":1,"a5":1,"a6":1,"a7":1,"tags":[]}`), new(memoryRecallParams))
	if err != nil {
		t.Fatal(err)
	}
	if len(unknown) != 8 || unknown[0] != "a1" || unknown[7] != "tags" {
		t.Fatalf("unknown %q", unknown)
	}
	w := argWarnings("memory_recall", unknown, p)
	if len(w) != 6 || w[5] != "3 more unknown arguments ignored" {
		t.Errorf("warnings %q", w)
	}
	if unknown, _ := decodeArgs([]byte(`{"query":"x","top_k":3,"palace":"p"}`), new(memoryRecallParams)); len(unknown) != 0 {
		t.Errorf("known arguments reported unknown: %q", unknown)
	}
	// An alias is an argument too.
	if unknown, _ := decodeArgs([]byte(`{"query":"x","top_k":3}`), new(memSearchParams)); len(unknown) != 0 {
		t.Errorf("mem_search's alias top_k reported unknown: %q", unknown)
	}
}
