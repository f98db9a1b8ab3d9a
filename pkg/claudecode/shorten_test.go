package claudecode

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// FuzzShortenStrings: a JSON text whose strings are all within the bound
// comes through byte for byte; with a small bound every string is still a
// string, its head kept whole (no escape or character cut in two) and
// marked.
func FuzzShortenStrings(f *testing.F) {
	f.Add(`{"a":"hello world","b":["x\n\u00e9\ud83d\ude00y",1,true,null]}`, 5)
	f.Add(`{"cmd":"echo \"quoted\" and \\ back\\slash"}`, 7)
	f.Add(`{"e":"中文错误信息 很长很长"}`, 4)
	f.Fuzz(func(t *testing.T, doc string, max int) {
		if !json.Valid([]byte(doc)) || max < 1 || max > 1<<16 {
			return
		}
		same, over, err := shortenStrings(strings.NewReader(doc), 1<<20, 1<<24)
		if err != nil || over || string(same) != doc {
			t.Fatalf("within the bound the text changed: %q → %q (%v)", doc, same, err)
		}
		out, _, err := shortenStrings(strings.NewReader(doc), max, 1<<24)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("not JSON after cutting at %d: %q → %q", max, doc, out)
		}
		var a, b any
		json.Unmarshal([]byte(doc), &a)
		json.Unmarshal(out, &b)
		sameShape(t, a, b)
	})
}

// sameShape: b is a with strings cut to a head of themselves.
func sameShape(t *testing.T, a, b any) {
	t.Helper()
	switch av := a.(type) {
	case string:
		bv, ok := b.(string)
		if !ok {
			t.Fatalf("%q became %v", av, b)
		}
		if head, cut := strings.CutSuffix(bv, cutMark); cut {
			if !strings.HasPrefix(av, strings.TrimRight(head, "\uFFFD")) {
				t.Fatalf("%q is not a head of %q", head, av)
			}
		} else if bv != av {
			t.Fatalf("%q became %q", av, bv)
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(bv) != len(av) {
			t.Fatalf("%v became %v", a, b)
		}
		for i := range av {
			sameShape(t, av[i], bv[i])
		}
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(bv) != len(av) {
			// Two keys cut to one head collide: the shape is kept only up to that.
			return
		}
		for k, v := range av {
			if w, ok := bv[k]; ok {
				sameShape(t, v, w)
			}
		}
	}
}

// TestHugeInputCostsItsBound: a 48 MB command and a 14 MB error (the
// client sends what a tool got) are read into strings of MaxString, with
// memory that does not follow the input's size, and the cut keeps no part
// of a word (a secret is whole or gone).
func TestHugeInputCostsItsBound(t *testing.T) {
	token := "ghp_" + strings.Repeat("A1b2", 9)
	var doc bytes.Buffer
	doc.WriteString(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo `)
	word := []byte(token + " ")
	for doc.Len() < 48<<20 {
		doc.Write(word)
	}
	doc.WriteString(`"},"error":"`)
	for i := 0; i < 14<<20/8; i++ {
		doc.WriteString(`line\n\t"`[:8])
	}
	doc.WriteString(`"}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	in, err := ReadInput(bytes.NewReader(doc.Bytes()), time.Now().Add(time.Minute))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	cmd := in.ToolString("command")
	if len(cmd) > MaxString+len(cutMark) || len(cmd) < MaxString-4096 || !strings.HasSuffix(cmd, cutMark) {
		t.Fatalf("the command kept %d bytes", len(cmd))
	}
	words := strings.Fields(strings.TrimSuffix(cmd, cutMark))
	if last := words[len(words)-1]; last != token {
		t.Fatalf("the cut kept part of a word: %q", last)
	}
	if len(in.Error) > MaxString+len(cutMark) {
		t.Fatalf("the error kept %d bytes", len(in.Error))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Fatalf("reading a 62 MB input allocated %d MB", alloc>>20)
	}
}

// TestShortenStringsAtRandom: random documents of long strings with
// escapes and multi-byte characters decode after cutting, at every bound.
func TestShortenStringsAtRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", " ", "é", "中", "😀", `\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, "\t"}
	for round := 0; round < 300; round++ {
		var b strings.Builder
		b.WriteString(`{"k":[`)
		for s := 0; s < 1+r.IntN(4); s++ {
			if s > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('"')
			for n := r.IntN(400); n > 0; n-- {
				piece := alphabet[r.IntN(len(alphabet))]
				if piece == "\t" {
					piece = `\t`
				}
				b.WriteString(piece)
			}
			b.WriteByte('"')
		}
		b.WriteString(`]}`)
		doc := b.String()
		if !json.Valid([]byte(doc)) {
			t.Fatalf("the test made invalid JSON: %q", doc)
		}
		max := 1 + r.IntN(300)
		out, _, err := shortenStrings(strings.NewReader(doc), max, 1<<24)
		if err != nil || !json.Valid(out) {
			t.Fatalf("cut at %d: %q → %q (%v)", max, doc, out, err)
		}
		var a, o any
		json.Unmarshal([]byte(doc), &a)
		json.Unmarshal(out, &o)
		sameShape(t, a, o)
	}
}
