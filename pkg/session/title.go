package session

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccmem/ccmem/pkg/textfmt"
)

// A session's title is what a person would call it: its first substantive
// request. Greetings, the client's own messages ("Unknown skill: …"), bare
// shell commands, pasted blobs and a request the person aborted before any
// answer are passed over; a slash command's arguments are the request.
// Absolute paths are shortened to their project-relative tail so they do
// not eat the menu's width. The first prompt itself stays in the digest.

// titleChars is the most a title holds (the menu's line shows it whole).
const titleChars = 80

// greetings are prompts that ask for nothing, in the languages people write
// (compared case-folded, without punctuation).
var greetings = map[string]bool{
	"hi": true, "hello": true, "hey": true, "yo": true, "hiya": true, "howdy": true, "good morning": true, "morning": true,
	"thanks": true, "thank you": true, "ok": true, "okay": true, "yes": true, "no": true, "continue": true, "go on": true,
	"go ahead": true, "test": true, "testing": true, "ping": true, "hello there": true, "hi there": true, "hey there": true,
	"你好": true, "您好": true, "嗨": true, "哈喽": true, "谢谢": true, "继续": true, "好的": true, "好": true,
	"こんにちは": true, "おはよう": true, "おはようございます": true, "ありがとう": true, "続けて": true,
	"hola": true, "buenas": true, "buenos días": true, "buenos dias": true, "gracias": true, "sigue": true, "continúa": true,
	"bonjour": true, "salut": true, "merci": true, "hallo": true, "guten tag": true, "danke": true, "weiter": true,
	"안녕하세요": true, "안녕": true, "olá": true, "ola": true, "ciao": true, "привет": true,
}

// clientMessages start prompts the client wrote, not the person.
var clientMessages = []string{"Unknown skill:", "Unknown command:", "Unknown slash command", "[Request interrupted", "Caveat:",
	"This session is being continued", "<", "API Error", "Error: ", "Login", "Invalid API key"}

// untitled is the title of a session none of whose prompts a person
// would name it by (the client's own messages, pasted blobs).
const untitled = "(no request in words)"

// personal tells a prompt a person wrote in words: not one of the
// client's own messages, nor a pasted blob.
func personal(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" || isBlob(t) {
		return false
	}
	for _, m := range clientMessages {
		if strings.HasPrefix(t, m) {
			return false
		}
	}
	return true
}

// shellPrograms are the programs a bare command line starts with.
var shellPrograms = map[string]bool{
	"ls": true, "cd": true, "pwd": true, "cat": true, "git": true, "npm": true, "npx": true, "pnpm": true, "yarn": true,
	"make": true, "go": true, "cargo": true, "python": true, "python3": true, "pip": true, "node": true, "docker": true,
	"kubectl": true, "echo": true, "grep": true, "rg": true, "find": true, "tree": true, "clear": true, "exit": true,
	"bun": true, "deno": true, "mvn": true, "gradle": true, "ruby": true, "bundle": true, "rails": true, "pytest": true,
	"uv": true, "brew": true, "sudo": true, "rm": true, "mv": true, "cp": true, "mkdir": true, "touch": true, "head": true, "tail": true,
}

// substantive tells whether a prompt asks for something a person would
// name a session by.
func substantive(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return false
	}
	for _, m := range clientMessages {
		if strings.HasPrefix(t, m) {
			return false
		}
	}
	norm := strings.ToLower(strings.Join(strings.FieldsFunc(t, func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSpace(r) || unicode.IsSymbol(r)
	}), " "))
	if norm == "" || greetings[norm] {
		return false
	}
	if isBareCommand(t) || isBlob(t) {
		return false
	}
	// A single word that is not CJK ("help", "fix") says little.
	if !strings.ContainsAny(norm, " ") && utf8.RuneCountInString(norm) < 12 && !hasCJK(norm) {
		return false
	}
	return true
}

// isBareCommand tells a line that is a shell command, not a request:
// a known program and at most two more words, or a line starting with $.
func isBareCommand(t string) bool {
	if strings.ContainsRune(t, '\n') {
		return false
	}
	f := strings.Fields(strings.TrimPrefix(t, "$ "))
	if strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "!") {
		return true
	}
	return len(f) > 0 && len(f) <= 3 && shellPrograms[f[0]]
}

// isBlob tells pasted data from a request: JSON, a stack trace, or text
// that is mostly not letters.
func isBlob(t string) bool {
	if (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
		return true
	}
	// JSON pasted whole or in part: an object's first key.
	if t[0] == '{' || t[0] == '[' {
		head := strings.TrimLeft(t[1:], " \t\r\n[{")
		if strings.HasPrefix(head, `"`) {
			if end := strings.Index(head[1:], `"`); end >= 0 && strings.HasPrefix(strings.TrimLeft(head[end+2:], " \t"), ":") {
				return true
			}
		}
	}
	for _, m := range []string{"Traceback (most recent call last)", "goroutine 1 [", "panic: ", "Exception in thread", "    at "} {
		if strings.HasPrefix(t, m) {
			return true
		}
	}
	letters, others := 0, 0
	for _, r := range t {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsSpace(r):
		default:
			others++
		}
	}
	return letters < others
}

func hasCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// titleOf makes a title of a substantive prompt: its first line that says
// something (a pasted blob after a request is left out), absolute paths
// shortened, cut at a word boundary.
func titleOf(text, root string) string {
	t := strings.TrimSpace(text)
	if line, _, ok := strings.Cut(t, "\n"); ok && utf8.RuneCountInString(strings.TrimSpace(line)) >= 12 {
		t = line
	}
	t = shortenPaths(textfmt.Line(textfmt.OneLine(t)), root)
	return cutWords(t, titleChars)
}

// shortenPaths shortens each absolute path in s: inside root to its
// relative path, elsewhere to its last two parts.
func shortenPaths(s, root string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		trimmed := strings.Trim(w, "`'\"(),:;")
		if len(trimmed) < 2 || !filepath.IsAbs(trimmed) && !strings.HasPrefix(trimmed, "~/") {
			continue
		}
		short := trimmed
		if root != "" {
			if rel, err := filepath.Rel(root, trimmed); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
				short = filepath.ToSlash(rel)
			}
		}
		if short == trimmed {
			parts := strings.Split(strings.Trim(filepath.ToSlash(trimmed), "/"), "/")
			if len(parts) > 2 {
				short = "…/" + strings.Join(parts[len(parts)-2:], "/")
			}
		}
		words[i] = strings.Replace(w, trimmed, short, 1)
	}
	return strings.Join(words, " ")
}

// cutWords cuts s to at most n characters at a word boundary, with "…".
func cutWords(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-") + "…"
}
