// Package recallset is the measured precision of ccmem's recall: a seeded,
// generated store of memories of every kind, queries with known answers
// written as a person would ask them (not copies of the memories' words),
// and small talk that must recall nothing. `make recall` prints the report;
// a test holds the targets.
package recallset

// fact is one memory with the question that should find it.
type fact struct {
	kind  string // global, project, topic, learned, record, briefing, episode
	name  string // file name for topics, learned entries, records, episodes
	text  string // the memory
	extra string // a learned entry's description, a record's category, an episode's outcome
	query string
}

// facts are the memories the queries look for. Each query is phrased
// differently from its memory: other forms of its words, other words.
var facts = []fact{
	{kind: "global", text: "Prefers table-driven tests with t.Run subtests in Go", query: "how should I structure the Go unit tests?"},
	{kind: "global", text: "Answers in British English: colour, organise, behaviour", query: "which spelling does the user want, American or British English?"},
	{kind: "global", text: "Never commit with --no-verify; the pre-commit hooks run gofumpt and staticcheck", query: "can I skip the pre-commit hooks when committing?"},
	{kind: "global", text: "Uses the fish shell, not bash, on the work laptop", query: "what shell does the user run on the laptop?"},
	{kind: "global", text: "Wants commands to copy rather than long explanations", query: "should I explain at length or give commands to copy?"},
	{kind: "global", text: "Time zone is Europe/Berlin; schedule nothing before 9:00", query: "what time zone is the user in?"},
	{kind: "global", text: "Reviews pull requests only in the morning", query: "when does the user review pull requests?"},
	{kind: "global", text: "Dislikes ORMs: write SQL by hand and generate the Go code with sqlc", query: "should I use an ORM for the database layer?"},

	{kind: "project", text: "`make db-up` starts Postgres 16 in Docker before the integration tests", query: "the integration tests cannot reach Postgres, what do I start first?"},
	{kind: "project", text: "Money is int64 cents, never float64", query: "how are monetary amounts stored, float or integer cents?"},
	{kind: "project", text: "Feature flags live in internal/flags and go away within two releases", query: "where do feature flags go?"},
	{kind: "project", text: "The staging deploy runs from the deploy-staging GitHub workflow on every merge to main", query: "how does staging get deployed?"},
	{kind: "project", text: "Protobuf code is generated with buf generate; never edit gen/ by hand", query: "how do I regenerate the protobuf code?"},
	{kind: "project", text: "API errors use RFC 7807 problem+json bodies", query: "what format do the API error responses use?"},

	{kind: "topic", name: "release.md", text: "# Release checklist\n\nTag vX.Y.Z, publish the changelog, then announce in #releases.\n", query: "what are the steps to cut a release?"},
	{kind: "topic", name: "oncall.md", text: "# On-call runbook\n\nEscalate to the secondary after 15 minutes; the Grafana board is shop-overview.\n", query: "who do I escalate to when I am on call?"},
	{kind: "topic", name: "frontend-style.md", text: "# Frontend style\n\nTailwind only, no CSS modules; shared components live in web/src/ui.\n", query: "may I add a CSS module for this component?"},

	{kind: "learned", name: "user/role", text: "Backend engineer with ten years of Go, new to React.", extra: "the user's background", query: "how experienced is the user with React?"},
	{kind: "learned", name: "feedback/no-mocks", text: "Never mock the database driver: a mocked driver hid a broken migration.", extra: "integration tests hit a real database", query: "should I mock the database in the tests?"},
	{kind: "learned", name: "feedback/small-prs", text: "Keep pull requests under 400 lines; split refactors from features.", extra: "pull request size", query: "how big may a pull request be?"},
	{kind: "learned", name: "project/holiday-freeze", text: "No merges from December 18 to January 6.", extra: "merge freeze over the holidays", query: "is there a code freeze around the holidays?"},
	{kind: "learned", name: "reference/grafana", text: "Dashboards shop-overview and payments-latency on grafana.internal.", extra: "where the Grafana dashboards are", query: "where can I see the latency dashboards?"},
	{kind: "learned", name: "reference/sentry", text: "Exceptions go to the Sentry project shop-api; alerts to #shop-alerts.", extra: "error reporting", query: "where do exceptions get reported?"},
	{kind: "learned", name: "feedback/commit-style", text: "Imperative mood with a component prefix, like 'payments: retry on 503'.", extra: "how to write commit messages", query: "how should the commit message be worded?"},

	{kind: "record", name: "decision/job-queue", text: "Use Postgres SKIP LOCKED for the job queue instead of Redis streams", extra: "decision", query: "why don't we use Redis for background jobs?"},
	{kind: "record", name: "constraint/pci", text: "Card numbers never touch our servers; card entry goes through Stripe Elements", extra: "constraint", query: "can we keep credit card numbers in our database?"},
	{kind: "record", name: "runbook/checkout-502", text: "Checkout answers 502: restart the pgbouncer pod, then check the connection limits", extra: "runbook", query: "checkout is throwing 502 errors, what do I do?"},
	{kind: "record", name: "tech_debt/pdf-renderer", text: "The invoice PDF renderer shells out to the deprecated wkhtmltopdf binary", extra: "tech_debt", query: "what is wrong with how invoice PDFs are rendered?"},
	{kind: "record", name: "preference/logging", text: "Structured logging with zerolog, not logrus", extra: "preference", query: "which logging library do we use?"},
	{kind: "record", name: "decision/graphql", text: "A GraphQL gateway was rejected in favour of REST with OpenAPI", extra: "decision", query: "are we adopting GraphQL?"},

	{kind: "briefing", text: "Current focus: the invoice export to the accounting system (DATEV CSV)", query: "what is the team doing for accounting right now?"},
	{kind: "briefing", text: "The mobile app talks to api/v2 only; v1 is frozen", query: "which API version does the mobile app call?"},
	{kind: "briefing", text: "Product search runs on Meilisearch since October", query: "what engine powers the product search?"},
	{kind: "briefing", text: "Payments are split between Stripe (cards) and Adyen (SEPA direct debit)", query: "which provider handles SEPA debits?"},

	{kind: "episode", name: "recent", text: "add retry with jittered backoff to the payment client", extra: "payments client retries 5xx with backoff; tests pass", query: "did we already add retries to the payment calls?"},
	{kind: "episode", name: "recent", text: "why does the checkout e2e test flake on CI?", extra: "flake reproduces only with parallel workers", query: "flaky checkout end-to-end tests"},
	{kind: "episode", name: "archived", text: "migrate the orders table to bigint ids", extra: "orders.id is bigint; migration ran online", query: "order ids were running out, how did we migrate them?"},
	{kind: "episode", name: "archived", text: "speed up the product listing query with a covering index", extra: "p95 from 900 ms to 40 ms", query: "the product list page was slow, what did we do about it?"},
	{kind: "episode", name: "archived", text: "upgrade Go from 1.25 to 1.26 and fix the vet findings", extra: "toolchain bumped in go.mod and CI", query: "when did we upgrade the Go toolchain?"},
	{kind: "episode", name: "archived", text: "write the DATEV CSV exporter for invoices", extra: "export job runs nightly", query: "exporting invoices as CSV files for DATEV"},
	{kind: "episode", name: "archived", text: "rotate the leaked Stripe webhook secret", extra: "new secret in Vault; old one revoked", query: "the webhook signing secret had to be rotated"},
	{kind: "episode", name: "archived", text: "add rate limiting to the login endpoint", extra: "10 attempts per minute per IP", query: "brute force protection for logins"},
	{kind: "episode", name: "archived", text: "fix the timezone bug in the nightly report", extra: "report dates now in Europe/Berlin", query: "the nightly report showed the wrong dates"},
	{kind: "episode", name: "archived", text: "set up Renovate for dependency updates", extra: "weekly grouped PRs", query: "a bot that opens dependency update pull requests"},
	{kind: "episode", name: "archived", text: "port the admin dashboard from jQuery to React", extra: "admin UI rewritten, old bundle removed", query: "rewriting the admin UI in React"},
	{kind: "episode", name: "archived", text: "investigate the memory leak in the image resizer worker", extra: "leak in the thumbnail cache; fixed", query: "the image worker keeps running out of memory"},
}

// smallTalk are prompts that ask for no memory.
var smallTalk = []string{
	"thanks!", "ok, go on", "looks good", "great, continue please", "yes", "no, not that one",
	"perfect", "hmm, try again", "can you do that?", "sounds good to me", "nice work", "go ahead",
	"what do you think?", "keep going", "that works, thanks", "ok", "sure, why not", "let's do it",
	"alright, next", "cool", "lgtm", "do it", "wait", "never mind", "thank you so much", "yes please, go",
}

// fillerWords make the memories no query is about: the everyday words of
// a code base, which every query shares some of.
var fillerWords = []string{
	"update", "service", "config", "handler", "module", "review", "build", "deploy", "test", "api",
	"client", "server", "cache", "user", "page", "error", "log", "metric", "job", "queue", "file",
	"bug", "feature", "release", "team", "docs", "endpoint", "schema", "worker", "script", "lint",
	"refactor", "timeout", "retry", "branch", "merge", "ticket", "sprint", "staging", "production",
	"migration", "index", "query", "frontend", "backend", "pipeline", "container", "cluster", "secret",
	"dependency", "package", "version", "latency", "report", "export", "import", "session", "token",
}
