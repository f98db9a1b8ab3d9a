package evalset

// The facts and the questions of the evaluation corpus, written before any
// ranking was tuned on them (2026-11-23), and not to be edited to make a
// figure better: a miss is reported as it is.
//
// A session is a person's conversation with Claude Code in one project:
// its opening request, the facts stated somewhere in it (in passing in a
// later prompt, deep inside a long first prompt, in the assistant's
// conclusion, or as a failure and its fix), and filler turns around them.
// Questions are asked the way a person asks weeks later: other words, no
// copy of the sentence. Where a later session updates a fact, the question
// is answered by the newer session only.

type sessionSpec struct {
	id      string
	project string // shop (git), api (git), home (a personal folder, not git)
	lang    string // en, zh, ja, es
	day     int    // days after the corpus's first day
	kind    string // person (default), zed (Claude Code in Zed), headless (a person's claude -p), automated
	opening string // the first request
	turns   int    // turns in all (filler pads to it)
	facts   []factSpec
}

// factSpec places a fact in a session. where: passing (a later prompt says
// it on the way to something else), deep (past character 200 of a long
// first prompt), answer (the assistant's conclusion of the turn), fix (a
// command fails with it, and a later run succeeds).
type factSpec struct {
	id    string
	turn  int
	where string
	text  string
}

type question struct {
	text    string
	lang    string
	answers []string // fact ids; the sessions holding them are right
	all     bool     // every one of the answers' sessions is needed
}

