package words_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loci-mem/loci/palace/words"
)

func TestEach(t *testing.T) {
	for _, c := range []struct {
		text string
		opt  words.Option
		want []string
	}{
		{"Deploys run on Fridays, after the smoke-tests!", 0, []string{"Deploys", "run", "on", "Fridays", "after", "the", "smoke", "tests"}},
		{"don't stop Alice's car", 0, []string{"don", "t", "stop", "Alice", "s", "car"}},
		{"don't stop Alice's car", words.Apostrophes, []string{"don't", "stop", "Alice's", "car"}},
		{"rock’n’roll dogs' 'quoted'", words.Apostrophes, []string{"rock’n’roll", "dogs", "quoted"}},
		{"set fact_horizon to 30d; _x_ a__b", words.Underscores, []string{"set", "fact_horizon", "to", "30d", "x", "a", "b"}},
		{"set fact_horizon", 0, []string{"set", "fact", "horizon"}},
		{"cafe\u0301 naïve", 0, []string{"cafe\u0301", "naïve"}},
		{"用loci部署服务", 0, []string{"用", "loci", "部署服务"}},
		{"", 0, nil},
		{"?! --", words.Apostrophes | words.Underscores, nil},
	} {
		var got []string
		words.Each(c.text, c.opt, func(w words.Word) {
			if c.text[w.Start:w.End] != w.Text {
				t.Errorf("%q: offsets %d:%d do not give %q", c.text, w.Start, w.End, w.Text)
			}
			got = append(got, w.Text)
		})
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Each(%q, %d) = %q, want %q", c.text, c.opt, got, c.want)
		}
	}
	var cjk []bool
	words.Each("用loci部署", 0, func(w words.Word) { cjk = append(cjk, w.CJK) })
	if !reflect.DeepEqual(cjk, []bool{true, false, true}) {
		t.Errorf("CJK marks %v", cjk)
	}
}

func TestFoldAndStem(t *testing.T) {
	for in, want := range map[string]string{"Ports": "port", "class": "class", "bus": "bus", "buses": "buse", "its": "its"} {
		if got := words.Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"deploys": "deploy", "deployed": "deploy", "deploying": "deploy",
		"running": "run", "libraries": "library", "status": "status", "cache": "cach", "caches": "cach"} {
		if got := words.Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
	if !words.IsStopword("the") || words.IsStopword("deploy") {
		t.Error("IsStopword")
	}
}

func TestIsReaction(t *testing.T) {
	for w, want := range map[string]bool{
		"wow": true, "wooow": true, "lol": true, "lolol": true, "haha": true, "ahahahah": true,
		"hehe": true, "yesss": true, "awww": true, "coool": true, "congrats": true, "thx": true,
		"painted": false, "lake": false, "hallo": false, "lola": false, "hahax": false, "l": false,
		"h": false, "": false, "yesterday": false,
	} {
		if got := words.IsReaction(w); got != want {
			t.Errorf("IsReaction(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestStandard(t *testing.T) {
	for w, want := range map[string]string{
		"fam": "family", "fave": "favorite", "fav": "favorite", "pics": "photos pictures",
		"bday": "birthday", "tmrw": "tomorrow", "2moro": "tomorrow", "bff": "best friend",
		"mom": "mother", "mum": "mother", "gf": "girlfriend", "vacay": "vacation", "Fam": "family",
		"BDAY": "birthday", "favourite": "favorite", "Organised": "organized", "travelling": "traveling",
		"centre": "center", "went": "go", "Bought": "buy", "taught": "teach", "written": "write",
		// standard words, and forms with two senses
		"family": "", "doc": "", "app": "", "pro": "", "": "", "famous": "", "birthdays!": "",
		"go": "", "left": "", "rose": "", "fell": "", "broke": "", "won": "", "meant": "", "got": "",
	} {
		if got := words.Standard(w); got != want {
			t.Errorf("Standard(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestEachStandard(t *testing.T) {
	for w, want := range map[string]string{
		"fam": "family", "pics": "photos pictures", "favourite": "favorite", "lake": "lake", "": "",
	} {
		var got []string
		words.EachStandard(w, func(s string) { got = append(got, s) })
		if strings.Join(got, " ") != want || len(got) == 0 {
			t.Errorf("EachStandard(%q) gave %q, want %q", w, got, want)
		}
	}
}

func TestEachPair(t *testing.T) {
	t.Parallel()
	for run, want := range map[string][]string{
		"缓存使用": {"缓存", "存使", "使用"},
		"猫":    {"猫"},
		"データ":  {"デー", "ータ"},
	} {
		var got []string
		words.EachPair(run, func(p string) { got = append(got, p) })
		if !reflect.DeepEqual(got, want) {
			t.Errorf("EachPair(%q) = %q, want %q", run, got, want)
		}
	}
}
