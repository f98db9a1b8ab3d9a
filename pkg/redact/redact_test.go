package redact

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"private key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nafter", "key:\n[REDACTED:private-key]\nafter", 1},
		{"openssh key, unterminated", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA", "[REDACTED:private-key]", 1},
		{"aws access key", "id AKIAIOSFODNN7EXAMPLE here", "id [REDACTED:aws-access-key] here", 1},
		{"aws secret assignment", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED:assignment]", 1},
		{"gcp api key", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED:gcp-api-key]", 1},
		{"azure account key", "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=abcdefghijklmnopqrstuvwxyz0123456789+/==;", "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=[REDACTED:azure-key];", 1},
		{"github token", "export GH=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "export GH=[REDACTED:github-token]", 1},
		{"github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED:github-token]", 1},
		{"gitlab token", "glpat-abcdefghij0123456789", "[REDACTED:gitlab-token]", 1},
		{"slack token", "xoxb-1234567890-abcdefghij", "[REDACTED:slack-token]", 1},
		{"stripe key", "sk_live_abcdefghijklmnop1234", "[REDACTED:stripe-key]", 1},
		{"anthropic key", "ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "ANTHROPIC_API_KEY=[REDACTED:anthropic-key]", 1},
		{"openai key", "use sk-proj-abcdefghijklmnopqrstuvwxyz0123 now", "use [REDACTED:openai-key] now", 1},
		{"jwt", "tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "tok [REDACTED:jwt]", 1},
		{"bearer header", "Authorization: Bearer abcdefghijklmnop.qrstuv", "Authorization: Bearer [REDACTED:auth-header]", 1},
		{"basic header", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:auth-header]", 1},
		{"password assignment", `password="hunter2!" and secret: s3cr3t-value`, `password=[REDACTED:assignment] and secret: [REDACTED:assignment]`, 2},
		{"url with password", "postgres://app:Sup3rS3cret@db.internal:5432/shop", "postgres://app:[REDACTED:url-password]@db.internal:5432/shop", 1},
		{"plain text untouched", "add retry to the payment client; tokens are counted by the tokenizer", "add retry to the payment client; tokens are counted by the tokenizer", 0},
		{"url without password untouched", "see https://example.com/a:b/c and git@github.com:acme/shop.git", "see https://example.com/a:b/c and git@github.com:acme/shop.git", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := String(tt.in)
			if got != tt.want || n != tt.n {
				t.Fatalf("String(%q)\n got %q (%d)\nwant %q (%d)", tt.in, got, n, tt.want, tt.n)
			}
			if again, n2 := String(got); again != got || n2 != 0 {
				t.Fatalf("redacting twice changed it again: %q (%d)", again, n2)
			}
		})
	}
}

func TestCounter(t *testing.T) {
	var c Counter
	c.String("password=abc123")
	c.String("nothing")
	c.String("AKIAIOSFODNN7EXAMPLE and ghp_0123456789abcdefghijklmnopqrstuvwxyzAB")
	if c.N != 3 {
		t.Fatalf("count %d, want 3", c.N)
	}
}

func BenchmarkStringPlain(b *testing.B) {
	s := strings.Repeat("ordinary words about a payment client and retries ", 20)
	for i := 0; i < b.N; i++ {
		String(s)
	}
}