var sessions = []sessionSpec{
	// shop: a Go storefront service.
	{id: "shop-01", project: "shop", lang: "en", day: 0, opening: "Add retries with jittered backoff to the payment client in internal/pay/client.go; the provider times out under load.", turns: 9, facts: []factSpec{
		{"pay-timeout", 4, "passing", "by the way the payment provider's sandbox rate limit is 25 requests per second, so keep the test loop under that"},
		{"pay-retries", 9, "answer", "Retries are in: 4 attempts with full jitter starting at 200ms, capped at 3s; the circuit breaker opens after 8 consecutive failures."},
	}},
	{id: "shop-02", project: "shop", lang: "en", day: 2, opening: "The checkout e2e test is flaky again, can you look at web/e2e/checkout.spec.ts", turns: 7, facts: []factSpec{
		{"flaky-cause", 6, "answer", "The flake came from the cart fixture reusing one Redis key across workers; each Playwright worker now gets its own prefix cart:w{n}:."},
	}},
	{id: "shop-03", project: "shop", lang: "en", day: 4, opening: "I'm going to paste the context for the inventory sync job so you have everything. It runs every night and reconciles stock between the warehouse API and our Postgres table. Historically it was written by a contractor and nobody fully owns it. The important bits: it runs at 02:30 UTC from deploy/cron.yaml, it takes about 40 minutes on a full catalogue, and when it fails it pages the on-call channel #shop-alerts. Please refactor it into smaller functions with tests.", turns: 10, facts: []factSpec{
		{"sync-cron", 1, "deep", ""},
	}},
	{id: "shop-04", project: "shop", lang: "en", day: 5, opening: "Set up the staging environment docs in docs/staging.md", turns: 6, facts: []factSpec{
		{"staging-port", 3, "passing", "staging postgres listens on 5433 not 5432 because the old instance still holds 5432, put that in the doc"},
	}},
	{id: "shop-05", project: "shop", lang: "en", day: 7, opening: "Write the deploy runbook for the storefront", turns: 8, facts: []factSpec{
		{"deploy-heroku", 2, "passing", "we deploy with Heroku pipelines right now, promote from staging to production with the review app step in between"},
	}},
	{id: "shop-06", project: "shop", lang: "en", day: 21, opening: "Migrate the deploy runbook to the new platform", turns: 9, facts: []factSpec{
		{"deploy-fly", 3, "passing", "we moved off Heroku last week, everything now deploys to Fly.io with fly deploy --strategy bluegreen from the main branch"},
	}},
	{id: "shop-07", project: "shop", lang: "en", day: 9, opening: "go test ./... fails on my machine but not in CI, help", turns: 6, facts: []factSpec{
		{"cgo-fix", 2, "fix", "sqlite3 driver needs CGO_ENABLED=1 and gcc; run with CGO_ENABLED=1 go test ./..."},
	}},
	{id: "shop-08", project: "shop", lang: "en", day: 11, opening: "Review the pull request for the discount engine and tell me what you'd change", turns: 8, facts: []factSpec{
		{"discount-rule", 5, "passing", "fyi marketing decided stacked coupons are capped at 30 percent off the cart total, the engine must enforce it"},
		{"discount-owner", 8, "passing", "Priya owns the discount engine now, send review questions to her instead of Tom"},
	}},
	{id: "shop-09", project: "shop", lang: "en", day: 14, opening: "Profile the product listing endpoint, p99 went up", turns: 8, facts: []factSpec{
		{"listing-cause", 7, "answer", "The p99 regression is the N+1 query on product images: 48 extra SELECTs per page. Preloading images with one IN query brings p99 from 910ms back to 140ms."},
	}},
	{id: "shop-10", project: "shop", lang: "en", day: 16, opening: "Add an admin CSV export for orders", turns: 7, facts: []factSpec{
		{"csv-sep", 4, "passing", "accounting opens these in Excel with a German locale, so use semicolons as the separator and a UTF-8 BOM"},
	}},
	{id: "shop-11", project: "shop", lang: "zh", day: 12, opening: "帮我看一下购物车服务的内存泄漏问题，线上 Pod 每天都会 OOM 重启", turns: 8, facts: []factSpec{
		{"zh-leak", 6, "answer", "找到原因了：价格缓存用的 map 从来不清理过期条目，每个 SKU 的历史价格都留在内存里。改成了带 TTL 的 LRU，容量上限 5 万条，内存稳定在 300MB 左右。"},
	}},
	{id: "shop-12", project: "shop", lang: "zh", day: 18, opening: "我们要给订单服务加一个审计日志，记录每次状态变更", turns: 7, facts: []factSpec{
		{"zh-audit", 3, "passing", "顺便说一下，合规那边要求审计日志至少保留七年，而且必须写到单独的只读存储桶里"},
	}},
	{id: "shop-13", project: "shop", lang: "ja", day: 19, opening: "商品検索のレスポンスが遅いので調査してください", turns: 7, facts: []factSpec{
		{"ja-search", 5, "answer", "原因は全文検索インデックスの再構築が毎朝9時に走っていて、その間クエリがフルスキャンになっていることでした。再構築を深夜3時に移しました。"},
	}},
	{id: "shop-14", project: "shop", lang: "es", day: 20, opening: "Necesito que revises la integración con el proveedor de envíos", turns: 7, facts: []factSpec{
		{"es-shipping", 4, "passing", "por cierto, el proveedor de envíos solo acepta pesos en gramos enteros, nunca en kilos con decimales"},
	}},
	{id: "shop-15", project: "shop", lang: "en", day: 24, kind: "zed", opening: "Rename the Cart type to Basket across the codebase", turns: 6, facts: []factSpec{
		{"zed-rename", 4, "passing", "keep Cart as a type alias until the mobile app ships version 5.2, it still decodes cart_id"},
	}},
	{id: "shop-16", project: "shop", lang: "en", day: 26, opening: "Our Stripe webhook handler double-charges sometimes, investigate", turns: 9, facts: []factSpec{
		{"webhook-idem", 8, "answer", "Stripe retries the webhook when we answer after 10 seconds; the handler now stores the event id in processed_events and skips duplicates, and answers 200 before doing the work."},
	}},
	{id: "shop-17", project: "shop", lang: "en", day: 28, kind: "headless", opening: "summarise the changes on the release branch since v3.8.0 for the changelog", turns: 2, facts: []factSpec{
		{"release-date", 2, "passing", "the release is scheduled for Thursday the 3rd of December, put that date at the top of the changelog"},
	}},
	{id: "shop-18", project: "shop", lang: "en", day: 30, opening: "The staging database moved again, update the docs and the env files", turns: 6, facts: []factSpec{
		{"staging-port-2", 2, "passing", "staging postgres is now on the managed instance at port 6432 behind pgbouncer, the 5433 box is gone"},
	}},

	// api: a Python/TypeScript API.
	{id: "api-01", project: "api", lang: "en", day: 1, opening: "Set up rate limiting on the public API", turns: 8, facts: []factSpec{
		{"rate-limit", 5, "passing", "the enterprise tier gets 1200 requests per minute, free tier 60, and the partner keys are exempt entirely"},
	}},
	{id: "api-02", project: "api", lang: "en", day: 3, opening: "Write a migration that adds soft deletes to the accounts table", turns: 7, facts: []factSpec{
		{"migration-dry", 3, "passing", "never run alembic upgrade on prod without --sql first, Dana reviews the generated SQL before anything touches the live database"},
	}},
	{id: "api-03", project: "api", lang: "en", day: 6, opening: "pytest hangs forever on the worker tests", turns: 6, facts: []factSpec{
		{"pytest-hang", 2, "fix", "the Celery worker fixture needs CELERY_TASK_ALWAYS_EAGER=1 or it waits for a broker; run CELERY_TASK_ALWAYS_EAGER=1 pytest tests/worker"},
	}},
	{id: "api-04", project: "api", lang: "en", day: 8, opening: "Add OpenTelemetry tracing to the request pipeline", turns: 9, facts: []factSpec{
		{"otel-endpoint", 4, "passing", "the collector runs as a sidecar on localhost:4317 in every pod, grpc only, no TLS inside the pod"},
		{"otel-sampling", 9, "answer", "Tracing is on: parent-based sampling at 5% for normal requests and 100% for anything that returns a 5xx, via a tail-sampling processor in the collector."},
	}},
	{id: "api-05", project: "api", lang: "en", day: 10, opening: "The TypeScript client generator produces broken types for unions", turns: 6, facts: []factSpec{
		{"ts-union", 5, "answer", "openapi-typescript mishandles oneOf without a discriminator; adding discriminator.propertyName: type to the three union schemas fixes the generated types."},
	}},
	{id: "api-06", project: "api", lang: "en", day: 13, opening: "I need to paste our on-call notes so you can turn them into a proper runbook. We rotate weekly on Mondays at 10:00 Berlin time, the handover happens in the #api-oncall channel, and the primary has to acknowledge pages within 5 minutes. Escalation goes to the secondary after 15 minutes and to the engineering manager after 30. The secret for the pager integration lives in Vault under secret/api/pager, never in the repo.", turns: 8, facts: []factSpec{
		{"oncall", 1, "deep", ""},
	}},
	{id: "api-07", project: "api", lang: "en", day: 15, opening: "Switch the background jobs from Celery to something simpler", turns: 10, facts: []factSpec{
		{"queue-choice", 6, "passing", "we decided to go with Dramatiq on Redis, not RQ, because we need retries with backoff and priorities"},
	}},
	{id: "api-08", project: "api", lang: "en", day: 17, opening: "Fix the flaky timezone test in tests/test_billing.py", turns: 6, facts: []factSpec{
		{"tz-fix", 3, "fix", "freezegun needs tz_offset=0 and the test must run with TZ=UTC; run TZ=UTC pytest tests/test_billing.py"},
	}},
	{id: "api-09", project: "api", lang: "zh", day: 22, opening: "API 网关返回 502，帮我排查一下", turns: 7, facts: []factSpec{
		{"zh-502", 5, "answer", "502 是因为上游的 keepalive 超时是 60 秒，而网关是 75 秒，网关复用了已经被上游关掉的连接。把网关的 keepalive 改成 50 秒就好了。"},
	}},
	{id: "api-10", project: "api", lang: "zh", day: 25, opening: "我想把 API 文档从 Swagger UI 换成别的", turns: 6, facts: []factSpec{
		{"zh-docs", 3, "passing", "我们团队已经决定用 Redoc，不用 Stoplight，因为 Redoc 可以完全离线部署"},
	}},
	{id: "api-11", project: "api", lang: "ja", day: 23, opening: "認証トークンの有効期限を見直したい", turns: 6, facts: []factSpec{
		{"ja-token", 3, "passing", "ちなみにアクセストークンは15分、リフレッシュトークンは30日にすることにセキュリティチームと合意しました"},
	}},
	{id: "api-12", project: "api", lang: "es", day: 27, opening: "Ayúdame a configurar las alertas de latencia", turns: 7, facts: []factSpec{
		{"es-alert", 5, "passing", "la alerta debe saltar cuando el p95 supere los 800 milisegundos durante cinco minutos seguidos, no antes"},
	}},
	{id: "api-13", project: "api", lang: "en", day: 29, kind: "zed", opening: "Move the settings loading to pydantic-settings", turns: 6, facts: []factSpec{
		{"zed-settings", 3, "passing", "production reads settings from AWS Parameter Store under /api/prod/, never from a .env file"},
	}},
	{id: "api-14", project: "api", lang: "en", day: 31, opening: "Rate limits need to change for the new pricing", turns: 6, facts: []factSpec{
		{"rate-limit-2", 2, "passing", "with the new pricing the enterprise tier goes up to 3000 requests per minute, free stays at 60"},
	}},

	// home: personal conversations in a folder that is not a repository.
	{id: "home-01", project: "home", lang: "en", day: 1, opening: "Help me plan a weekend trip, I have two days and a car", turns: 6, facts: []factSpec{
		{"sister-denver", 3, "passing", "oh and my sister just moved to Denver, so maybe somewhere I can stop by her place on the way back"},
	}},
	{id: "home-02", project: "home", lang: "en", day: 6, opening: "Draft an email to my landlord about the broken heating", turns: 5, facts: []factSpec{
		{"landlord-name", 2, "passing", "his name is Mr. Okafor and he prefers to be addressed formally, we've had trouble with him before"},
	}},
	{id: "home-03", project: "home", lang: "en", day: 10, opening: "I want to start running again, make me a plan", turns: 6, facts: []factSpec{
		{"knee", 2, "passing", "keep in mind I had knee surgery in March so nothing over 5k for the first month"},
	}},
	{id: "home-04", project: "home", lang: "zh", day: 12, opening: "帮我想一下我妈妈六十岁生日送什么礼物", turns: 5, facts: []factSpec{
		{"zh-mom", 2, "passing", "她很喜欢园艺，最近在阳台上种了很多多肉植物，而且她对花粉过敏"},
	}},
	{id: "home-05", project: "home", lang: "ja", day: 15, opening: "来月の京都旅行のスケジュールを立てたい", turns: 5, facts: []factSpec{
		{"ja-kyoto", 2, "passing", "友達が二人一緒に来る予定で、一人はベジタリアンなのでレストラン選びに気をつけてほしい"},
	}},
	{id: "home-06", project: "home", lang: "es", day: 18, opening: "Quiero organizar mis finanzas personales este año", turns: 5, facts: []factSpec{
		{"es-savings", 3, "passing", "mi meta es ahorrar para la entrada de un piso en Valencia, unos veinte mil euros en dos años"},
	}},
	{id: "home-07", project: "home", lang: "en", day: 20, opening: "What should I cook for a dinner party on Saturday", turns: 5, facts: []factSpec{
		{"dinner-allergy", 2, "passing", "one of the guests, Mara, is allergic to tree nuts, and I'd like something I can prep the day before"},
	}},
	{id: "home-08", project: "home", lang: "en", day: 27, opening: "Help me write a birthday message for my sister", turns: 4, facts: []factSpec{
		{"sister-boulder", 2, "passing", "she moved again, from Denver to Boulder, and started a new job at the university there"},
	}},
}

