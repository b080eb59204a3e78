// Package secret finds credentials in the text of a memory, so that git-mem
// can refuse every write that would put one into git.
//
// # What it owns
//
// The package owns one decision: does this text hold a credential, and where.
// Scan returns the findings (kind and byte span) in order of position; a
// caller refuses the write when there is any, and may print Finding.String,
// which names the kind and offset but never repeats the secret. The package
// reads no files, keeps no state and needs no configuration: its rules are
// compiled once, when the package is initialised. The corpus that pins its
// behaviour lives in fixtures/secrets (secrets.txt: shapes that must be
// refused, with the expected kind, each token split by {+} so that no
// host's secret scanning takes the file for a leak; lookalikes.txt: harmless
// text that must not be). cmd's TestSecretCorpusOnEveryWritePath sends both
// through every way memory is written.
//
// # Rules
//
// Rules come in three tiers. Where findings of different tiers overlap, the
// earlier tier wins, so "GITHUB_TOKEN=ghp_…" is one "GitHub token", not also
// a "secret assignment".
//
//  1. Known formats, recognised by shape alone:
//     private key blocks (-----BEGIN … PRIVATE KEY----- for PKCS#8, RSA, EC,
//     OPENSSH, DSA, ENCRYPTED and PGP … PRIVATE KEY BLOCK, through the END
//     line when present; PuTTY key files; age secret keys), GCP
//     service-account JSON "private_key", AWS access key ids
//     (AKIA/ASIA/ABIA/ACCA/A3T + 16), Google API keys (AIza…) and OAuth
//     client secrets (GOCSPX-), Azure AccountKey=/SharedAccessKey= and SAS
//     sig=, GitHub (ghp_ gho_ ghu_ ghs_ ghr_ github_pat_), GitLab (glpat- and
//     the other gl…- prefixes), Slack (xox?- tokens, xapp-, hooks.slack.com
//     webhooks), Discord webhooks, Stripe (sk_/rk_ live and test, whsec_),
//     Anthropic (sk-ant-), OpenAI (sk-, sk-proj-, …; the body must mix upper
//     case, lower case and digits), npm (npm_), PyPI (pypi-AgE…), Twilio API
//     keys (SK + 32 hex), SendGrid (SG.x.y), Hugging Face (hf_), Shopify,
//     DigitalOcean, Databricks, Linear, Telegram bot tokens and JWTs
//     (eyJ….eyJ….sig); and (vendors.go) the further formats of gitleaks'
//     default rule set: Vault (hvs./hvb./hvr., and s. where Vault is
//     named), Mailgun (key-, webhook signing keys), Heroku (HRKU-, and a
//     UUID right after "heroku"), Slack refresh tokens, Doppler, Dropbox,
//     Dynatrace, EasyPost, Flutterwave, Frame.io, Grafana, Terraform Cloud,
//     New Relic, PlanetScale, Postman, Prefect, Pulumi, ReadMe, RubyGems,
//     Brevo, Sentry, Shippo, Square, Typeform, 1Password service accounts,
//     OpenShift, Mailchimp, Mapbox, Atlassian, Alibaba, Cloudflare origin
//     CA, Clojars, Duffel, Infracost, Azure AD client secrets, Google OAuth
//     access tokens, Facebook, Artifactory, Adobe, Notion, Airtable,
//     Netlify, Fly.io, Supabase, Groq, Replicate, Perplexity, xAI, Docker
//     Hub, Bitbucket, Contentful, Harness and Okta (where Okta is named).
//     A match whose body is a documentation stand-in
//     (contains "example", "your", "xxxxxx", "…", or uses fewer than eight
//     distinct characters, as in ghp_xxxx…) is not a finding.
//  2. Credentials in context: URLs and connection strings with a password in
//     their userinfo (postgres://u:p@h, mongodb+srv://, redis://:p@h,
//     https://u:p@h; reported as the whole scheme://…@host); Authorization
//     headers (Bearer/Basic/Token + value); curl -u user:pass; .netrc
//     "login u password p"; --password/--token/--secret/--api-key flags
//     followed by a value; "the password is <value>"; and key=value
//     assignments whose key ends in a secret word (password, passwd, pwd,
//     passphrase, pass, secret, token, credential, api key, access key,
//     secret key, private key, client secret, signing key, …) in any of the
//     usual shapes: KEY=v, export KEY=v, key: v, "key": "v", key := "v",
//     'key' => 'v', key = "v", ?token=v. Only the key's last word counts, so
//     DB_PASSWORD and apiKey are secret names, password_min_length,
//     max_tokens and SECRET_KEY_FILE are not. Reported as the value. In
//     prose (prose.go), a secret's name followed, after at most three filler
//     words (is, was, :, set to, …), by a value that passes the entropy rule
//     or is a hex key of 32 digits or more ("the AWS secret access key is
//     <value>", "api token <value>") is "secret after its name" (or "AWS
//     secret access key"); after a password's name, a literal of six bytes
//     or more that is not a plain word is too ("password Fak3!pw").
//  3. High-entropy values: any other key=value whose value looks random
//     (below). Reported as "high-entropy value".
//
// A value in tier 2 or 3 must be a literal. It is not when it is shorter than
// four bytes; a placeholder word (changeme, example, redacted, secret,
// password, test, none, true, string, …); contains a stand-in (<…>, ${…},
// {{…}}, xxxx, ****, ..., your, example, placeholder); starts with $, %, {,
// [, *, #, @ or ( ($SECRET, %VAR%, [REDACTED]); uses fewer than three
// distinct bytes; or, unquoted, is a reference rather than a value: an
// expression with brackets (os.Getenv("X")), a dotted name
// (settings.DB_PASSWORD, process.env.TOKEN), an environment variable name
// (DB_PASSWORD), a path (/run/secrets/db), or a secret-manager reference
// (vault:, env:, op://, …). An unquoted plain word followed by more words
// ("password: see the vault entry") is prose, not an assignment.
//
// # Entropy threshold
//
// A path of names with a lower-case hex segment of eight or more digits
// (FuzzParseSpec/4f1c2a9e, builds/0a1b2c3d/app) is a reference, never a
// high-entropy value.
//
// The entropy rule looks only at the value of a key=value pair, never at
// free text (where commit hashes and digests abound). The value must:
//
//   - be at least 20 bytes (minEntropyLen) of the base64/base64url alphabet
//     A-Z a-z 0-9 + / = _ - (so no paths with dots, URLs, versions, colours);
//   - have a Shannon entropy of at least 3.5 bits per byte (minEntropyBits):
//     random base62 strings of 20 bytes reach about 4.0 (first percentile
//     3.65), 32 bytes about 4.5; repetitive strings stay well below;
//   - use at least two of upper case, lower case and digits;
//   - not be made of words: at most 65% (maxWordShare) of its letters and
//     digits may lie in word-like runs (three or more letters, one a vowel).
//     Entropy alone cannot tell processIncomingWebhookEventsV2 (4.1 bits)
//     from a random key; identifiers score 75% or more, while random base62
//     values pass this and every other test of the rule in 98.6% of cases at
//     20 bytes, 99.4% at 32 and 99.8% at 40;
//   - not be hex with optional dashes (commit SHAs, UUIDs, digests: their
//     secrecy cannot be told from their shape, so a hex secret is caught only
//     under a secret-named key), start with sha1-/sha256-/sha384-/sha512-/md5-
//     (integrity hashes), sit under a digest-named key (h1, sha256, integrity,
//     checksum, digest, commit, fingerprint, …), or decode as base64 to
//     printable text.
//
// # Why a rule set of our own
//
// Libraries were considered first. gitleaks (detect package) has the widest
// rule set, but as a library it brings a large dependency tree (viper,
// zerolog, lipgloss, go-gitdiff, semgroup, a regex engine), builds its
// default configuration by parsing embedded TOML at start-up, reports line
// and column findings from a file-scanning pipeline, and its generic
// "generic-api-key" rule is tuned for source trees rather than sentences.
// trufflehog is a scanner application whose detectors verify credentials
// over the network; importing it would pull in hundreds of modules.
// DefangLabs/secret-detector (a Go port of Yelp's detect-secrets) is
// lighter, but misses formats we must catch (OpenAI, Anthropic, GitLab,
// Hugging Face, PyPI, GCP, connection strings), reports values without
// offsets, and stops at the first finding of a one-line input. None gave
// byte offsets with the false-positive behaviour needed on short agent-written
// prose, so the package is a small, offline rule set: regular expressions
// compiled at init, each gated by lower-cased keywords found in one pass over
// the text (a rule whose keyword is absent does not run), a hand-written
// linear key=value reader, and the entropy check above. No code was copied
// from those projects. BenchmarkScan measures a short and an 8 KiB text.
//
// # Fields that are not text
//
// A memory's paths and tags are scanned as given, before they are cleaned
// or lower-cased (gitstore), and URLWithPassword refuses in them any URL
// whose userinfo holds a password, whatever the password looks like: a
// path names a file and a tag is a label, so neither has a reason to carry
// one, and "postgres://app:postgres@db" is as much a leak there as a
// random password.
//
// # Limits
//
// The rules favour refusing: a PEM private-key header alone is a finding,
// and so is a literal password under a secret-named key even when it is a
// local default (postgres://postgres:postgres@localhost). A credential with
// no recognisable prefix written as bare prose ("the key is 8f3a…") is not
// found; neither are hex or base32 secrets under keys that do not name a
// secret.
//
// The rules are compiled on the first Scan rather than at program start, so
// commands that never scan (hooks, reads) do not pay for them.
package secret
