// ccmem's plugin for opencode: it runs ccmem's hooks, the same binaries
// Claude Code runs, on opencode's events. Written by `ccmem install
// --opencode`, removed by `ccmem uninstall`; install rewrites it, so edit
// nothing here. It uses node's own modules only, and nothing it does can
// stop or fail a turn except a call a rule you accepted holds.
//
//   first prompt of a session  -> sessionstart: the project's block
//   every prompt               -> userpromptsubmit: memory recalled for it
//   a tool call                -> pretooluse: the rules and the hold
//   the end of a turn          -> ccmem import --session: the session's record
import { spawnSync } from "node:child_process";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

const LIB = "__LIB__";
const EXE = "__EXE__";
const CCMEM = "__CCMEM__";
// opencode's tool names -> Claude Code's, for the tools the rules guard.
const GUARDED = __GUARDED__;

const xdgData = process.env.XDG_DATA_HOME;
const dataDir = () => join(xdgData && isAbsolute(xdgData) ? xdgData : join(homedir(), ".local", "share"), "opencode");
// Where the hooks read the session from: opencode's database and the
// session's id, as ccmem names a session of it.
const source = (sid) => join(dataDir(), "opencode.db", sid);

// run runs one of ccmem's programs with input on stdin and returns its
// output as JSON ({} when it printed nothing, null when it failed).
function run(bin, args, input, timeout) {
  try {
    const r = spawnSync(bin, args, { input: JSON.stringify(input), encoding: "utf8", timeout, windowsHide: true, maxBuffer: 8 << 20 });
    if (r.error || r.status !== 0) return null;
    const out = (r.stdout || "").trim();
    return out ? JSON.parse(out) : {};
  } catch {
    return null;
  }
}

const hook = (name, input) => run(join(LIB, name + EXE), [], input, 10000);
const contextOf = (out) => (out && out.hookSpecificOutput && out.hookSpecificOutput.additionalContext) || "";

// snake turns opencode's argument names (filePath) into Claude Code's (file_path).
const snake = (args) => Object.fromEntries(Object.entries(args || {}).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase()), v]));

export const CcmemPlugin = async ({ directory }) => {
  const begun = new Set(); // sessions whose start this process has run
  const created = new Set(); // sessions opencode made in this process
  const children = new Set(); // a subagent's sessions (the task tool's): part of their parent's
  const carried = new Map(); // a tool call's context from pretooluse, for its result
  return {
    "chat.message": async (input, output) => {
      try {
        const sid = input.sessionID || (output.message && output.message.sessionID);
        const parts = output.parts || [];
        const typed = parts.filter((p) => p.type === "text" && !p.synthetic);
        if (!sid || typed.length === 0 || children.has(sid)) return;
        const base = { session_id: sid, transcript_path: source(sid), cwd: directory };
        const context = [];
        if (!begun.has(sid)) {
          // A session new to this process: a new one, or one continued
          // (opencode run -c), which opencode does not announce.
          begun.add(sid);
          const started = hook("sessionstart", { ...base, hook_event_name: "SessionStart", source: created.has(sid) ? "startup" : "resume" });
          context.push(contextOf(started));
        }
        const prompt = typed.map((p) => p.text).join("\n");
        context.push(contextOf(hook("userpromptsubmit", { ...base, hook_event_name: "UserPromptSubmit", prompt })));
        const text = context.filter(Boolean).join("\n\n");
        if (!text) return;
        // A part of the user's message that opencode stores as synthetic:
        // the model reads it, and ccmem's record of the session skips it.
        const last = typed[typed.length - 1];
        parts.splice(parts.indexOf(last) + 1, 0, { ...last, id: last.id + "ccmem", text, synthetic: true });
      } catch {
        // Memory is a help, never a reason for a turn to fail.
      }
    },
    "tool.execute.before": async (input, output) => {
      let reason = "";
      try {
        const tool = GUARDED[input.tool];
        if (!tool) return;
        const out = hook("pretooluse", {
          session_id: input.sessionID, transcript_path: source(input.sessionID), cwd: directory,
          hook_event_name: "PreToolUse", tool_name: tool, tool_input: snake(output.args), tool_use_id: input.callID,
        });
        const o = (out && out.hookSpecificOutput) || {};
        if (o.permissionDecision === "deny" || o.permissionDecision === "ask") {
          reason = o.permissionDecisionReason || "ccmem holds this call";
        } else if (o.additionalContext) {
          carried.set(input.callID, o.additionalContext);
        }
      } catch {
        return;
      }
      // Thrown, the call is not run and the model reads why.
      if (reason) throw new Error(reason);
    },
    "tool.execute.after": async (input, output) => {
      try {
        const context = carried.get(input.callID);
        if (context === undefined) return;
        carried.delete(input.callID);
        if (typeof output.output === "string") output.output += "\n\n" + context;
      } catch {}
    },
    event: async ({ event }) => {
      try {
        const sid = event.properties && (event.properties.sessionID || (event.properties.info && event.properties.info.id));
        if (event.type === "session.created" && sid) {
          created.add(sid);
          if (event.properties.info && event.properties.info.parentID) children.add(sid);
        }
        if (event.type === "session.idle" && sid && !children.has(sid)) {
          // The hooks cannot read opencode's database; ccmem can.
          run(CCMEM, ["import", "--session", sid, "--json"], {}, 30000);
        }
      } catch {}
    },
  };
};
