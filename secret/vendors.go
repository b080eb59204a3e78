package secret

// vendorRule is a known-format rule for a vendor token recognised by its
// prefix: the body must not be a documentation stand-in, and (mixed) must
// use at least two of upper case, lower case and digits, as random tokens
// do, so that a prefix followed by a word or a run of zeros is not a finding.
func vendorRule(kind string, keywords []string, expr string, mixed bool) rule {
	check := notPlaceholderToken
	if mixed {
		check = func(v string) bool { return notPlaceholderToken(v) && classes(v) >= 2 }
	}
	return rule{kind: kind, keywords: keywords, re: pattern(expr), boundary: true, check: check}
}

// newVendorRules compiles the vendor formats that followed the first rule
// set, after the formats of gitleaks' default configuration (read as a
// reference; the expressions here are our own): each is a literal prefix
// and a body of the length and alphabet the vendor issues.
func newVendorRules() []rule {
	return []rule{
		vendorRule("Vault token", []string{"hvs.", "hvb.", "hvr."}, `hv[sbr]\.[0-9A-Za-z_\-]{24,250}\b`, true),
		{
			// Vault's tokens before 1.10 are "s." and 24 characters: too short
			// a prefix to stand alone, so only where Vault is named.
			kind:     "Vault token",
			keywords: []string{"vault"},
			re:       pattern(`s\.[0-9A-Za-z]{24}\b`),
			boundary: true,
			check: func(v string) bool {
				return notPlaceholderToken(v) && hasDigit(v[2:]) && hasUpper(v[2:]) && hasLower(v[2:])
			},
		},
		vendorRule("Mailgun API key", []string{"key-"}, `key-[0-9a-f]{32}\b`, false),
		{
			kind:     "Mailgun webhook signing key",
			keywords: []string{"mailgun"},
			re:       pattern(`[0-9a-h]{32}-[0-9a-h]{8}-[0-9a-h]{8}\b`),
			boundary: true,
			check:    notPlaceholderToken,
		},
		vendorRule("Heroku API key", []string{"hrku-"}, `HRKU-AA[0-9A-Za-z_\-]{58}\b`, true),
		{
			// A classic Heroku API key is a UUID: a secret only where Heroku is
			// named just before it (HEROKU_API_KEY=…, heroku-<uuid>.netrc).
			kind:     "Heroku API key",
			keywords: []string{"heroku"},
			re:       pattern(`heroku[0-9a-z_ .:=\-'"/]{0,40}?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b`),
			onLower:  true,
			group:    1,
			check:    notPlaceholderToken,
		},
		vendorRule("Slack token", []string{"xoxe.xox"}, `xoxe\.xox[bp]-\d-[0-9A-Za-z]{100,}`, false),
		vendorRule("Doppler token", []string{"dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."}, `dp\.(?:pt|st|sa|ct|scim|audit)\.[0-9A-Za-z]{40,44}\b`, true),
		vendorRule("Dropbox token", []string{"sl."}, `sl\.[0-9A-Za-z_\-]{130,}`, true),
		vendorRule("Dynatrace token", []string{"dt0c01."}, `dt0c01\.[0-9A-Z]{24}\.[0-9A-Z]{64}\b`, false),
		vendorRule("EasyPost API key", []string{"ezak", "eztk"}, `EZ[AT]K[0-9A-Za-z]{54}\b`, true),
		vendorRule("Flutterwave secret key", []string{"flwseck"}, `FLWSECK(?:_TEST)?-[0-9a-h]{32}-X`, false),
		vendorRule("Frame.io token", []string{"fio-u-"}, `fio-u-[0-9A-Za-z_=\-]{64}\b`, true),
		vendorRule("Grafana token", []string{"glc_"}, `glc_[0-9A-Za-z+/]{32,400}={0,2}`, true),
		vendorRule("Grafana token", []string{"glsa_"}, `glsa_[0-9A-Za-z]{32}_[0-9A-Fa-f]{8}\b`, true),
		vendorRule("Terraform Cloud token", []string{".atlasv1."}, `[0-9a-z]{14}\.atlasv1\.[0-9a-z_=\-]{60,70}\b`, true),
		vendorRule("New Relic key", []string{"nrak-", "nrii-"}, `NR(?:AK|II)-[0-9A-Z]{27}\b`, true),
		vendorRule("PlanetScale token", []string{"pscale_"}, `pscale_(?:tkn|pw|oauth)_[0-9A-Za-z=_.\-]{32,64}\b`, true),
		vendorRule("Postman API key", []string{"pmak-"}, `PMAK-[0-9a-f]{24}-[0-9a-f]{34}\b`, false),
		vendorRule("Prefect API key", []string{"pnu_"}, `pnu_[0-9A-Za-z]{36}\b`, true),
		vendorRule("Pulumi token", []string{"pul-"}, `pul-[0-9a-f]{40}\b`, false),
		vendorRule("ReadMe API key", []string{"rdme_"}, `rdme_[0-9a-z]{70}\b`, true),
		vendorRule("RubyGems API key", []string{"rubygems_"}, `rubygems_[0-9a-f]{48}\b`, false),
		vendorRule("Brevo API key", []string{"xkeysib-", "xsmtpsib-"}, `x(?:keysib|smtpsib)-[0-9a-f]{64}-[0-9A-Za-z]{16}\b`, false),
		vendorRule("Sentry token", []string{"sntrys_"}, `sntrys_eyJ[0-9A-Za-z+/=_\-]{30,}`, true),
		vendorRule("Sentry token", []string{"sntryu_"}, `sntryu_[0-9a-f]{64}\b`, false),
		vendorRule("Shippo token", []string{"shippo_live_", "shippo_test_"}, `shippo_(?:live|test)_[0-9a-f]{40}\b`, false),
		vendorRule("Square token", []string{"sq0atp-", "sq0csp-"}, `sq0(?:atp-[0-9A-Za-z_\-]{22}|csp-[0-9A-Za-z_\-]{43})\b`, true),
		vendorRule("Square token", []string{"eaaa"}, `EAAA[0-9A-Za-z_\-]{60}\b`, true),
		vendorRule("Typeform token", []string{"tfp_"}, `tfp_[0-9A-Za-z_=.\-]{59}\b`, true),
		vendorRule("1Password service account token", []string{"ops_eyj"}, `ops_eyJ[0-9A-Za-z+/=_\-]{100,}`, true),
		vendorRule("OpenShift token", []string{"sha256~"}, `sha256~[0-9A-Za-z_\-]{43}\b`, true),
		vendorRule("Mailchimp API key", []string{"-us"}, `[0-9a-f]{32}-us\d{1,2}\b`, false),
		vendorRule("Mapbox secret token", []string{"sk.eyj"}, `sk\.eyJ[0-9A-Za-z_\-]{50,}\.[0-9A-Za-z_\-]{20,}`, true),
		vendorRule("Atlassian API token", []string{"atatt3"}, `ATATT3[0-9A-Za-z_=\-]{150,}`, true),
		vendorRule("Alibaba access key id", []string{"ltai"}, `LTAI[0-9A-Za-z]{20}\b`, true),
		vendorRule("Cloudflare origin CA key", []string{"v1.0-"}, `v1\.0-[0-9a-f]{24}-[0-9a-f]{146}\b`, false),
		vendorRule("Clojars token", []string{"clojars_"}, `CLOJARS_[0-9a-z]{60}\b`, true),
		vendorRule("Duffel token", []string{"duffel_test_", "duffel_live_"}, `duffel_(?:test|live)_[0-9A-Za-z_=\-]{43}\b`, true),
		vendorRule("Infracost API key", []string{"ico-"}, `ico-[0-9A-Za-z]{32}\b`, true),
		vendorRule("Azure AD client secret", []string{"q~"}, `[0-9A-Za-z_~.]{3}\dQ~[0-9A-Za-z_~.\-]{31,34}`, true),
		vendorRule("Google OAuth access token", []string{"ya29."}, `ya29\.[0-9A-Za-z_\-]{30,}`, true),
		vendorRule("Facebook access token", []string{"eaam", "eaac"}, `EAA[MC][0-9A-Za-z]{100,}`, true),
		vendorRule("Artifactory token", []string{"akcp"}, `AKCp[0-9A-Za-z]{69}\b`, true),
		vendorRule("Adobe client secret", []string{"p8e-"}, `p8e-[0-9A-Za-z]{32}\b`, true),
		vendorRule("Notion token", []string{"ntn_"}, `ntn_\d{11}[0-9A-Za-z]{35}\b`, true),
		vendorRule("Airtable token", []string{"pat"}, `pat[0-9A-Za-z]{14}\.[0-9a-f]{64}\b`, true),
		vendorRule("Netlify token", []string{"nfp_"}, `nfp_[0-9A-Za-z]{36}\b`, true),
		vendorRule("Fly.io token", []string{"fo1_", "fm2_"}, `f(?:o1|m2)_[0-9A-Za-z_+/=\-]{40,}`, true),
		vendorRule("Supabase token", []string{"sbp_"}, `sbp_[0-9a-f]{40}\b`, false),
		vendorRule("Groq API key", []string{"gsk_"}, `gsk_[0-9A-Za-z]{52}\b`, true),
		vendorRule("Replicate API token", []string{"r8_"}, `r8_[0-9A-Za-z]{37}\b`, true),
		vendorRule("Perplexity API key", []string{"pplx-"}, `pplx-[0-9A-Za-z]{48}\b`, true),
		vendorRule("xAI API key", []string{"xai-"}, `xai-[0-9A-Za-z]{80}\b`, true),
		vendorRule("Docker Hub token", []string{"dckr_pat_", "dckr_oat_"}, `dckr_(?:pat|oat)_[0-9A-Za-z_\-]{27,}`, true),
		vendorRule("Bitbucket app password", []string{"atbb"}, `ATBB[0-9A-Za-z_=.\-]{32}\b`, true),
		vendorRule("Contentful token", []string{"cfpat-"}, `CFPAT-[0-9A-Za-z_\-]{43}\b`, true),
		vendorRule("Harness token", []string{"pat."}, `pat\.[0-9A-Za-z_\-]{22}\.[0-9a-f]{24}\.[0-9A-Za-z]{20}\b`, true),
		{
			kind:     "Okta API token",
			keywords: []string{"okta"},
			re:       pattern(`00[0-9A-Za-z_\-]{40}\b`),
			boundary: true,
			check:    func(v string) bool { return notPlaceholderToken(v) && hasUpper(v) && hasLower(v) },
		},
	}
}
