package extract

import (
	"slices"
	"testing"
)

func TestSentences(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"We ship on Tuesday. Tests run at 3.14 pm! Why?\nNew line": {"We ship on Tuesday.", "Tests run at 3.14 pm!", "Why?", "New line"},
		"我们周二部署。缓存用Redis！为什么？好":                                    {"我们周二部署。", "缓存用Redis！", "为什么？", "好"},
		"会議は月曜日です。 よろしく":                                           {"会議は月曜日です。", "よろしく"},
		"": nil,
	} {
		if got := Sentences(text); !slices.Equal(got, want) {
			t.Errorf("Sentences(%q) = %q, want %q", text, got, want)
		}
	}
}
