package transcript

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/ccmem/ccmem/pkg/store"
)

// opencode's JSON storage comes in two layouts, both read here:
//   - since 0.4: storage/session/<project>/ses_<id>.json (the session),
//     storage/message/<session>/msg_*.json, storage/part/<message>/prt_*.json;
//   - before (its first layout, one storage per project):
//     project/<project>/storage/session/info/ses_<id>.json, its messages
//     in .../session/message/<session>/ and their parts in
//     .../session/part/<session>/<message>/. The session's file there
//     often names no folder: its assistant messages do (path.cwd).

// MaxOpencodeFiles bounds the files of one opencode session read.
const MaxOpencodeFiles = 20000

// opencodeDirs are the folders of a session's messages and of a message's
// parts, for the session file at path, and the root nothing read may
// leave.
func opencodeDirs(path string) (root, messages string, parts func(mid string) string) {
	sid := strings.TrimSuffix(filepath.Base(path), ".json")
	if filepath.Base(filepath.Dir(path)) == "info" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "session" {
		sessions := filepath.Dir(filepath.Dir(path))
		return sessions, filepath.Join(sessions, "message", sid), func(mid string) string { return filepath.Join(sessions, "part", sid, mid) }
	}
	storage := filepath.Dir(filepath.Dir(filepath.Dir(path)))
	return storage, filepath.Join(storage, "message", sid), func(mid string) string { return filepath.Join(storage, "part", mid) }
}

// ReadOpencodeStorage reads the messages and parts (by message id) of the
// session whose file is path, at most max files, until ctx ends, with a
// stamp that changes when any of them does (their sizes and times summed).
// A symlink is not followed; a file that cannot be read is passed over.
func ReadOpencodeStorage(ctx context.Context, path string, max int) (stamp int64, messages [][]byte, parts map[string][][]byte, err error) {
	root, msgDir, partDir := opencodeDirs(path)
	msgs, err := store.ListFiles(root, msgDir)
	if err != nil {
		return 0, nil, nil, err
	}
	parts = map[string][][]byte{}
	files := 0
	for _, m := range msgs {
		if files++; files > max || ctx.Err() != nil {
			break
		}
		data, err := store.ReadSmallFile(filepath.Join(msgDir, m.Name), 4<<20)
		if err != nil {
			continue
		}
		stamp += int64(len(data)) + m.MTime%1000003
		messages = append(messages, data)
		mid := strings.TrimSuffix(m.Name, ".json")
		dir := partDir(mid)
		ps, _ := store.ListFiles(root, dir)
		for _, pf := range ps {
			if files++; files > max {
				break
			}
			if pd, err := store.ReadSmallFile(filepath.Join(dir, pf.Name), 4<<20); err == nil {
				stamp += int64(len(pd)) + pf.MTime%1000003
				parts[mid] = append(parts[mid], pd)
			}
		}
	}
	return stamp, messages, parts, nil
}

// OpencodeCwd is the folder a session of opencode's JSON storage ran in
// (path: its session file): the session's directory, else the first its
// assistant messages name (path.cwd, else path.root), looking at no more
// than 200 of them.
func OpencodeCwd(path string) string {
	var s OpencodeSession
	if data, err := store.ReadSmallFile(path, 1<<20); err == nil {
		_ = json.Unmarshal(data, &s)
	}
	if s.Directory != "" {
		return s.Directory
	}
	root, msgDir, _ := opencodeDirs(path)
	msgs, _ := store.ListFiles(root, msgDir)
	for i, m := range msgs {
		if i >= 200 {
			break
		}
		data, err := store.ReadSmallFile(filepath.Join(msgDir, m.Name), 4<<20)
		if err != nil {
			continue
		}
		var msg struct {
			Path struct{ Cwd, Root string } `json:"path"`
		}
		if json.Unmarshal(data, &msg) == nil {
			if msg.Path.Cwd != "" {
				return msg.Path.Cwd
			}
			if msg.Path.Root != "" {
				return msg.Path.Root
			}
		}
	}
	return ""
}
