package redact

import (
	"math/rand"
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
		// Glued to the letters before or after (issue 47, finding 7).
		{"aws key glued", "xAKIAIOSFODNN7EXAMPLEzz", "x[REDACTED:aws-access-key]zz", 1},
		{"github token glued", "zzzghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "zzz[REDACTED:github-token]", 1},
		{"openai project key glued", "keysk-proj-abcdefghijklmnopqrstuvwxyz0123", "key[REDACTED:openai-key]", 1},
		{"stripe key glued", "STRIPEsk_live_abcdefghijklmnop1234", "STRIPE[REDACTED:stripe-key]", 1},
		{"npm token glued", "tokennpm_abcdefghijklmnopqrstuvwxyz0123456789", "token[REDACTED:npm-token]", 1},
		{"slack token glued", "axoxb-1234567890-abcdefghij", "a[REDACTED:slack-token]", 1},
		{"a word with sk- is no key", "the task-abcdefghijklmnopqrstuvwxyz runs", "the task-abcdefghijklmnopqrstuvwxyz runs", 0},
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
		{"npm token", "//registry.npmjs.org/:_authToken=npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 in .npmrc", "//registry.npmjs.org/:_authToken=[REDACTED:npm-token] in .npmrc", 1},
		{"hugging face token", "huggingface-cli login --token hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "huggingface-cli login --token [REDACTED:huggingface-token]", 1},
		{"pypi token", "password = pypi-AgEIcHlwaS5vcmcCJDk2NzRiYzQ4LWQ1ZjAtNDhjYi1hZTUxLWM0ZjE5YzM2MmY5OQ", "password = [REDACTED:pypi-token]", 1},
		{"docker hub token", "docker login -u me -p dckr_pat_2b3e36beeb386dfdaacb9b46004", "docker login -u me -p [REDACTED:dockerhub-token]", 1},
		{"google api key in a url", "https://maps.googleapis.com/maps/api/geocode/json?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "https://maps.googleapis.com/maps/api/geocode/json?key=[REDACTED:gcp-api-key]", 1},
		{"twilio api key", "client = Client('SK2a4b6c8d0e2f4a6b8c0d2e4f6a8b0c2d', secret)", "client = Client('[REDACTED:twilio-key]', secret)", 1},
		{"sendgrid key", "SENDGRID=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", "SENDGRID=[REDACTED:sendgrid-key]", 1},
		{"azure storage connection string", "conn: DefaultEndpointsProtocol=https;AccountName=shopstore;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net", "conn: DefaultEndpointsProtocol=https;AccountName=shopstore;AccountKey=[REDACTED:azure-key];EndpointSuffix=core.windows.net", 1},
		{"databricks token", "export DATABRICKS_HOST=x; curl -H \"Authorization: Bearer dapi0123456789abcdef0123456789abcdef\"", "export DATABRICKS_HOST=x; curl -H \"Authorization: Bearer [REDACTED:databricks-token]\"", 1},
		{"databricks token alone", "token dapi0123456789abcdef0123456789abcdef-2 works", "token [REDACTED:databricks-token] works", 1},
		{"shopify token", "X-Shopify-Access-Token: shpat_0123456789abcdef0123456789abcdef", "X-Shopify-Access-Token: [REDACTED:shopify-token]", 1},
		{"generic token assignment", "GITHUB_TOKEN=Zq8Xw2Lk9Pm4Rt7Yv1Bn6Hc3Jd5Gf0Sa", "GITHUB_TOKEN=[REDACTED:assignment]", 1},
		{"generic key assignment", "MAPBOX_KEY=pk.eyJ1IjoiYWNtZSIsImEiOiJja3EifQ.Xb3nE7", "MAPBOX_KEY=[REDACTED:assignment]", 1},
		{"generic secret assignment", "export STRIPE_WEBHOOK_SECRET=whsec_5f2a9c0e7b1d4386a0f9c2e7b4d1a8c3", "export STRIPE_WEBHOOK_SECRET=[REDACTED:assignment]", 1},
		{"generic key names a setting, not a secret", "FEATURE_KEY=enable_new_checkout_flow and CACHE_KEY=user_profile_v2", "FEATURE_KEY=enable_new_checkout_flow and CACHE_KEY=user_profile_v2", 0},
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

// secretExamples are one realistic secret of each kind, for the property
// test below.
var secretExamples = []string{
	"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----",
	"sk-ant-api03-Zq8Xw2Lk9Pm4Rt7Yv1Bn6Hc3Jd5Gf0SaQw", "sk-proj-Zq8Xw2Lk9Pm4Rt7Yv1Bn6Hc3Jd5Gf0Sa",
	"ghp_Zq8Xw2Lk9Pm4Rt7Yv1Bn6Hc3Jd5Gf0SaQwEr", "glpat-Zq8Xw2Lk9Pm4Rt7Yv1Bn6", "xoxb-1234567890-Zq8Xw2Lk9Pm4",
	"sk_live_Zq8Xw2Lk9Pm4Rt7Yv1Bn6", "AKIAZQ8XW2LK9PM4RT7Y", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
	"npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
	"pypi-AgEIcHlwaS5vcmcCJDk2NzRiYzQ4LWQ1ZjAtNDhjYi1hZTUxLWM0ZjE5YzM2MmY5OQ",
	"dckr_pat_2b3e36beeb386dfdaacb9b46004", "SK2a4b6c8d0e2f4a6b8c0d2e4f6a8b0c2d",
	"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",
	"dapi0123456789abcdef0123456789abcdef", "shpat_0123456789abcdef0123456789abcdef",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	"password=Zq8Xw2Lk9Pm4Rt7Yv1", "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
}

// Whatever the secret, wherever it sits and wherever the cut falls, no
// 8-character run of it survives redact-then-shorten.
func TestShortenLeavesNoFragment(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	words := strings.Fields("the deploy failed so we rotated it and tried again with the new one in the config")
	filler := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[r.Intn(len(words))] + " ")
		}
		return b.String()
	}
	for _, secret := range secretExamples {
		// The part of the secret a fragment would betray: for an
		// assignment, its value.
		value := secret
		if i := strings.IndexAny(secret, "="); i > 0 && i < 20 {
			value = secret[i+1:]
		}
		value = strings.Join(strings.Fields(value), " ")
		for trial := 0; trial < 300; trial++ {
			text := filler(r.Intn(400)) + secret + " " + filler(r.Intn(400))
			n := 8 + r.Intn(len(text))
			out, _ := Shorten(text, n)
			for i := 0; i+8 <= len(value); i++ {
				if frag := value[i : i+8]; strings.Contains(out, frag) {
					t.Fatalf("%q survived in %q (cut at %d)", frag, out, n)
				}
			}
		}
	}
}

// TestInvisibleCharactersSplitNoSecret: a zero-width or other invisible
// character put inside a secret does not hide it from the rules; an
// emoji sequence's joiner stays.
func TestInvisibleCharactersSplitNoSecret(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	inv := []rune(invisibles)
	for _, secret := range secretExamples {
		for trial := 0; trial < 50; trial++ {
			rs := []rune(secret)
			var b strings.Builder
			for i, c := range rs {
				b.WriteRune(c)
				if i > 0 && i < len(rs)-1 && r.Intn(6) == 0 {
					b.WriteRune(inv[r.Intn(len(inv))])
				}
			}
			in := "the value is " + b.String() + " ok"
			out, n := String(in)
			if n == 0 {
				t.Fatalf("%q: nothing redacted in %q", secret, in)
			}
			value := secret
			if i := strings.IndexAny(secret, "="); i > 0 && i < 20 {
				value = secret[i+1:]
			}
			clean := strings.Map(func(c rune) rune {
				if strings.ContainsRune(invisibles, c) {
					return -1
				}
				return c
			}, out)
			for i := 0; i+8 <= len(value); i++ {
				if frag := value[i : i+8]; !strings.ContainsAny(frag, " \n") && strings.Contains(clean, frag) {
					t.Fatalf("%q survived in %q", frag, out)
				}
			}
		}
	}
	family := "the family \U0001F468\u200d\U0001F469\u200d\U0001F467 and a soft\u00adhyphen"
	if out, _ := String(family); !strings.Contains(out, "\U0001F468\u200d\U0001F469") {
		t.Errorf("an emoji sequence lost its joiner: %q", out)
	}
}
