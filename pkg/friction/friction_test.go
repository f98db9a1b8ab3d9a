package friction

import (
	"testing"

	"github.com/ccmem/ccmem/pkg/transcript"
)

func prompt(text, ts string) transcript.Entry {
	return transcript.Entry{Kind: transcript.Prompt, Text: text, Timestamp: ts}
}

func result(isErr bool, text string) transcript.Entry {
	return transcript.Entry{Kind: transcript.ToolResults, Results: []transcript.ToolResult{{ID: "x", IsError: isErr, Text: text}}}
}

func call(name, input string) transcript.Entry {
	return transcript.Entry{Kind: transcript.Assistant, Tools: []transcript.ToolUse{{Name: name, Input: []byte(input)}}}
}

func say(text string) transcript.Entry {
	return transcript.Entry{Kind: transcript.Assistant, Text: text}
}

func interrupt(ts string) transcript.Entry {
	return transcript.Entry{Kind: transcript.Meta, Interrupted: true, Timestamp: ts}
}

func TestSignals(t *testing.T) {
	tests := []struct {
		name    string
		entries []transcript.Entry
		turns   int
		final   bool
		want    map[string]int
		class   string
	}{
		{"clean session", []transcript.Entry{prompt("add a test", ""), call("Bash", `{"command":"go test"}`), result(false, "ok"), say("Done.")}, 1, true, map[string]int{}, "OK"},
		{"exit error then fix", []transcript.Entry{prompt("run it", ""), result(true, "Exit code 1\nFAIL"), result(false, "ok")}, 1, false, map[string]int{"exit_error": 1}, "OK"},
		{"false success", []transcript.Entry{prompt("fix", ""), result(true, "Exit code 2"), say("Fixed: all tests pass now.")}, 1, false, map[string]int{"exit_error": 1, "false_success": 1, "no_resolution": 1}, "FRICTION"},
		{"no resolution counted at the next prompt", []transcript.Entry{prompt("a", ""), result(true, "boom"), prompt("b", "")}, 2, false, map[string]int{"no_resolution": 1}, "ROUGH"},
		{"tool loop", []transcript.Entry{prompt("a", ""), call("Read", `{"f":1}`), call("Read", `{"f":1}`), call("Read", `{"f":1}`), call("Read", `{"f":1}`)}, 1, false, map[string]int{"tool_loop": 1}, "ROUGH"},
		{"different inputs are no loop", []transcript.Entry{call("Read", `{"f":1}`), call("Read", `{"f":2}`), call("Read", `{"f":3}`)}, 0, false, map[string]int{}, "OK"},
		{"rapid exit", []transcript.Entry{prompt("do it", ""), result(true, "Error: boom")}, 1, true, map[string]int{"no_resolution": 1, "rapid_exit": 1}, "FRICTION"},
		{"interrupts", []transcript.Entry{prompt("a", ""), interrupt("2026-11-21T10:00:00Z"), interrupt("2026-11-21T10:00:30Z"), interrupt("2026-11-21T10:05:00Z")}, 1, false, map[string]int{"request_interrupted": 3, "interrupt_cascade": 1}, "FRICTION"},
		{"curse and negation", []transcript.Entry{prompt("no, that didn't work, wtf", "")}, 1, false, map[string]int{"user_curse": 1, "user_negation": 1}, "ROUGH"},
		{"repeated question", []transcript.Entry{prompt("Why does  CI fail?", ""), prompt("why does ci fail?", "")}, 2, false, map[string]int{"repeated_question": 1}, "OK"},
		{"long silence", []transcript.Entry{prompt("a", "2026-11-21T10:00:00Z"), prompt("b", "2026-11-21T10:11:00Z")}, 2, false, map[string]int{"long_silence": 1}, "OK"},
		{"stopped and corrected is an intervention", []transcript.Entry{prompt("add the refund endpoint", ""), interrupt("2026-11-21T10:00:00Z"), prompt("no, not in the cart package, put it in payments", "")}, 2, false, map[string]int{"request_interrupted": 1, "user_negation": 1, "user_intervention": 1}, "BAD"},
		{"stopped and gone on is no intervention", []transcript.Entry{prompt("add the refund endpoint", ""), interrupt("2026-11-21T10:00:00Z"), prompt("also add a test", "")}, 2, false, map[string]int{"request_interrupted": 1}, "OK"},
		{"stash is an intervention", []transcript.Entry{{Kind: transcript.Prompt, Command: "/stash", Text: "/stash"}}, 0, false, map[string]int{"user_intervention": 1}, "BAD"},
		{"abandoned", []transcript.Entry{prompt("a", ""), result(false, "ok"), prompt("a", ""), prompt("b", ""), prompt("c", ""), prompt("still broken!", ""), result(true, "Exit code 1")}, 5, true, map[string]int{"exit_error": 1, "no_resolution": 1, "user_negation": 1, "repeated_question": 1, "session_abandoned": 1}, "BAD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s State
			tr := Tracker{S: &s}
			for _, e := range tt.entries {
				tr.Observe(e)
			}
			r := tr.Score(tt.turns, 0, tt.final)
			if len(r.Signals) != len(tt.want) {
				t.Fatalf("signals %v, want %v", r.Signals, tt.want)
			}
			for k, v := range tt.want {
				if r.Signals[k] != v {
					t.Fatalf("signals %v, want %v", r.Signals, tt.want)
				}
			}
			if r.Class != tt.class {
				t.Fatalf("class %s (score %v), want %s", r.Class, r.Score, tt.class)
			}
		})
	}
}

