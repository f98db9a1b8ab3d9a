package evalset

// Filler: what fills the turns around the facts, and the sessions without
// any — the everyday traffic of a coding assistant, in each language, so
// that a fact has to be found among sentences that share its words.

var followUps = map[string][]string{
	"en": {
		"ok now run the tests", "can you also update the README for this", "looks good, commit it with a sensible message",
		"now add a unit test for the error path", "can you explain what this function does before you change it",
		"please keep the public API the same", "run the linter and fix what it reports", "what about the edge case where the list is empty?",
		"thanks, next let's clean up the logging", "can you check the other call sites too", "make the error messages clearer",
		"ok, and the integration test?", "rename that variable, it's confusing", "add a comment explaining why", "let's also handle the timeout",
		"the build is red, can you look", "good. now the docs", "hmm, that's not quite it, try again with a smaller change", "split that into two commits",
		"check the config for the staging environment", "does this need a migration?", "update the changelog",
	},
	"zh": {
		"好的，现在跑一下测试", "顺便把 README 也更新一下", "看起来不错，提交吧", "再加一个单元测试覆盖错误分支", "先解释一下这个函数在做什么",
		"保持对外接口不变", "跑一下 lint 并修复问题", "列表为空的情况怎么处理？", "日志也整理一下", "其他调用的地方也检查一下",
	},
	"ja": {
		"テストを実行してください", "README も更新してください", "良さそうです。コミットしてください", "エラー時のテストも追加して",
		"この関数の動きを先に説明して", "公開 API は変えないでください", "lint を実行して直してください", "ログも整理しましょう",
	},
	"es": {
		"vale, ahora ejecuta los tests", "actualiza también el README", "se ve bien, haz commit", "añade un test para el caso de error",
		"explícame primero qué hace esta función", "mantén la API pública igual", "pasa el linter y corrige lo que salga", "revisa también los logs",
	},
}

var answers = map[string][]string{
	"en": {
		"Done: the tests pass and the change is limited to the two files you mentioned.", "I updated the README with a usage section and an example.",
		"Committed as \"refactor: split the handler into smaller functions\".", "Added a table-driven test covering the empty and the error case.",
		"The function parses the config, validates the ranges and falls back to the defaults; nothing else depends on its side effects.",
		"The linter reported three unused imports and a shadowed variable; all fixed.", "Both call sites now go through the new helper.",
		"I made the error messages name the file and the line.", "The integration test passes locally against the docker compose stack.",
		"The build failed on a missing generated file; I regenerated it and it is green now.", "I left the public interface unchanged and kept the old name as a deprecated wrapper.",
	},
	"zh": {
		"测试都通过了，改动只涉及你提到的两个文件。", "README 已经更新，加了使用说明和示例。", "已提交。", "加了一个表驱动测试，覆盖空列表和错误情况。",
		"lint 报了三个未使用的导入，已经全部修复。", "两个调用点现在都走新的辅助函数。",
	},
	"ja": {
		"テストはすべて通りました。変更はご指摘の2ファイルだけです。", "README に使い方の節と例を追加しました。", "コミットしました。",
		"空の場合とエラーの場合のテストを追加しました。", "lint の指摘3件を修正しました。",
	},
	"es": {
		"Listo: los tests pasan y el cambio solo toca los dos archivos que mencionaste.", "Actualicé el README con una sección de uso y un ejemplo.",
		"Hecho el commit.", "Añadí un test con tabla que cubre el caso vacío y el de error.", "El linter encontró tres imports sin usar; corregidos.",
	},
}

