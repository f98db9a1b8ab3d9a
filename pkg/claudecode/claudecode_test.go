package claudecode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDecodeRealPayloads(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/claude-code-2.1.328/hook-input/*.json")
	if len(files) < 14 {
		t.Fatalf("found %d fixture payloads, want the 15 captured ones", len(files))
	}
	for _, f := range files {
		if strings.Contains(f, "StatusLine") {
			continue // not a hook payload
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if in.SessionID == "" || in.Cwd != "/home/dev/src/shop" || in.HookEventName == "" {
			t.Fatalf("%s: decoded %+v", f, in)
		}
		if in.HookEventName == "SessionStart" && in.Source == "" {
			t.Fatalf("%s: no source", f)
		}
		if in.HookEventName == "PreCompact" && in.Trigger != "manual" {
			t.Fatalf("%s: trigger %q", f, in.Trigger)
		}
	}
}

func TestDecodeLenient(t *testing.T) {
	in, err := Decode([]byte(`{"session_id": 7, "cwd": "/x", "stop_hook_active": "yes", "new": {"deep": [1]}}`))
	if err != nil || in.Cwd != "/x" || in.SessionID != "" || in.StopHookActive {
		t.Fatalf("%+v %v", in, err)
	}
	for input, want := range map[string]string{
		"":          "no hook input",
		"  \n":      "no hook input",
		"[1]":       "not a JSON object",
		"{":         "not valid JSON",
		"null":      "not a JSON object",
		"nonsense":  "not valid JSON",
		`{"a":1}xx`: "not valid JSON",
	} {
		if _, err := Decode([]byte(input)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want %q", input, err, want)
		}
	}
}

type blockingReader struct{}

func (blockingReader) Read([]byte) (int, error) { select {} }

func TestReadInputGivesUpAtDeadline(t *testing.T) {
	start := time.Now()
	_, err := ReadInput(blockingReader{}, start.Add(50*time.Millisecond))
	if !errors.Is(err, ErrTimedOut) {
		t.Fatalf("err = %v", err)
	}
}