var questions = []question{
	// Stated in passing in a later prompt.
	{text: "what's the payment provider's sandbox rate limit?", lang: "en", answers: []string{"pay-timeout"}},
	{text: "which port does the staging database use?", lang: "en", answers: []string{"staging-port-2"}},
	{text: "how do we deploy the storefront these days?", lang: "en", answers: []string{"deploy-fly"}},
	{text: "what's the maximum discount when coupons are combined?", lang: "en", answers: []string{"discount-rule"}},
	{text: "who do I ask about the discount code reviews?", lang: "en", answers: []string{"discount-owner"}},
	{text: "what delimiter do the accounting exports need?", lang: "en", answers: []string{"csv-sep"}},
	{text: "what requests per minute does an enterprise customer get on the API?", lang: "en", answers: []string{"rate-limit-2"}},
	{text: "what's the rule before upgrading the production schema?", lang: "en", answers: []string{"migration-dry"}},
	{text: "where does the tracing collector run?", lang: "en", answers: []string{"otel-endpoint"}},
	{text: "which job queue library did we pick instead of celery?", lang: "en", answers: []string{"queue-choice"}},
	{text: "where does the production API get its configuration from?", lang: "en", answers: []string{"zed-settings"}},
	{text: "why does the Cart alias still exist after the rename?", lang: "en", answers: []string{"zed-rename"}},
	{text: "when does the next storefront release go out?", lang: "en", answers: []string{"release-date"}},
	{text: "where does my sister live now?", lang: "en", answers: []string{"sister-boulder"}},
	{text: "what's my landlord called?", lang: "en", answers: []string{"landlord-name"}},
	{text: "how far can I run after the operation?", lang: "en", answers: []string{"knee"}},
	{text: "which guest has a food allergy and to what?", lang: "en", answers: []string{"dinner-allergy"}},

	// Deep inside a long first prompt.
	{text: "what time does the nightly inventory reconciliation start?", lang: "en", answers: []string{"sync-cron"}},
	{text: "where do inventory sync failures get reported?", lang: "en", answers: []string{"sync-cron"}},
	{text: "how quickly must the primary on-call acknowledge a page?", lang: "en", answers: []string{"oncall"}},
	{text: "where is the pager integration secret kept?", lang: "en", answers: []string{"oncall"}},

	// In the assistant's conclusion.
	{text: "what backoff settings did we give the payment retries?", lang: "en", answers: []string{"pay-retries"}},
	{text: "why was the checkout test flaky?", lang: "en", answers: []string{"flaky-cause"}},
	{text: "what fixed the slow product listing page?", lang: "en", answers: []string{"listing-cause"}},
	{text: "how did we stop stripe from charging customers twice?", lang: "en", answers: []string{"webhook-idem"}},
	{text: "what sampling rate do we use for traces?", lang: "en", answers: []string{"otel-sampling"}},
	{text: "how did we fix the generated TypeScript union types?", lang: "en", answers: []string{"ts-union"}},

	// A failure and its fix.
	{text: "go tests fail locally with sqlite errors, what was the trick?", lang: "en", answers: []string{"cgo-fix"}},
	{text: "the worker tests hang, how did we get them to run?", lang: "en", answers: []string{"pytest-hang"}},
	{text: "billing test fails depending on the timezone, what's the fix?", lang: "en", answers: []string{"tz-fix"}},

	// Updates: the history is asked for, both sessions are right.
	{text: "which platforms have we used for deploying the storefront?", lang: "en", answers: []string{"deploy-heroku", "deploy-fly"}, all: true},
	{text: "history of the staging database ports", lang: "en", answers: []string{"staging-port", "staging-port-2"}, all: true},

	// Chinese.
	{text: "购物车服务为什么会 OOM？", lang: "zh", answers: []string{"zh-leak"}},
	{text: "审计日志要保存多久？", lang: "zh", answers: []string{"zh-audit"}},
	{text: "网关 502 错误是怎么解决的？", lang: "zh", answers: []string{"zh-502"}},
	{text: "API 文档最后选了哪个工具？", lang: "zh", answers: []string{"zh-docs"}},
	{text: "给妈妈选生日礼物要注意什么？", lang: "zh", answers: []string{"zh-mom"}},
	{text: "价格缓存的容量上限是多少", lang: "zh", answers: []string{"zh-leak"}},

	// Japanese.
	{text: "商品検索が遅かった原因は？", lang: "ja", answers: []string{"ja-search"}},
	{text: "リフレッシュトークンの有効期限は何日？", lang: "ja", answers: []string{"ja-token"}},
	{text: "京都旅行で気をつけることは？", lang: "ja", answers: []string{"ja-kyoto"}},

	// Spanish.
	{text: "¿en qué unidad hay que mandar el peso al proveedor de envíos?", lang: "es", answers: []string{"es-shipping"}},
	{text: "¿cuándo tiene que saltar la alerta de latencia?", lang: "es", answers: []string{"es-alert"}},
	{text: "¿cuánto quiero ahorrar y para qué?", lang: "es", answers: []string{"es-savings"}},

	// A person asks in English about what was said in another language.
	{text: "the audit log retention requirement", lang: "en", answers: []string{"zh-audit"}},
}

// smallTalk are prompts that ask for no memory: recall must stay silent.
var smallTalk = []string{
	"thanks!", "ok go on", "looks good", "perfect, thank you", "yes please", "no, that's fine", "hmm", "continue",
	"great, ship it", "can you try again?", "what do you think?", "sounds good to me", "nice", "ok", "go ahead",
	"谢谢", "好的，继续", "ありがとう", "了解です", "gracias", "vale, sigue", "lol", "👍", "sure", "makes sense",
	"do it", "cool", "that works", "good morning!", "hi",
}
