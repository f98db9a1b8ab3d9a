package search

import (
	"maps"
	"reflect"
	"slices"
	"testing"
)

// TestStemMeetsForms: the forms of one word are one term, so "invoice"
// finds "invoices", "invoicing" and "invoiced".
func TestStemMeetsForms(t *testing.T) {
	for _, group := range [][]string{
		{"invoice", "invoices", "invoicing", "invoiced"},
		{"cache", "caches", "caching", "cached"},
		{"run", "runs", "running"},
		{"stop", "stops", "stopped", "stopping"},
		{"query", "queries", "queried"},
		{"test", "tests", "testing", "tested"},
		{"queue", "queues"},
		{"process", "processes"},
		{"fix", "fixes", "fixed", "fixing"},
		{"migration", "migrations"},
	} {
		want := stem(group[0])
		for _, w := range group[1:] {
			if got := stem(w); got != want {
				t.Errorf("stem(%q) = %q, stem(%q) = %q: want one term", w, got, group[0], want)
			}
		}
	}
	for _, w := range []string{"status", "analysis", "class", "go", "日本語"} {
		if got := stem(w); got != w {
			t.Errorf("stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestTerms(t *testing.T) {
	got := Terms("Run `make db-up` before the Integration tests; see RFC-42 and 日本語のメモ.")
	want := []string{"run", "make", "db", "integration", "test", "see", "rfc", "42", "日本", "本語", "語の", "のメ", "メモ"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Terms = %q, want %q", got, want)
	}
	// CJK runs are bigrams; a script change splits a run; a lone
	// character is a term of its own.
	for text, want := range map[string][]string{
		"改動歷程":         {"改動", "動歷", "歷程"},
		"API 网关返回 502": {"api", "网关", "关返", "返回", "502"},
		"商品검색 search":  {"商品", "品검", "검색", "search"},
		"用Redoc":       {"用", "redoc"},
		"リフレッシュトークン":   {"リフ", "フレ", "レッ", "ッシ", "シュ", "ュト", "トー", "ーク", "クン"},
		"权限 權限":        {"权限", "權限"},
	} {
		if got := Terms(text); !reflect.DeepEqual(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestWeakTerms: the terms of a prompt that tell nothing about which
// memory it needs — small talk, request words, kana grammar, Chinese
// grammar, single characters and the bigrams that only join two words —
// in every script, and the ones that do.
func TestWeakTerms(t *testing.T) {
	for prompt, want := range map[string]map[string]string{
		"thanks, ok — go on please":   {"thank": weakSmallTalk, "ok": weakSmallTalk, "go": weakSmallTalk, "pleas": weakSmallTalk},
		"ok, and the invoice export?": {"ok": weakSmallTalk, "invoic": "", "export": ""},
		"好的謝謝":                        {"好的": weakSmallTalk, "的謝": weakGrammar, "謝謝": weakSmallTalk},
		"幫我調整字體":                      {"幫我": weakSmallTalk, "我調": weakSeam, "調整": "", "整字": weakSeam, "字體": ""},
		"這個函式的回傳值":                    {"這個": weakSmallTalk, "個函": "", "函式": "", "式的": weakGrammar, "的回": weakGrammar, "回傳": "", "傳值": ""},
		"fix the date parser":         {"fix": weakSmallTalk, "date": "", "parser": ""},
		"幫我確認":                        {"幫我": weakSmallTalk, "我確": weakSeam, "確認": weakSmallTalk},
		"幫我看一下":                       {"幫我": weakSmallTalk, "我看": weakSeam, "看一": weakSmallTalk, "一下": weakSmallTalk},
		"好":                           {"好": weakSingle},
		"幫我確認一下羽毛球拍":                  {"幫我": weakSmallTalk, "我確": weakSeam, "確認": weakSmallTalk, "認一": weakSeam, "一下": weakSmallTalk, "下羽": weakSeam, "羽毛": "", "毛球": weakSeam, "球拍": ""},
		"ありがとう":                       {"あり": weakSmallTalk, "りが": weakSmallTalk, "がと": weakSmallTalk, "とう": weakSmallTalk},
		"関数の戻り値":                      {"関数": "", "数の": weakGrammar, "の戻": weakGrammar, "戻り": weakGrammar, "り値": weakGrammar},
		// A term weak in one place and telling in another tells.
		"確認 確認碼": {"確認": weakSmallTalk, "認碼": ""},
	} {
		got := weakTerms(prompt)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("weakTerms(%q) = %q, want %q", prompt, got, want)
		}
		for _, term := range Terms(prompt) {
			if _, ok := got[term]; !ok {
				t.Errorf("weakTerms(%q) does not weigh %q", prompt, term)
			}
		}
	}
}

// TestStopListsAreCurrent: the sorted stopword lists are the word texts
// they were written from (and the stems of small talk), so an edit to a
// text without its list fails here.
func TestStopListsAreCurrent(t *testing.T) {
	for _, w := range stopList {
		if len(w) > maxStopword || !isStopword(w) {
			t.Errorf("stopword %q: maxStopword is %d, isStopword says %v", w, maxStopword, isStopword(w))
		}
	}
	stop := set(stopText)
	prompt := set(stopText)
	for w := range set(chatterText) {
		prompt[w], prompt[stem(w)] = true, true
	}
	for p := range set(chatterCJK) {
		for _, bg := range appendBigrams(nil, p, func(string) bool { return false }) {
			prompt[bg] = true
		}
	}
	for _, tt := range []struct {
		name string
		list []string
		want map[string]bool
	}{{"stopList", stopList, stop}, {"promptStopList", promptStopList, prompt}} {
		if want := slices.Sorted(maps.Keys(tt.want)); !slices.Equal(tt.list, want) {
			t.Errorf("%s is not its text: want\n%q", tt.name, want)
		}
	}
}

// TestSeamsOfCommonWords: once a word is known to be common in a
// person's memory (調整, "adjust"), it is weak, and the bigrams that only
// join it to the words around it (我調, 整一) are seams; the words after it
// still tell.
func TestSeamsOfCommonWords(t *testing.T) {
	rd := readPrompt("幫我調整一下標題")
	rd.seams(func(t string) bool { return t == "調整" })
	want := map[string]string{"幫我": weakSmallTalk, "我調": weakSeam, "調整": weakCommon, "整一": weakSeam, "一下": weakSmallTalk, "下標": weakSeam, "標題": ""}
	if !reflect.DeepEqual(rd.why, want) {
		t.Fatalf("why = %q, want %q", rd.why, want)
	}
}