// toolOutputs are what tools return in filler turns: code read, test runs,
// listings — many words, few of them a question's.
var toolOutputs = []string{
	"package pay\n\nimport (\n\t\"context\"\n\t\"net/http\"\n\t\"time\"\n)\n\n// Client talks to the payment provider.\ntype Client struct {\n\thttp    *http.Client\n\tbaseURL string\n\ttimeout time.Duration\n}\n\nfunc (c *Client) Charge(ctx context.Context, req ChargeRequest) (*Charge, error) {\n\tctx, cancel := context.WithTimeout(ctx, c.timeout)\n\tdefer cancel()\n\treturn c.do(ctx, req)\n}\n",
	"=== RUN   TestCheckout\n--- PASS: TestCheckout (0.02s)\n=== RUN   TestCartTotals\n--- PASS: TestCartTotals (0.00s)\nPASS\nok  \tgithub.com/acme/shop/internal/cart\t0.118s\n",
	"total 48\ndrwxr-xr-x  7 dev dev 4096 Oct  3 09:12 .\n-rw-r--r--  1 dev dev  812 Oct  3 09:12 go.mod\n-rw-r--r--  1 dev dev 2291 Oct  3 09:12 Makefile\ndrwxr-xr-x  4 dev dev 4096 Oct  3 09:12 internal\ndrwxr-xr-x  3 dev dev 4096 Oct  3 09:12 web\n",
	"def reconcile(session, warehouse):\n    \"\"\"Bring our stock in line with the warehouse.\"\"\"\n    for sku, qty in warehouse.levels():\n        row = session.get(Stock, sku)\n        if row is None:\n            session.add(Stock(sku=sku, qty=qty))\n        elif row.qty != qty:\n            row.qty = qty\n    session.commit()\n",
	"============================= test session starts ==============================\ncollected 214 items\n\ntests/test_accounts.py ........................................ [ 18%]\ntests/test_billing.py ..................................... [ 36%]\n\n============================== 214 passed in 12.41s ==============================\n",
	"{\n  \"name\": \"api-client\",\n  \"version\": \"2.4.1\",\n  \"scripts\": {\"build\": \"tsc -p .\", \"test\": \"vitest run\"},\n  \"dependencies\": {\"openapi-fetch\": \"^0.9.0\"}\n}\n",
	"M  internal/discount/engine.go\nM  internal/discount/engine_test.go\n?? docs/discounts.md\n",
}

var shellCommands = []string{"go test ./...", "make lint", "git status", "ls -la", "pytest -q", "npm run build", "go vet ./...", "git diff --stat", "docker compose ps"}

// topics open the sessions that state no fact: the everyday work the
// facts hide among.
var topics = map[string][]string{
	"shop": {
		"Add pagination to the orders endpoint", "Upgrade Go to the newest version and fix what breaks", "Write tests for the cart totals",
		"Clean up the logging in the checkout handlers", "Add a health check endpoint for the load balancer", "Why is the docker build so slow?",
		"Add a feature flag for the new search UI", "Refactor the email templates", "Fix the typo in the product page title", "Generate mocks for the repository interfaces",
		"Add metrics for the payment latency", "Move config loading into one package", "Help me understand the order state machine",
		"修复订单列表的分页问题", "商品ページのタイトルの誤字を直して", "Añade métricas para la latencia del carrito",
	},
	"api": {
		"Add an endpoint to list API keys", "Bump the dependencies and run the test suite", "Write docs for the webhooks", "Fix the CORS headers for the dashboard",
		"Add request ids to every log line", "Make the pagination cursor opaque", "Explain the auth middleware to me", "Speed up the test suite",
		"Add a CLI command to rotate keys", "Validate the JSON bodies with pydantic models", "把日志格式改成 JSON", "テストを速くしたい", "Documenta los códigos de error",
	},
	"home": {
		"Recommend a good book about habits", "Help me write a cover letter", "Explain how index funds work", "Plan meals for the week",
		"Translate this paragraph into French", "What's a good houseplant for a dark room?", "推荐几本好看的科幻小说", "週末のレシピを考えて", "Ayúdame a escribir un correo formal",
	},
}

// observerPrompt is what an automated observer sends after every session:
// a plugin's background claude -p, the same prompt every time.
const observerPrompt = "You are a memory observer for a coding session. Read the tool calls below and write one observation per meaningful action as JSON lines with fields type, title, files. Do not converse.\n\n<tool_calls>\n"
