package guard

import "testing"

// TestForbids: a rule forbids the command it says not to run, or the step
// it says must wait for another; never the command it prescribes, nor a
// command that runs the prerequisite first.
func TestForbids(t *testing.T) {
	const lesson = "`make build` fails with `undefined: pb.Order` unless `make codegen` runs first: run `make codegen` before `make build`."
	for _, c := range []struct {
		rule, cmd string
		want      bool
	}{
		{"Never run go test directly; run make test-payments", "go test ./internal/payments/", true},
		{"Never run go test directly; run make test-payments", "make test-payments", false},
		{"Never run go test directly; run make test-payments", "go vet ./...", false},
		{"Run `make test` instead of `go test`.", "go test -run TestX ./...", true},
		{"Run `make test` instead of `go test`.", "make test", false},
		{lesson, "make build", true},
		{lesson, "cd api && make build", true},
		{lesson, "make codegen && make build", false},
		{lesson, "make codegen", false},
		{"不要直接运行 go test，用 make test", "go test ./...", true},
		{"不要直接运行 go test，用 make test", "make test", false},
		{"make build 之前先运行 make codegen", "make build", true},
		{"Nunca ejecutes npm run deploy a mano", "npm run deploy", true},
		{"Never run make builder", "make build", false}, // a longer word is another step
		{"Always run make lint", "make lint", false},
		{"Never run ls", "ls -la", false}, // too common a word to name
	} {
		if got := Forbids(c.rule, c.cmd); got != c.want {
			t.Errorf("Forbids(%q, %q) = %v, want %v", c.rule, c.cmd, got, c.want)
		}
	}
}
