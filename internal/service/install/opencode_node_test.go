//go:build !windows

// The hooks this test stands in for are shell scripts: not on Windows.

package install

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpencodePluginNeverFailsATurn runs the plugin install writes in
// node against stand-in hooks that misbehave as a broken install would
// (exit 2, print garbage, crash, are missing): the prompt goes on
// untouched, a call goes on, and only a hook's deny holds a call, with
// its reason. A hook's context reaches the prompt as a synthetic part
// after the person's, and a call's context its result; a subagent's
// session gets none.
func TestOpencodePluginNeverFailsATurn(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed to run opencode's plugin and is not installed (make test installs npm's clients with it): %v", err)
	}
	tmp := t.TempDir()
	lib := filepath.Join(tmp, "lib")
	script := func(name, body string) {
		mustWrite(t, filepath.Join(lib, name), "#!/bin/sh\n"+body+"\n")
		os.Chmod(filepath.Join(lib, name), 0o755)
	}
	script("sessionstart", `echo 'not json'; exit 2`)
	script("userpromptsubmit", `read -r line; case "$line" in
*crash*) kill -SEGV $$ ;;
*recall*) printf '%s' '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"RECALLED"}}' ;;
esac`)
	script("pretooluse", `read -r line; case "$line" in
*forbidden*) printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Never run forbidden"}}' ;;
*context*) printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"THE RULE"}}' ;;
*crash*) exit 3 ;;
esac`)
	// No ccmem at all: the turn's end finds nothing to run.
	o := OpencodeOptions{Dir: filepath.Join(tmp, "oc"), Lib: lib, CCMem: filepath.Join(tmp, "missing", "ccmem"), GuardTools: []string{"Bash"}}
	if _, err := InstallOpencode(o); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(tmp, "driver.mjs")
	mustWrite(t, driver, `
import { CcmemPlugin } from `+jsString("file://"+OpencodePlugin(o.Dir))+`;
const h = await CcmemPlugin({ directory: "/tmp/proj" });
const out = {};
const msg = (text) => ({ message: { id: "msg_1", sessionID: "ses_A" }, parts: [{ id: "prt_1", type: "text", text, messageID: "msg_1", sessionID: "ses_A" }] });
for (const p of ["please recall this", "crash now", "plain"]) {
  const o = msg(p);
  try { await h["chat.message"]({ sessionID: "ses_A" }, o); out[p] = o.parts; } catch (e) { out[p] = "threw: " + e.message; }
}
for (const c of ["ls forbidden", "ls crash", "ls context", "ls"]) {
  const o = { args: { command: c } };
  try {
    await h["tool.execute.before"]({ tool: "bash", sessionID: "ses_A", callID: c }, o);
    const after = { output: "ran" };
    await h["tool.execute.after"]({ tool: "bash", sessionID: "ses_A", callID: c }, after);
    out[c] = after.output;
  } catch (e) { out[c] = "threw: " + e.message; }
}
try { await h["tool.execute.before"]({ tool: "read", sessionID: "ses_A", callID: "r" }, { args: { filePath: "forbidden" } }); out.read = "ran"; } catch (e) { out.read = "threw"; }
try { await h.event({ event: { type: "session.idle", properties: { sessionID: "ses_A" } } }); out.idle = "ok"; } catch (e) { out.idle = "threw"; }
// A subagent's session (the task tool's) is its parent's: no start, no recall.
await h.event({ event: { type: "session.created", properties: { sessionID: "ses_C", info: { id: "ses_C", parentID: "ses_A" } } } });
{ const o = msg("please recall this"); o.message.sessionID = "ses_C"; await h["chat.message"]({ sessionID: "ses_C" }, o); out.child = o.parts.length; }
console.log(JSON.stringify(out));
`)
	cmd := exec.Command(node, driver)
	cmd.Env = append(os.Environ(), "HOME="+tmp)
	raw, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, raw)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("driver printed %s", raw)
	}
	str := func(k string) string { var s string; json.Unmarshal(got[k], &s); return s }
	var parts []struct {
		ID, Text  string
		Synthetic bool
	}
	json.Unmarshal(got["please recall this"], &parts)
	if len(parts) != 2 || parts[0].Text != "please recall this" || parts[1].Text != "RECALLED" || !parts[1].Synthetic || parts[1].ID <= parts[0].ID {
		t.Errorf("recall did not follow the prompt as a synthetic part: %s", got["please recall this"])
	}
	for _, p := range []string{"crash now", "plain"} {
		json.Unmarshal(got[p], &parts)
		if len(parts) != 1 {
			t.Errorf("%q: the prompt changed: %s", p, got[p])
		}
	}
	if string(got["child"]) != "1" {
		t.Errorf("a subagent's prompt got ccmem's context: %s parts", got["child"])
	}
	want := map[string]string{"ls forbidden": "threw: Never run forbidden", "ls crash": "ran", "ls context": "ran\n\nTHE RULE", "ls": "ran", "read": "ran", "idle": "ok"}
	for k, w := range want {
		if g := str(k); g != w {
			t.Errorf("%s: %q, want %q", k, g, w)
		}
	}
}

func jsString(s string) string { b, _ := json.Marshal(s); return strings.TrimSpace(string(b)) }
