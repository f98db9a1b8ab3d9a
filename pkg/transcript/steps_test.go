package transcript

import "testing"

// TestNormalCommand: the step a command runs, its arguments, paths,
// numbers and shell syntax aside; a script or a loop's fragment is no
// step. (Cases from real people's sessions.)
func TestNormalCommand(t *testing.T) {
	for cmd, want := range map[string]string{
		"make build":                                            "make build",
		"cd /x && make build -j4":                               "make build",
		"make codegen && make build":                            "make build",
		"go test ./internal/payments/":                          "go test",
		"go test -run TestX ./...":                              "go test",
		"FOO=1 npm run build -- --watch":                        "npm run build",
		"pytest tests/test_a.py -k slow":                        "pytest",
		"python3 -m pytest tests":                               "pytest tests",
		"sudo systemctl restart nginx":                          "systemctl restart",
		"go test ./... | tee out.log":                           "go test",
		"./scripts/deploy.sh staging":                           "deploy.sh staging",
		"git commit -m 'fix the retry'":                         "git commit",
		"python3 - <<'EOF' import json EOF":                     "",
		"for f in *.md; do echo $f; done":                       "",
		"cd /x\necho hi":                                        "",
		"LIB_ROOT=$(git rev-parse --show-toplevel) source x.sh": "source",
		"grep -rn foo …":                                        "grep foo",
	} {
		if got := NormalCommand(cmd); got != want {
			t.Errorf("NormalCommand(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestGeminiRecording: a recording is known by its place and its name,
// on any system's separators, and named by its file's stem.
func TestGeminiRecording(t *testing.T) {
	for path, want := range map[string]string{
		"/h/.gemini/tmp/proj/chats/session-2026-11-28T03-37-96ccf475.jsonl": "session-2026-11-28T03-37-96ccf475",
		"/h/.gemini/tmp/proj/chats/session-2026-01-02T10-00-abcd.json":      "session-2026-01-02T10-00-abcd",
		"/h/.gemini/tmp/proj/chats/session-.jsonl":                          "",
		"/h/.gemini/tmp/proj/chats/other.jsonl":                             "",
		"/h/.gemini/tmp/proj/logs/session-x.jsonl":                          "",
		"/h/.claude/projects/-src-shop/session-x.jsonl":                     "",
		"/h/.gemini/tmp/proj/chats/session-x":                               "",
	} {
		got, ok := GeminiRecording(path)
		if got != want || ok != (want != "") {
			t.Errorf("GeminiRecording(%q) = %q, %v", path, got, ok)
		}
	}
}
