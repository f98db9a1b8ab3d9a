#!/bin/sh
# make.sh writes opencode.db and opencode.db-wal, a database in opencode's
# schema written by the real SQLite (the sqlite3 command), and golden.txt,
# what SQLite itself reads from the pair. Run it from this folder when the
# fixture needs to change: the tests only read its output.
#
# The base is written with a rollback journal; then, in WAL mode with no
# automatic checkpoint, a large batch is committed and checkpointed
# (RESTART), and a small batch committed after it: the log then starts
# with the small batch's frames and ends with stale frames of the large
# one, under the old salts, which a reader must not take.
set -eu
cd "$(dirname "$0")"
command -v sqlite3 >/dev/null || { echo "make.sh: needs the sqlite3 command (apt-get install sqlite3)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/opencode.db

sqlite3 "$db" <<'SQL'
PRAGMA page_size=1024;
CREATE TABLE `session` (
	`id` text PRIMARY KEY,
	`project_id` text NOT NULL,
	`parent_id` text,
	`slug` text NOT NULL,
	`directory` text NOT NULL,
	`title` text NOT NULL,
	`version` text NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL
);
CREATE TABLE `message` (
	`id` text PRIMARY KEY,
	`session_id` text NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`data` text NOT NULL,
	CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);
CREATE TABLE `part` (
	`id` text PRIMARY KEY,
	`message_id` text NOT NULL,
	`session_id` text NOT NULL,
	`time_created` integer NOT NULL,
	`time_updated` integer NOT NULL,
	`data` text NOT NULL
);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE TABLE counter (n INTEGER PRIMARY KEY, label TEXT, weight REAL, raw BLOB);

INSERT INTO session VALUES
 ('ses_a', 'prj_1', NULL, 'a', '/work/acme', 'build fails', '1.0.0', 1764000000000, 1764000100000),
 ('ses_b', 'prj_2', NULL, 'b', '/work/beta', '数据库 迁移', '1.0.0', 1764001000000, 1764001100000),
 ('ses_c', 'prj_1', 'ses_a', 'c', '/work/acme', 'a subagent', '1.0.0', 1764000050000, 1764000060000);
INSERT INTO message VALUES
 ('msg_a1', 'ses_a', 1764000000000, 1764000000000, '{"role":"user","time":{"created":1764000000000}}'),
 ('msg_a2', 'ses_a', 1764000001000, 1764000009000, '{"role":"assistant","time":{"created":1764000001000},"modelID":"m1"}'),
 ('msg_b1', 'ses_b', 1764001000000, 1764001000000, '{"role":"user","time":{"created":1764001000000}}');
INSERT INTO part VALUES
 ('prt_a1', 'msg_a1', 'ses_a', 1764000000000, 1764000000000, '{"type":"text","text":"make build fails with undefined: pb.Client"}'),
 ('prt_a2', 'msg_a2', 'ses_a', 1764000001000, 1764000001000, '{"type":"tool","tool":"bash","callID":"call_1","state":{"status":"error","input":{"command":"make build"},"error":"exit 2","output":"' || (SELECT group_concat(value, ',') FROM generate_series(1, 3000)) || '"}}'),
 ('prt_a3', 'msg_a2', 'ses_a', 1764000002000, 1764000002000, '{"type":"text","text":"Run make codegen first."}'),
 ('prt_b1', 'msg_b1', 'ses_b', 1764001000000, 1764001000000, '{"type":"text","text":"迁移 脚本 在哪里？"}');
-- Enough sessions of no interest for trees of several levels.
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 40)
INSERT INTO session SELECT printf('ses_f%03d', i), 'prj_9', NULL, 'f', '/work/filler', 'filler ' || i, '1.0.0', 1763000000000 + i, 1763000000000 + i FROM s;
WITH RECURSIVE m(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM m WHERE i < 200)
INSERT INTO message SELECT printf('msg_f%04d', i), printf('ses_f%03d', 1 + i % 40), 1763000000000 + i, 1763000000000 + i, '{"role":"user","time":{"created":' || (1763000000000 + i) || '}}' FROM m;
WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < 400)
INSERT INTO part SELECT printf('prt_f%04d', i), printf('msg_f%04d', 1 + i % 200), printf('ses_f%03d', 1 + (1 + i % 200) % 40), 1763000000000 + i, 1763000000000 + i, '{"type":"text","text":"filler ' || i || ' ' || substr(hex(zeroblob(60)), 1, i % 120) || '"}' FROM p;
INSERT INTO counter VALUES (1, 'one', 1.5, x'00ff'), (-7, NULL, -2.25, NULL), (9000000000, 'big', 0.0, x'');
SQL

# The log.
sqlite3 "$db" <<SQL
PRAGMA journal_mode=WAL;
PRAGMA wal_autocheckpoint=0;
WITH RECURSIVE p(i) AS (SELECT 401 UNION ALL SELECT i + 1 FROM p WHERE i < 700)
INSERT INTO part SELECT printf('prt_f%04d', i), printf('msg_f%04d', 1 + i % 200), printf('ses_f%03d', 1 + (1 + i % 200) % 40), 1763000000000 + i, 1763000000000 + i, '{"type":"text","text":"later filler ' || i || '"}' FROM p;
PRAGMA wal_checkpoint(RESTART);
INSERT INTO message VALUES ('msg_b2', 'ses_b', 1764001050000, 1764001050000, '{"role":"assistant","time":{"created":1764001050000},"modelID":"m2"}');
INSERT INTO part VALUES ('prt_b2', 'msg_b2', 'ses_b', 1764001050000, 1764001050000, '{"type":"text","text":"在 db/migrate 里。"}');
UPDATE session SET time_updated = 1764001200000 WHERE id = 'ses_b';
DELETE FROM part WHERE id = 'prt_f0007';
.shell cp "$db" opencode.db && cp "$db-wal" opencode.db-wal
SQL

# What SQLite reads from the pair, from a copy (reading may rewrite it).
cp opencode.db opencode.db-wal "$work/" 2>/dev/null || true
mkdir -p "$work/read" && cp opencode.db "$work/read/opencode.db" && cp opencode.db-wal "$work/read/opencode.db-wal"
sqlite3 "$work/read/opencode.db" > golden.txt <<'SQL'
.mode list
.separator |
SELECT 'session', rowid, id, ifnull(parent_id, ''), directory, title, time_updated FROM session ORDER BY rowid;
SELECT 'message', rowid, id, session_id, time_created, length(CAST(data AS BLOB)), substr(data, 1, 30), substr(data, -30) FROM message ORDER BY rowid;
SELECT 'part', rowid, id, message_id, session_id, length(CAST(data AS BLOB)), substr(data, 1, 30), substr(data, -30) FROM part ORDER BY rowid;
SELECT 'counter', n, ifnull(label, 'NULL'), weight, ifnull(hex(raw), 'NULL') FROM counter ORDER BY n;
SQL
ls -l opencode.db opencode.db-wal golden.txt
