package palace_test

import (
	"context"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/palacetest"
)

// Chinese, Japanese, Korean and Thai memories are found by a word inside a
// clause, by keyword and by the default hybrid search alike, and so is a
// word written against them without a space ("Redis" in "缓存使用Redis").
// A Russian noun is found in another case than the memory's ("машина",
// "машину"), and "ё" as "е"; an Arabic word without the article the memory
// joined to it ("بيانات", "البيانات").
func TestMemoriesInOtherScriptsAreFoundByAWord(t *testing.T) {
	t.Parallel()
	p := palacetest.MustCreate(t, palacetest.MustOpenRegistry(t, palace.Config{}), "p")
	deploy := palacetest.MustAdd(t, p, &palace.Drawer{Content: "我们每周二部署新版本到生产环境"})
	stack := palacetest.MustAdd(t, p, &palace.Drawer{Content: "数据库使用PostgreSQL，缓存使用Redis"})
	meeting := palacetest.MustAdd(t, p, &palace.Drawer{Content: "会議は毎週月曜日の午前十時に行います"})
	seoul := palacetest.MustAdd(t, p, &palace.Drawer{Content: "서울에서 친구를 만났어요"})
	cat := palacetest.MustAdd(t, p, &palace.Drawer{Content: "我家的小猫咪很可爱"})
	thai := palacetest.MustAdd(t, p, &palace.Drawer{Content: "เราใช้ฐานข้อมูลสำหรับบริการทั้งหมด"})
	car := palacetest.MustAdd(t, p, &palace.Drawer{Content: "Вчера я купил новую машину"})
	tree := palacetest.MustAdd(t, p, &palace.Drawer{Content: "Мы нарядили ёлку в субботу"})
	data := palacetest.MustAdd(t, p, &palace.Drawer{Content: "نحن نستخدم قاعدة البيانات لجميع الخدمات"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "The cat sat on the mat near the window"})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "We deploy the new release every Tuesday"})
	for _, q := range []struct {
		query string
		want  *palace.Drawer
	}{
		{"缓存用的是什么？", stack},
		{"redis", stack},
		{"什么时候部署新版本", deploy},
		{"会議はいつですか", meeting},
		{"서울", seoul},
		{"猫", cat},
		{"ฐานข้อมูล", thai},
		{"какая у меня машина?", car},
		{"когда наряжали елку", tree},
		{"أين بيانات الخدمة", data},
	} {
		for _, mode := range []palace.Mode{palace.ModeKeyword, palace.ModeHybrid} {
			wantFirstIn(t, p, mode, q.query, q.want)
		}
	}
}

// A long text of Chinese, written without a space, is indexed as passages
// like any other: a phrase from its middle finds it once, with the passage
// that holds the phrase.
func TestLongCJKTextFoundByItsMiddle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := palacetest.MustOpenPalace(t)
	r := rand.New(rand.NewSource(1))
	vocab := []string{"日志", "请求", "服务器", "客户端", "错误", "重试", "超时", "磁盘", "队列", "构建", "测试", "会话", "记录", "的", "了", "在"}
	var b strings.Builder
	for b.Len() < 200_000 {
		b.WriteString(vocab[r.Intn(len(vocab))])
		if r.Intn(12) == 0 {
			b.WriteString("。")
		}
	}
	filler := b.String()
	needle := "季度飞艇检查发现吊舱附近的方向舵铰链有裂纹。"
	mid := strings.Index(filler[len(filler)/2:], "。") + len(filler)/2 + len("。")
	long := palacetest.MustAdd(t, p, &palace.Drawer{Content: filler[:mid] + needle + filler[mid:]})
	palacetest.MustAdd(t, p, &palace.Drawer{Content: "一张关于帆船方向舵的短笔记。"})
	if n := len(palace.Passages(long.Content)); n < 100 {
		t.Fatalf("a text of %d characters is %d keyword passages", utf8.RuneCountInString(long.Content), n)
	}
	for _, mode := range []palace.Mode{palace.ModeKeyword, palace.ModeHybrid} {
		hits, err := p.Search(ctx, palace.SearchRequest{Query: "飞艇检查方向舵铰链", Mode: mode, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if seen := timesFound(hits, long); len(hits) == 0 || hits[0].Drawer.ID != long.ID || seen != 1 {
			t.Fatalf("%s: the long drawer is not first exactly once (%d hits, seen %d times)", mode, len(hits), seen)
		}
		sp := hits[0].Passage
		if sp == nil || !strings.Contains(long.Content[sp.Start:sp.End], "飞艇检查") || sp.End-sp.Start > 4096 {
			t.Fatalf("%s: the passage returned, %+v, is not a window holding the match", mode, sp)
		}
	}
}