func TestScoreWeights(t *testing.T) {
	s := State{Signals: map[string]int{"exit_error": 2, "no_resolution": 1}}
	r := Tracker{S: &s}.Score(4, 3, false)
	if r.Score != 2*1+8+3*0.5 || r.Signals["compaction"] != 3 {
		t.Fatalf("score %v signals %v", r.Score, r.Signals)
	}
	for score, class := range map[float64]string{0: "OK", 2.9: "OK", 3: "ROUGH", 9.5: "ROUGH", 10: "FRICTION", 19.5: "FRICTION", 20: "BAD"} {
		if got := Class(score, nil); got != class {
			t.Errorf("Class(%v) = %s, want %s", score, got, class)
		}
	}
	if len(Weights) != 14 {
		t.Fatalf("%d signals, seed 002 has 14", len(Weights))
	}
}

func TestDetectors(t *testing.T) {
	for text, want := range map[string]bool{"No, that's wrong": true, "no": true, "nothing changed": false, "I know": false,
		"it still doesn't work": true, "Still broken!": true, "that is what I meant, it works": false} {
		if isNegation(text) != want {
			t.Errorf("isNegation(%q) = %v", text, !want)
		}
	}
	for text, want := range map[string]bool{"WTF is this": true, "damned thing": true, "this is crap": true, "scrap that": false, "the dam broke": false} {
		if isCurse(text) != want {
			t.Errorf("isCurse(%q) = %v", text, !want)
		}
	}
	for text, want := range map[string]bool{"Done.": true, "Fixed: all tests pass now": true, "undone work": false, "I fixed nothing? no": true, "tests are failing": false} {
		if claimsSuccess(text) != want {
			t.Errorf("claimsSuccess(%q) = %v", text, !want)
		}
	}
	for text, want := range map[string]bool{"Exit code 1": true, "Error: Exit code 127\nnot found": true, "Exit code 0": false, "exit code 1": false} {
		if isExitError(text) != want {
			t.Errorf("isExitError(%q) = %v", text, !want)
		}
	}
}

// TestCorrectionsInTheLanguagesPeopleWrite: a person who tells the model
// it got something wrong, in English, Chinese, Japanese, Spanish, German
// or French, is heard; everyday openings that only look alike are not.
func TestCorrectionsInTheLanguagesPeopleWrite(t *testing.T) {
	corrections := []string{
		"No, use the staging config, not prod",
		"that's not what I asked for — I wanted the CSV export",
		"It still doesn't work, same 500 on /checkout",
		"you broke the login page",
		"不对，应该改的是 payment/client.go 而不是 server.go",
		"还是不行，测试还是报错",
		"这不是我要的，撤销刚才的修改",
		"違う、そのファイルじゃなくて config.yaml を直して",
		"まだ動かないです。エラーは同じ",
		"No, eso no es lo que pedí",
		"Sigue sin funcionar, el test falla igual",
		"está mal, el endpoint es /api/v2",
		"Nein, das ist die falsche Datei",
		"Das funktioniert immer noch nicht",
		"Non, ce n'est pas le bon fichier",
		"Ça ne marche toujours pas",
	}
	for _, p := range corrections {
		if !isNegation(p) {
			t.Errorf("not heard as a correction: %q", p)
		}
	}
	fine := []string{
		"add retries to the invoice exporter",
		"No problem, go ahead with the migration",
		"no worries — take the time you need and then run the tests",
		"Now write the README section for the importer",
		"帮我给支付客户端加上重试",
		"修改一下 README，加上安装步骤",
		"このバグを直してください",
		"Añade una prueba para el exportador de facturas",
		"No te preocupes, sigue con el plan",
		"Bitte füge einen Test für den Exporter hinzu",
		"Nonetheless, add the feature flag",
		"Peux-tu ajouter un test pour l'export ?",
	}
	for _, p := range fine {
		if isNegation(p) {
			t.Errorf("heard as a correction: %q", p)
		}
	}
}

// TestDeclinedIsNotFailed: a tool call the user said no to (or a denied
// permission, a blocking hook) is no tool error, and a session that ends
// right after one is not BAD.
func TestDeclinedIsNotFailed(t *testing.T) {
	var s State
	tr := Tracker{S: &s}
	for _, e := range []transcript.Entry{
		prompt("delete the build folder", "2026-11-21T10:00:00Z"),
		call("Bash", `{"command":"rm -rf build"}`),
		{Kind: transcript.ToolResults, Results: []transcript.ToolResult{{ID: "x", IsError: true, Declined: true, Text: "The user doesn't want to proceed with this tool use."}}},
		{Kind: transcript.Meta, Declined: true, Timestamp: "2026-11-21T10:00:05Z"},
	} {
		tr.Observe(e)
	}
	r := tr.Score(1, 0, true)
	if r.Class != "OK" || len(r.Signals) != 0 {
		t.Fatalf("a declined call scored %+v", r)
	}
}
