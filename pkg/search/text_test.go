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
	if got := promptTerms("thanks, ok — go on please"); len(got) != 0 {
		t.Fatalf("small talk has terms %q", got)
	}
	if got := promptTerms("ok, and the invoice export?"); !reflect.DeepEqual(got, []string{"invoic", "export"}) {
		t.Fatalf("promptTerms = %q", got)
	}
}

// TestStopListsAreCurrent: the sorted stopword lists are the word texts
// they were written from (and the stems of small talk), so an edit to a
// text without its list fails here.
func TestStopListsAreCurrent(t *testing.T) {
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
