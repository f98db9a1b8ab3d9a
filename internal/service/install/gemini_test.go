package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiHooksKeepTheRest: install --gemini adds ccmem's handlers to a
// Gemini settings.json that holds the person's own settings and hooks,
// keeping every byte of theirs (one with comments, which ccmem does not
// edit, is refused untouched); a second run changes nothing; uninstall
// leaves the file byte for byte as it was, and takes back a file ccmem
// made.
func TestGeminiHooksKeepTheRest(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(t.TempDir(), "lib", "ccmem")
	mine := `{
  // Gemini reads comments in its settings
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "hooks": {
    "AfterAgent": [ { "hooks": [ { "type": "command", "command": "notify-send done", "timeout": 3000 } ] } ]
  },
  "ui": {"theme": "GitHub"}
}
`
	if err := os.WriteFile(GeminiSettings(dir), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	o := GeminiOptions{Dir: dir, Lib: lib, GuardTools: []string{"Bash", "Edit", "MultiEdit"}}
	// Gemini reads comments in its settings; ccmem edits plain JSON only:
	// such a file is refused whole and left as it is.
	if _, err := InstallGemini(o); err == nil || !strings.Contains(err.Error(), "left untouched") {
		t.Fatalf("a settings.json with a comment: %v", err)
	}
	if got, _ := os.ReadFile(GeminiSettings(dir)); string(got) != mine {
		t.Fatalf("a refused file was changed:\n%s", got)
	}
	mine = strings.Replace(mine, "  // Gemini reads comments in its settings\n", "", 1)
	if err := os.WriteFile(GeminiSettings(dir), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := InstallGemini(o)
	if err != nil || !rep.Changed() {
		t.Fatalf("install: %+v %v", rep, err)
	}
	got, _ := os.ReadFile(GeminiSettings(dir))
	for _, want := range []string{`"notify-send done"`, `"GitHub"`, `"BeforeAgent"`, `"BeforeTool"`, `"AfterAgent"`, `"SessionStart"`,
		filepath.Join(lib, "userpromptsubmit"), `"matcher": "run_shell_command|replace"`, `"timeout": 5000`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("settings.json lacks %s:\n%s", want, got)
		}
	}
	for _, not := range []string{"PreCompress", filepath.Join(lib, "precompact"), filepath.Join(lib, "posttoolusefailure")} {
		if strings.Contains(string(got), not) {
			t.Errorf("settings.json registers %s:\n%s", not, got)
		}
	}
	if !GeminiRegistered(dir) {
		t.Error("GeminiRegistered does not see the hooks")
	}
	if missing, err := GeminiMissing(dir, lib, o.GuardTools); err != nil || len(missing) != 0 {
		t.Errorf("right after install, missing %v (%v)", missing, err)
	}
	if missing, _ := GeminiMissing(dir, filepath.Join(t.TempDir(), "elsewhere"), o.GuardTools); len(missing) != 4 {
		t.Errorf("another install's binaries: missing %v, want all four events", missing)
	}
	if again, err := InstallGemini(o); err != nil || again.Changed() {
		t.Fatalf("a second install changed %+v (%v)", again, err)
	}
	if _, err := UninstallGemini(o); err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(GeminiSettings(dir)); string(back) != mine {
		t.Fatalf("uninstall did not give the file back byte for byte:\n%s", back)
	}
	if GeminiRegistered(dir) {
		t.Error("registered after uninstall")
	}

	// No settings.json before: install makes one, uninstall takes it back.
	fresh := t.TempDir()
	if _, err := InstallGemini(GeminiOptions{Dir: fresh, Lib: lib, GuardTools: o.GuardTools}); err != nil {
		t.Fatal(err)
	}
	if _, err := UninstallGemini(GeminiOptions{Dir: fresh, Lib: lib}); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(fresh); len(ents) != 0 {
		t.Errorf("uninstall left %v in a folder that had no settings", ents)
	}
}
