package lexicon

import (
	"slices"
	"testing"
)

func TestChance(t *testing.T) {
	for _, c := range []struct {
		term   string
		lo, hi float64
	}{
		{"item", 0.4, 0.6},     // everyday English
		{"ensur", 0.4, 0.6},    // its stem
		{"rational", 0.1, 0.2}, // less common
		{"invoic", 0.01, 0.05}, // rarer
		{"verilator", 0, 0.01}, // jargon
		{"postgr", 0, 0.01},    // a name's stem
		{"createcustomerprofil", 0, 0.01},
		{"12", 0.4, 0.6},
		{"2026", 0.05, 0.2},
		{"v1", 0.05, 0.2},
		{"问题", 0.2, 0.5},  // problem: said in most sessions
		{"問題", 0.2, 0.5},  // the same, traditional
		{"数据", 0.05, 0.5}, // data
		{"熔断", 0, 0.01},   // circuit breaking: rare
		{"一直", 1, 1},      // always: grammar
		{"小李", 0, 0.01},   // a name, no seam
		{"确认", 0.01, 0.2}, // confirm: a word
		{"です", 1, 1},      // Japanese grammar
	} {
		if got := Chance(c.term); got < c.lo || got > c.hi {
			t.Errorf("Chance(%q) = %.4f, want between %g and %g", c.term, got, c.lo, c.hi)
		}
	}
}

func TestGrammar(t *testing.T) {
	for w, want := range map[string]bool{"之前": true, "只有": true, "什么": true, "什麼": true, "一下": true, "支付": false, "測試": false, "数据库": false, "abc": false, "我": false, "健二": false, "小李": false} {
		if got := Grammar(w); got != want {
			t.Errorf("Grammar(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{"測試": "测试", "資料庫": "资料库", "abc 測": "abc 测", "测试": "测试"} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSpanishGrammarIsSorted(t *testing.T) {
	if !slices.IsSorted(spanishGrammar) {
		t.Error("spanishGrammar is not sorted: Grammar bisects it")
	}
	for _, w := range []string{"de", "cómo", "dond", "porqu"} {
		if !Grammar(w) {
			t.Errorf("Grammar(%q) = false", w)
		}
	}
	for _, w := range []string{"son", "sister", "gato"} {
		if Grammar(w) {
			t.Errorf("Grammar(%q) = true", w)
		}
	}
}

func TestRelated(t *testing.T) {
	for term, want := range map[string]string{"doctor": "dermatologist", "car": "sedan", "dog": "terrier"} {
		if got := Related(term); !slices.Contains(got, want) {
			t.Errorf("Related(%q) = %v, want it to hold %q", term, got, want)
		}
	}
	if got := Related("zzzz"); got != nil {
		t.Errorf("Related of an unknown word = %v", got)
	}
}
