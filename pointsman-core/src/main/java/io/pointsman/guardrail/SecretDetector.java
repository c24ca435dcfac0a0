package io.pointsman.guardrail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * Finds credentials in text: cloud provider keys, model provider keys, source-forge and chat
 * tokens, private key blocks, JWTs and high-entropy values assigned to credential-like names.
 *
 * <p>One {@link LiteralMatcher} pass finds every place a credential can start (a format's fixed
 * prefix, or a name such as {@code password}); a small parser then checks the format there,
 * including its checksum where the format has one. Rules:
 *
 * <ul>
 *   <li>{@code secret.aws_access_key}: {@code AKIA}/{@code ASIA}/{@code ABIA}/{@code ACCA} + 16
 *       upper-case letters or digits;
 *   <li>{@code secret.gcp_api_key}: {@code AIza} + 35 URL-safe characters;
 *   <li>{@code secret.azure_storage_key}: {@code AccountKey=} + 86 base64 characters + {@code ==};
 *   <li>{@code secret.azure_client_secret}: 3 characters, a digit, {@code Q~}, 31–34 characters;
 *   <li>{@code secret.aws_bedrock_key}: {@code ABSK} + 100–269 base64 characters;
 *   <li>{@code secret.openai_key}: {@code sk-}, optionally {@code proj-}/{@code svcacct-}/{@code
 *       admin-}, with the {@code T3BlbkFJ} marker, or the legacy 48 alphanumerics;
 *   <li>{@code secret.anthropic_key}: {@code sk-ant-<kind><nn>-} + 90–110 characters ending in
 *       {@code AA};
 *   <li>{@code secret.github_token}: {@code ghp_}/{@code gho_}/{@code ghu_}/{@code ghs_}/{@code
 *       ghr_} + 30 characters + a 6-character base62 CRC32 of those 30 (checked), or
 *       {@code github_pat_} + 22 + {@code _} + 59 characters;
 *   <li>{@code secret.gitlab_token}: {@code glpat-}, {@code gldt-}, {@code glrt-}, {@code
 *       glptt-}, {@code glcbt-}, {@code glft-} + 20–64 URL-safe characters;
 *   <li>{@code secret.slack_token}: {@code xox[abeprs]-} + numeric team/user ids + a secret part;
 *       {@code secret.slack_webhook}: {@code hooks.slack.com/services/T…/B…/…} and its
 *       {@code workflows/} and {@code triggers/} forms;
 *   <li>{@code secret.url_password}: the password of {@code scheme://user:password@host};
 *   <li>{@code secret.basic_auth}: {@code Authorization:} header credentials other than a bearer
 *       token, and the password of {@code -u user:password} / {@code --user user:password};
 *   <li>{@code secret.facebook_token}: {@code EAA} + 90–512 alphanumerics; {@code
 *       secret.onepassword_token}: {@code ops_eyJ} + 100 or more URL-safe characters;
 *   <li>{@code secret.llm_api_key} and {@code secret.service_token}: model-provider keys
 *       (OpenRouter, Groq, Perplexity, xAI, Replicate, LangSmith, Pinecone, Tavily) and
 *       developer-service tokens (PyPI, Docker Hub, DigitalOcean, Vault, Atlassian, Shopify,
 *       Postman, Linear, Sentry, Grafana, Databricks, Doppler, age, Sourcegraph, Notion, Heroku,
 *       Figma, Mapbox, SonarQube, Fly.io, Square, 42 Intra) by their fixed prefix and the
 *       characters, count and variety after it, and Mailchimp API keys by their {@code -us}
 *       data-centre suffix;
 *   <li>{@code secret.private_key}: a {@code -----BEGIN … PRIVATE KEY-----} block with at least
 *       64 base64 characters of body, through its {@code -----END …-----} line when present;
 *   <li>{@code secret.jwt}: three base64url segments whose header decodes to JSON naming
 *       {@code "alg"};
 *   <li>{@code secret.credential_assignment}: a name containing {@code password}, {@code secret},
 *       {@code token}, {@code api_key}… assigned ({@code =}, {@code :}, {@code =>}) a value of
 *       12–256 characters with letters and digits and at least {@value #MIN_ENTROPY} bits of
 *       Shannon entropy per character (or 3.0 for values under 16 characters), that is no
 *       reference, URL or placeholder.
 * </ul>
 *
 * <p>Immutable and thread-safe; linear in the text's length.
 */
public final class SecretDetector implements Detector {
  /** Minimum bits per character of a credential assignment's value of 16 characters or more. */
  public static final double MIN_ENTROPY = 3.3;

  /** Every rule this detector reports. */
  public static final Set<String> RULES = Set.of(
      "secret.aws_access_key", "secret.gcp_api_key", "secret.azure_storage_key",
      "secret.azure_client_secret", "secret.openai_key", "secret.anthropic_key",
      "secret.github_token", "secret.gitlab_token", "secret.slack_token", "secret.slack_webhook",
      "secret.private_key", "secret.jwt", "secret.credential_assignment",
      "secret.aws_secret_key", "secret.stripe_key", "secret.npm_token", "secret.google_oauth",
      "secret.azure_connection_string", "secret.azure_sas", "secret.huggingface_token",
      "secret.sendgrid_key", "secret.bearer_token", "secret.url_password", "secret.basic_auth",
      "secret.aws_bedrock_key", "secret.facebook_token", "secret.onepassword_token",
      "secret.llm_api_key", "secret.service_token");

  /** Rules that report a value by its context rather than its format; a format rule wins. */
  private static final Set<String> GENERIC = Set.of("secret.credential_assignment",
      "secret.bearer_token", "secret.url_password", "secret.basic_auth");

  private enum Kind {
    AWS, GCP, AZURE_STORAGE, AZURE_CLIENT, OPENAI, ANTHROPIC, GITHUB, GITHUB_PAT, GITLAB,
    SLACK, SLACK_WEBHOOK, PRIVATE_KEY, JWT, ASSIGNMENT, STRIPE, STRIPE_WEBHOOK, NPM,
    GOOGLE_OAUTH_SECRET, GOOGLE_OAUTH_TOKEN, AZURE_SAK, AZURE_SAS, HUGGINGFACE, SENDGRID,
    SLACK_APP, BEARER, KEY_WORD, URL, USER_FLAG, AUTHORIZATION, AWS_BEDROCK,
    FACEBOOK, ONEPASSWORD, MAILCHIMP, PREFIXED
  }

  /** A token known by its fixed prefix: the characters after it, their number, their variety. */
  private record Prefixed(String rule, Chars.CharTest body, int min, int max, int distinct) {}

  private static final Chars.CharTest HEX = c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  private static final Chars.CharTest ALNUM = Chars::isAsciiAlnum;
  private static final Chars.CharTest URLSAFE = Chars::isBase64Url;
  private static final String LLM = "secret.llm_api_key";
  private static final String SERVICE = "secret.service_token";

  /**
   * Model-provider and developer-service tokens with a fixed prefix, each as its provider
   * issues it: the prefix, then the characters, count and variety of its body.
   */
  private static final Map<String, Prefixed> PREFIXED = prefixedRules();

  private static Map<String, Prefixed> prefixedRules() {
    Map<String, Prefixed> m = new LinkedHashMap<>();
    m.put("sk-or-v1-", new Prefixed(LLM, HEX, 64, 64, 10));
    m.put("gsk_", new Prefixed(LLM, ALNUM, 52, 52, 12));
    m.put("pplx-", new Prefixed(LLM, ALNUM, 40, 64, 12));
    m.put("xai-", new Prefixed(LLM, ALNUM, 70, 90, 12));
    m.put("r8_", new Prefixed(LLM, ALNUM, 30, 40, 12));
    m.put("lsv2_pt_", new Prefixed(LLM, c -> HEX.test(c) || c == '_', 40, 50, 10));
    m.put("lsv2_sk_", new Prefixed(LLM, c -> HEX.test(c) || c == '_', 40, 50, 10));
    m.put("pcsk_", new Prefixed(LLM, c -> ALNUM.test(c) || c == '_', 50, 90, 12));
    m.put("tvly-", new Prefixed(LLM, c -> ALNUM.test(c) || c == '-', 30, 48, 12));
    m.put("pypi-AgEIcHlwaS5vcmc", new Prefixed(SERVICE, URLSAFE, 50, 300, 16));
    m.put("dckr_pat_", new Prefixed(SERVICE, URLSAFE, 20, 40, 12));
    for (String p : new String[] {"dop_v1_", "doo_v1_", "dor_v1_"}) {
      m.put(p, new Prefixed(SERVICE, HEX, 64, 64, 10));
    }
    m.put("hvs.", new Prefixed(SERVICE, URLSAFE, 24, 200, 12));
    m.put("hvb.", new Prefixed(SERVICE, URLSAFE, 100, 300, 16));
    m.put("ATATT3", new Prefixed(SERVICE, c -> URLSAFE.test(c) || c == '=', 150, 250, 16));
    for (String p : new String[] {"shpat_", "shpca_", "shppa_", "shpss_"}) {
      m.put(p, new Prefixed(SERVICE, HEX, 32, 32, 10));
    }
    m.put("PMAK-", new Prefixed(SERVICE, c -> HEX.test(c) || c == '-', 59, 59, 10));
    m.put("lin_api_", new Prefixed(SERVICE, ALNUM, 40, 40, 12));
    m.put("sntrys_", new Prefixed(SERVICE, c -> URLSAFE.test(c) || c == '=', 100, 400, 16));
    m.put("sntryu_", new Prefixed(SERVICE, HEX, 64, 64, 10));
    m.put("glsa_", new Prefixed(SERVICE, c -> ALNUM.test(c) || c == '_', 41, 41, 12));
    m.put("glc_", new Prefixed(SERVICE, c -> URLSAFE.test(c) || c == '=', 32, 400, 12));
    m.put("dapi", new Prefixed(SERVICE, HEX, 32, 32, 10));
    for (String p : new String[] {"dp.pt.", "dp.st.", "dp.sa.", "dp.ct."}) {
      m.put(p, new Prefixed(SERVICE, ALNUM, 40, 44, 12));
    }
    m.put("AGE-SECRET-KEY-1", new Prefixed(SERVICE,
        c -> "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".indexOf(c) >= 0, 58, 58, 12));
    Chars.CharTest anyHex = c -> HEX.test(c) || (c >= 'A' && c <= 'F');
    m.put("sgp_", new Prefixed(SERVICE, c -> anyHex.test(c) || c == '_', 40, 57, 10));
    m.put("sgp_local_", new Prefixed(SERVICE, anyHex, 40, 40, 10));
    m.put("ntn_", new Prefixed(SERVICE, ALNUM, 40, 50, 12));
    m.put("HRKU-", new Prefixed(SERVICE, URLSAFE, 30, 70, 12));
    m.put("figd_", new Prefixed(SERVICE, URLSAFE, 38, 45, 12));
    m.put("sk.eyJ", new Prefixed(SERVICE, c -> URLSAFE.test(c) || c == '.', 60, 300, 16));
    // SonarQube user, project and analysis tokens.
    for (String p : new String[] {"squ_", "sqp_", "sqa_"}) {
      m.put(p, new Prefixed(SERVICE, ALNUM, 40, 40, 10));
    }
    // Fly.io: an access token, and the macaroons of FlyV1 tokens (standard base64).
    m.put("fo1_", new Prefixed(SERVICE, URLSAFE, 43, 43, 12));
    for (String p : new String[] {"fm1r_", "fm1a_", "fm2_"}) {
      m.put(p, new Prefixed(SERVICE, c -> Chars.isBase64(c) || c == '=', 100, 4000, 16));
    }
    // Square access tokens and OAuth secrets.
    m.put("sq0atp-", new Prefixed(SERVICE, URLSAFE, 22, 22, 10));
    m.put("sq0csp-", new Prefixed(SERVICE, URLSAFE, 43, 43, 12));
    // 42 Intra API secrets.
    for (String p : new String[] {"s-s4t2ud-", "s-s4t2af-"}) {
      m.put(p, new Prefixed(SERVICE, HEX, 64, 64, 10));
    }
    return Collections.unmodifiableMap(m);
  }

  private static final String BASE62 =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  private static final String[] PLACEHOLDERS = {
    "example", "changeme", "change_me", "placeholder", "your", "xxxx", "****", "....", "redacted",
    "dummy", "sample", "<", ">", "${", "{{", "%(", "://", "password", "secret", "token"
  };
  private static final String[] NAME_SUFFIXES_NOT_SECRET = {
    "url", "uri", "path", "file", "type", "name", "endpoint", "length", "count", "expir", "ttl",
    "header", "limit", "size", "id", "_in", "ize", "prefix", "field", "param", "store"
  };
  /** Name parts that say the value is meant to be seen: public keys and tokens, CSRF tokens. */
  private static final String[] NAME_PARTS_NOT_SECRET = {"public", "csrf", "xsrf"};
  private static final SecretDetector DEFAULT = new SecretDetector();

  private final LiteralMatcher triggers;
  private final Kind[] kinds;
  /** For a {@link Kind#PREFIXED} literal, its rule; indexed like {@link #kinds}. */
  private final Prefixed[] prefixed;

  private SecretDetector() {
    Triggers r = new Triggers();
    r.exact(Kind.AWS, "AKIA", "ASIA", "ABIA", "ACCA");
    r.exact(Kind.GCP, "AIza");
    r.exact(Kind.AZURE_STORAGE, "AccountKey=");
    for (char d = '0'; d <= '9'; d++) {
      r.exact(Kind.AZURE_CLIENT, d + "Q~");
    }
    r.exact(Kind.OPENAI, "sk-");
    r.exact(Kind.ANTHROPIC, "sk-ant-");
    r.exact(Kind.GITHUB, "ghp_", "gho_", "ghu_", "ghs_", "ghr_");
    r.exact(Kind.GITHUB_PAT, "github_pat_");
    r.exact(Kind.GITLAB, "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-");
    r.exact(Kind.SLACK, "xoxa-", "xoxb-", "xoxe-", "xoxp-", "xoxr-", "xoxs-");
    r.exact(Kind.SLACK_WEBHOOK, "hooks.slack.com/services/", "hooks.slack.com/workflows/",
        "hooks.slack.com/triggers/");
    r.exact(Kind.PRIVATE_KEY, "-----BEGIN ");
    r.exact(Kind.JWT, "eyJ");
    r.exact(Kind.STRIPE, "sk_live_", "rk_live_", "sk_test_", "rk_test_", "sk_prod_",
        "rk_prod_");
    r.exact(Kind.STRIPE_WEBHOOK, "whsec_");
    r.exact(Kind.NPM, "npm_");
    r.exact(Kind.GOOGLE_OAUTH_SECRET, "GOCSPX-");
    r.exact(Kind.GOOGLE_OAUTH_TOKEN, "ya29.");
    r.anyCase(Kind.AZURE_SAK, "SharedAccessKey=");
    r.exact(Kind.AZURE_SAS, "sig=");
    r.exact(Kind.HUGGINGFACE, "hf_");
    r.exact(Kind.SENDGRID, "SG.");
    r.exact(Kind.SLACK_APP, "xapp-");
    r.anyCase(Kind.BEARER, "bearer");
    r.exact(Kind.URL, "://");
    r.exact(Kind.USER_FLAG, "-u ", "-u'", "-u\"", "--user ", "--user=");
    r.anyCase(Kind.AUTHORIZATION, "authorization:");
    r.exact(Kind.HUGGINGFACE, "api_org_");
    r.exact(Kind.AWS_BEDROCK, "ABSK");
    r.exact(Kind.FACEBOOK, "EAA");
    r.exact(Kind.ONEPASSWORD, "ops_eyJ");
    r.exact(Kind.MAILCHIMP, "-us");
    PREFIXED.forEach(r::prefixed);
    r.anyCase(Kind.KEY_WORD, "key");
    r.anyCase(Kind.ASSIGNMENT, "password", "passwd", "pwd", "secret", "token", "apikey",
        "api_key", "api-key", "access_key", "accesskey", "credential", "private_key");
    this.triggers = r.builder.build();
    this.kinds = r.kinds.toArray(new Kind[0]);
    this.prefixed = r.prefixed.toArray(new Prefixed[0]);
  }

  /** The trigger literals as they are registered: each with its kind, and its table rule. */
  private static final class Triggers {
    final LiteralMatcher.Builder builder = LiteralMatcher.builder().caseInsensitive(true);
    final List<Kind> kinds = new ArrayList<>();
    final List<Prefixed> prefixed = new ArrayList<>();

    /** Literals matched as written. */
    void exact(Kind kind, String... literals) {
      for (String l : literals) {
        builder.addExact(l);
        kinds.add(kind);
        prefixed.add(null);
      }
    }

    /** Literals matched in any case. */
    void anyCase(Kind kind, String... literals) {
      for (String l : literals) {
        builder.add(l);
        kinds.add(kind);
        prefixed.add(null);
      }
    }

    /** A literal of the prefix table, matched as written. */
    void prefixed(String literal, Prefixed rule) {
      builder.addExact(literal);
      kinds.add(Kind.PREFIXED);
      prefixed.add(rule);
    }
  }

  /**
   * Returns the detector with every rule enabled.
   *
   * @return the shared instance
   */
  public static SecretDetector ofDefaults() {
    return DEFAULT;
  }

  @Override
  public String family() {
    return "secret";
  }

  /** The matcher of the places a credential can start. */
  LiteralMatcher triggers() {
    return triggers;
  }

  @Override
  public void scan(CharSequence text, List<Finding> out) {
    Objects.requireNonNull(out, "out");
    scan(ScanText.of(text), out);
  }

  /** {@link #scan(CharSequence, List)} over a text the chain copied once for its detectors. */
  void scan(ScanText scanned, List<Finding> out) {
    CharSequence text = scanned.text;
    // Where the last private key body and the last credential name ended: a trigger inside
    // either would re-read the same characters, so skipping it keeps the scan linear.
    int consumedKey = 0;
    int consumedName = 0;
    int first = out.size();
    LiteralMatcher.Matches matches = scanned.matches(triggers);
    for (int m = 0; m < matches.size(); m++) {
      Kind kind = kinds[matches.literal(m)];
      int start = matches.start(m);
      int end = matches.end(m);
      if (kind == Kind.PRIVATE_KEY) {
        if (start >= consumedKey) {
          consumedKey = privateKey(text, start, end, out);
        }
      } else if (kind == Kind.ASSIGNMENT || kind == Kind.KEY_WORD) {
        if (start >= consumedName) {
          consumedName = assignment(text, start, end, kind == Kind.KEY_WORD, out);
        }
      } else if (kind == Kind.PREFIXED) {
        prefixedToken(prefixed[matches.literal(m)], text, start, end, out);
      } else {
        check(kind, text, start, end, out);
      }
    }
    awsSecretKeys(scanned.chars, scanned.length, text, out);
    dropGenericOverlaps(out, first);
  }

  /**
   * A token of the prefix table: its body as the table says, with a letter and a digit (a random
   * body of that length has both; a snake_case name after a prefix-like word has no digit).
   */
  private static void prefixedToken(Prefixed p, CharSequence t, int start, int end,
      List<Finding> out) {
    int e = prefixedEnd(t, start, end, p.body(), p.min(), p.max(), p.distinct());
    if (e >= 0 && hasDigit(t, end, e) && hasLetter(t, end, e)) {
      out.add(new Finding(p.rule(), start, e));
    }
  }

  /** A value found both by its format and as a credential assignment keeps the specific rule. */
  private static void dropGenericOverlaps(List<Finding> out, int first) {
    for (int i = out.size() - 1; i >= first; i--) {
      Finding f = out.get(i);
      if (!GENERIC.contains(f.rule())) {
        continue;
      }
      for (int j = first; j < out.size(); j++) {
        Finding g = out.get(j);
        if (j != i && !GENERIC.contains(g.rule()) && g.start() < f.end()
            && f.start() < g.end()) {
          out.remove(i);
          break;
        }
      }
    }
  }

  private static void check(Kind kind, CharSequence t, int start, int end, List<Finding> out) {
    switch (kind) {
      case AWS -> {
        if (!Chars.isAsciiAlnum(Chars.at(t, start - 1))) {
          int e = Chars.run(t, end, Chars::isUpperOrDigit, 17);
          // AWS's documentation keys end in EXAMPLE (AKIAIOSFODNN7EXAMPLE).
          if (e - end == 16 && !Chars.isAsciiAlnum(Chars.at(t, e))
              && Chars.distinct(t, end, e) >= 6 && !Chars.regionEquals(t, e - 7, "EXAMPLE")) {
            out.add(new Finding("secret.aws_access_key", start, e));
          }
        }
      }
      case GCP -> {
        if (!Chars.isBase64Url(Chars.at(t, start - 1))) {
          int e = Chars.run(t, end, Chars::isBase64Url, 36);
          if (e - end == 35 && Chars.distinct(t, end, e) >= 10) {
            out.add(new Finding("secret.gcp_api_key", start, e));
          }
        }
      }
      case AZURE_STORAGE -> {
        int e = Chars.run(t, end, Chars::isBase64, 87);
        if (e - end == 86 && Chars.regionEquals(t, e, "==") && Chars.distinct(t, end, e) >= 16) {
          out.add(new Finding("secret.azure_storage_key", end, e + 2));
        }
      }
      case AZURE_CLIENT -> azureClientSecret(t, start, end, out);
      case OPENAI -> openAi(t, start, end, out);
      case ANTHROPIC -> anthropic(t, start, end, out);
      case GITHUB -> {
        if (!Chars.isBase64Url(Chars.at(t, start - 1))) {
          int e = Chars.run(t, end, Chars::isAsciiAlnum, 37);
          if (e - end == 36 && Chars.at(t, e) != '_' && githubChecksumValid(t, end)) {
            out.add(new Finding("secret.github_token", start, e));
          }
        }
      }
      case GITHUB_PAT -> {
        int a = Chars.run(t, end, Chars::isAsciiAlnum, 23);
        if (a - end == 22 && Chars.at(t, a) == '_') {
          int e = Chars.run(t, a + 1, Chars::isAsciiAlnum, 60);
          if (e - a - 1 == 59 && Chars.at(t, e) != '_' && Chars.distinct(t, a + 1, e) >= 10) {
            out.add(new Finding("secret.github_token", start, e));
          }
        }
      }
      case GITLAB -> {
        if (!Chars.isAsciiAlnum(Chars.at(t, start - 1))) {
          int e = Chars.run(t, end, Chars::isBase64Url, 65);
          int n = e - end;
          // Tokens are random over [0-9A-Za-z_-]; one in about 70 has no digit, so mixed case
          // counts as much as a digit does (a lower-case word run is still not a token).
          if (n >= 20 && n <= 64 && Chars.distinct(t, end, e) >= 10
              && (hasDigit(t, end, e) || mixedCase(t, end, e))) {
            out.add(new Finding("secret.gitlab_token", start, e));
          }
        }
      }
      case SLACK -> slack(t, start, end, out);
      case SLACK_WEBHOOK -> slackWebhook(t, start, end, out);
      case JWT -> jwt(t, start, out);
      case STRIPE -> prefixed(t, start, end, "secret.stripe_key", Chars::isAsciiAlnum, 24, 247,
          12, out);
      case STRIPE_WEBHOOK -> prefixed(t, start, end, "secret.stripe_key", Chars::isAsciiAlnum,
          32, 64, 12, out);
      case NPM -> prefixed(t, start, end, "secret.npm_token", Chars::isAsciiAlnum, 36, 36, 12,
          out);
      case GOOGLE_OAUTH_SECRET -> prefixed(t, start, end, "secret.google_oauth",
          Chars::isBase64Url, 28, 28, 10, out);
      case GOOGLE_OAUTH_TOKEN -> prefixed(t, start, end, "secret.google_oauth",
          c -> Chars.isBase64Url(c) || c == '.', 40, 2048, 15, out);
      case HUGGINGFACE -> prefixed(t, start, end, "secret.huggingface_token",
          c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'), 34, 34, 12, out);
      case SLACK_APP -> prefixed(t, start, end, "secret.slack_token",
          c -> Chars.isAsciiAlnum(c) || c == '-', 40, 200, 12, out);
      case SENDGRID -> sendgrid(t, start, end, out);
      case MAILCHIMP -> mailchimp(t, start, end, out);
      case AZURE_SAK -> {
        int e = Chars.run(t, end, Chars::isBase64, 100);
        int n = e - end;
        if (n >= 40 && n < 100 && Chars.distinct(t, end, e) >= 16) {
          int pad = Chars.run(t, e, c -> c == '=', 2);
          out.add(new Finding("secret.azure_connection_string", end, pad));
        }
      }
      case AZURE_SAS -> {
        if (!Chars.isAsciiAlnum(Chars.at(t, start - 1))) {
          int e = Chars.run(t, end, c -> Chars.isBase64(c) || c == '%' || c == '=', 200);
          int n = e - end;
          if (n >= 40 && n < 200 && Chars.distinct(t, end, e) >= 16 && hasDigit(t, end, e)) {
            out.add(new Finding("secret.azure_sas", end, e));
          }
        }
      }
      case BEARER -> bearer(t, start, end, out);
      case URL -> urlPassword(t, start, end, out);
      case USER_FLAG -> userFlag(t, start, end, out);
      case AUTHORIZATION -> authorization(t, start, end, out);
      case AWS_BEDROCK -> {
        if (!Chars.isBase64(Chars.at(t, start - 1))) {
          int e = Chars.run(t, end, Chars::isBase64, 270);
          int n = e - end;
          if (n >= 100 && n <= 269 && Chars.distinct(t, end, e) >= 16) {
            out.add(new Finding("secret.aws_bedrock_key", start,
                Chars.run(t, e, c -> c == '=', 2)));
          }
        }
      }
      case FACEBOOK -> {
        if (!Chars.isBase64(Chars.at(t, start - 1))) {
          int e = Chars.run(t, end, Chars::isAsciiAlnum, 513);
          int n = e - end;
          if (n >= 90 && n <= 512 && !Chars.isBase64(Chars.at(t, e))
              && Chars.distinct(t, end, e) >= 20) {
            out.add(new Finding("secret.facebook_token", start, e));
          }
        }
      }
      case ONEPASSWORD -> {
        if (!Chars.isAsciiAlnum(Chars.at(t, start - 1))) {
          int e = Chars.run(t, end, Chars::isBase64Url, 4097);
          if (e - end >= 100 && e - end <= 4096 && Chars.distinct(t, end, e) >= 16) {
            out.add(new Finding("secret.onepassword_token", start, e));
          }
        }
      }
      default -> throw new AssertionError(kind);
    }
  }

  /**
   * A fixed prefix (not inside a longer word) followed by {@code min}–{@code max} characters
   * that pass the test, of which at least {@code distinct} differ.
   */
  private static void prefixed(CharSequence t, int start, int end, String rule,
      Chars.CharTest body, int min, int max, int distinct, List<Finding> out) {
    int e = prefixedEnd(t, start, end, body, min, max, distinct);
    if (e >= 0) {
      out.add(new Finding(rule, start, e));
    }
  }

  /**
   * Where a prefixed token's body ends: after the prefix at {@code [start, end)}, not glued to a
   * word in front, {@code min} to {@code max} body characters with at least {@code distinct}
   * different ones; -1 when there is none.
   */
  private static int prefixedEnd(CharSequence t, int start, int end, Chars.CharTest body,
      int min, int max, int distinct) {
    if (Chars.isAsciiAlnum(Chars.at(t, start - 1))) {
      return -1;
    }
    int e = Chars.run(t, end, body, max + 1);
    int n = e - end;
    return n >= min && n <= max && Chars.distinct(t, end, e) >= distinct ? e : -1;
  }

  /**
   * A Mailchimp API key: 32 lowercase hex digits, then {@code -us} and the one or two digits of
   * its data centre ({@code -us18}); the trigger is the {@code -us}, so the key is read backwards
   * from it.
   */
  private static void mailchimp(CharSequence t, int start, int end, List<Finding> out) {
    int from = start - 32;
    if (from < 0 || Chars.isAsciiAlnum(Chars.at(t, from - 1))
        || Chars.run(t, from, HEX, 32) != start || Chars.distinct(t, from, start) < 10) {
      return;
    }
    int e = Chars.run(t, end, Chars::isDigit, 3);
    if (e - end >= 1 && e - end <= 2 && !Chars.isAsciiAlnum(Chars.at(t, e))) {
      out.add(new Finding(SERVICE, from, e));
    }
  }

  private static void sendgrid(CharSequence t, int start, int end, List<Finding> out) {
    if (Chars.isAsciiAlnum(Chars.at(t, start - 1))) {
      return;
    }
    int a = Chars.run(t, end, Chars::isBase64Url, 23);
    if (a - end != 22 || Chars.at(t, a) != '.') {
      return;
    }
    int e = Chars.run(t, a + 1, Chars::isBase64Url, 44);
    if (e - a - 1 == 43 && Chars.distinct(t, a + 1, e) >= 15) {
      out.add(new Finding("secret.sendgrid_key", start, e));
    }
  }

  private static boolean isTokenChar(char c) {
    return Chars.isBase64Url(c) || c == '.' || c == '~' || c == '+' || c == '/' || c == '=';
  }

  /** {@code Bearer <token>}: 20+ token characters, letters and digits, high entropy. */
  private static void bearer(CharSequence t, int start, int end, List<Finding> out) {
    if (Chars.isAsciiAlnum(Chars.at(t, start - 1)) || Chars.at(t, end) != ' ') {
      return;
    }
    int s = Chars.run(t, end, c -> c == ' ', 3);
    int e = Chars.run(t, s, SecretDetector::isTokenChar, 4097);
    int n = e - s;
    if (n < 20 || n > 4096 || !hasDigit(t, s, e) || !hasLetter(t, s, e)
        || Chars.entropy(t, s, e) < 3.5 || isPlaceholder(t, s, e)) {
      return;
    }
    out.add(new Finding("secret.bearer_token", s, e));
  }

  private static boolean hasLetter(CharSequence t, int start, int end) {
    for (int i = start; i < end; i++) {
      char c = t.charAt(i);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        return true;
      }
    }
    return false;
  }

  private static boolean mixedCase(CharSequence t, int start, int end) {
    boolean upper = false;
    boolean lower = false;
    for (int i = start; i < end; i++) {
      char c = t.charAt(i);
      upper |= c >= 'A' && c <= 'Z';
      lower |= c >= 'a' && c <= 'z';
    }
    return upper && lower;
  }

  private static boolean isPlaceholder(CharSequence t, int start, int end) {
    for (String placeholder : PLACEHOLDERS) {
      if (Chars.containsIgnoreCase(t, start, end, placeholder)) {
        return true;
      }
    }
    return false;
  }

  private static final boolean[] SECRET_KEY_CHAR = new boolean[0x80];

  static {
    for (char c = 0; c < 0x80; c++) {
      SECRET_KEY_CHAR[c] = Chars.isAsciiAlnum(c) || c == '+' || c == '/';
    }
  }

  private static boolean isSecretKeyChar(char c) {
    return c < 0x80 && SECRET_KEY_CHAR[c];
  }

  /**
   * Bare AWS secret access keys: a run of exactly 40 base64 characters (no padding, not part of
   * a longer token or of a wrapped base64 block) with upper- and lower-case letters and digits,
   * at most four {@code +}/{@code /}, and at least 22 distinct characters. Git SHAs (hex) and
   * base64 data (padded, longer, or wrapped into lines) do not qualify.
   *
   * <p>Only runs of exactly 40 are classified, and every run of 40 or more covers one of the
   * positions 39, 79, 119, …: the scan reads those, and around them only where one is a base64
   * character, so that it reads a small part of a text.
   */
  private static void awsSecretKeys(char[] t, int n, CharSequence text, List<Finding> out) {
    int checkpoint = 39;
    while (checkpoint < n) {
      if (!isSecretKeyChar(t[checkpoint])) {
        checkpoint += 40;
        continue;
      }
      int s = checkpoint;
      while (s > 0 && isSecretKeyChar(t[s - 1])) {
        s--;
      }
      int i = checkpoint + 1;
      while (i < n && isSecretKeyChar(t[i])) {
        i++;
      }
      // The next checkpoint after this run: no run is read twice.
      checkpoint += (i - checkpoint + 39) / 40 * 40;
      if (i - s == 40) {
        awsSecretKey(t, s, text, out);
      }
    }
  }

  /** Classifies the run of exactly 40 secret key characters at {@code s}. */
  private static void awsSecretKey(char[] chars, int s, CharSequence t, List<Finding> out) {
    int upper = 0;
    int lower = 0;
    int digit = 0;
    int symbol = 0;
    int i;
    for (i = s; i < s + 40; i++) {
      char c = chars[i];
      if (c >= 'A' && c <= 'Z') {
        upper++;
      } else if (c >= 'a' && c <= 'z') {
        lower++;
      } else if (c >= '0' && c <= '9') {
        digit++;
      } else {
        symbol++;
      }
    }
    if (upper == 0 || lower == 0 || digit == 0 || symbol > 4) {
      return;
    }
    char before = Chars.at(t, s - 1);
    char after = Chars.at(t, i);
    if (before == '-' || before == '_' || before == '.' || before == '%' || after == '='
        || after == '-' || after == '_' || after == '.' && Chars.isAsciiAlnum(Chars.at(t, i + 1))
        || before == '\n' && isSecretKeyChar(Chars.at(t, s - 2))
        || after == '\n' && isSecretKeyChar(Chars.at(t, i + 1))
        || Chars.distinct(t, s, i) < 22 || Chars.containsIgnoreCase(t, s, i, "example")) {
      return;
    }
    out.add(new Finding("secret.aws_secret_key", s, i));
  }

  private static boolean hasDigit(CharSequence t, int start, int end) {
    for (int i = start; i < end; i++) {
      if (Chars.isDigit(t.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  private static boolean isAzureSecretChar(char c) {
    return Chars.isAsciiAlnum(c) || c == '_' || c == '~' || c == '.' || c == '-';
  }

  private static void azureClientSecret(CharSequence t, int start, int end, List<Finding> out) {
    int s = start - 3;
    if (s < 0 || isAzureSecretChar(Chars.at(t, s - 1))) {
      return;
    }
    for (int i = s; i < start; i++) {
      if (!isAzureSecretChar(t.charAt(i))) {
        return;
      }
    }
    int e = Chars.run(t, end, SecretDetector::isAzureSecretChar, 35);
    int n = e - end;
    if (n >= 31 && n <= 34 && Chars.distinct(t, end, e) >= 12) {
      out.add(new Finding("secret.azure_client_secret", s, e));
    }
  }

  private static void openAi(CharSequence t, int start, int end, List<Finding> out) {
    if (Chars.isBase64Url(Chars.at(t, start - 1)) || Chars.regionEquals(t, end, "ant-")) {
      return;
    }
    int e = Chars.run(t, end, Chars::isBase64Url, 300);
    int n = e - end;
    if (n < 40 || n >= 300) {
      return;
    }
    boolean marked = false;
    for (int i = end; i + 8 <= e; i++) {
      if (Chars.regionEquals(t, i, "T3BlbkFJ")) {
        marked = true;
        break;
      }
    }
    boolean legacy = n == 48 && Chars.run(t, end, Chars::isAsciiAlnum, 48) == e
        && Chars.distinct(t, end, e) >= 15;
    if (marked || legacy) {
      out.add(new Finding("secret.openai_key", start, e));
    }
  }

  private static void anthropic(CharSequence t, int start, int end, List<Finding> out) {
    if (Chars.isBase64Url(Chars.at(t, start - 1))) {
      return;
    }
    int kind = Chars.run(t, end, c -> c >= 'a' && c <= 'z', 12);
    int digits = Chars.run(t, kind, Chars::isDigit, 3);
    if (kind == end || digits - kind != 2 || Chars.at(t, digits) != '-') {
      return;
    }
    int e = Chars.run(t, digits + 1, Chars::isBase64Url, 111);
    int n = e - digits - 1;
    if (n >= 90 && n <= 110 && Chars.regionEquals(t, e - 2, "AA")) {
      out.add(new Finding("secret.anthropic_key", start, e));
    }
  }

  /** Whether the last 6 of 36 characters at {@code at} are the base62 CRC32 of the first 30. */
  static boolean githubChecksumValid(CharSequence t, int at) {
    CRC32 crc = new CRC32();
    byte[] body = new byte[30];
    for (int i = 0; i < 30; i++) {
      body[i] = (byte) t.charAt(at + i);
    }
    crc.update(body);
    return Chars.regionEquals(t, at + 30, base62(crc.getValue(), 6));
  }

  static String base62(long value, int width) {
    char[] digits = new char[width];
    long v = value;
    for (int i = width - 1; i >= 0; i--) {
      digits[i] = BASE62.charAt((int) (v % 62));
      v /= 62;
    }
    return new String(digits);
  }

  private static void slack(CharSequence t, int start, int end, List<Finding> out) {
    if (Chars.isAsciiAlnum(Chars.at(t, start - 1))) {
      return;
    }
    int e = Chars.run(t, end, c -> Chars.isAsciiAlnum(c) || c == '-', 200);
    // Segments: numeric ids first, then a secret part of letters and digits.
    int numeric = 0;
    int segStart = end;
    int lastLen = 0;
    int lastDistinct = 0;
    for (int i = end; i <= e; i++) {
      if (i == e || t.charAt(i) == '-') {
        int len = i - segStart;
        if (len == 0) {
          return;
        }
        if (Chars.run(t, segStart, Chars::isDigit, len) == i && len >= 8) {
          numeric++;
        }
        lastLen = len;
        lastDistinct = Chars.distinct(t, segStart, i);
        segStart = i + 1;
      }
    }
    // Current tokens carry two or three numeric ids and a 24- to 32-character secret; older
    // ones one id and a shorter secret.
    if (numeric >= 2 && lastLen >= 16 && lastDistinct >= 10
        || numeric >= 1 && lastLen >= 18 && lastDistinct >= 12) {
      out.add(new Finding("secret.slack_token", start, e));
    }
  }

  /**
   * A Slack incoming webhook, workflow or trigger URL: after the prefix a team id ({@code T} and
   * 6 or more upper-case letters or digits), a bot or app id ({@code B} or {@code A}, the same),
   * any numeric ids, then a secret of 20 to 64 letters and digits. Anyone holding the URL can
   * post.
   */
  private static void slackWebhook(CharSequence t, int start, int end, List<Finding> out) {
    if (Chars.at(t, end) != 'T') {
      return;
    }
    int a = Chars.run(t, end + 1, Chars::isUpperOrDigit, 16);
    char id = Chars.at(t, a + 1);
    if (a - end - 1 < 6 || Chars.at(t, a) != '/' || id != 'B' && id != 'A') {
      return;
    }
    int b = Chars.run(t, a + 2, Chars::isUpperOrDigit, 16);
    if (b - a - 2 < 6 || Chars.at(t, b) != '/') {
      return;
    }
    int i = b + 1;
    for (int k = 0; k < 2; k++) {
      int d = Chars.run(t, i, Chars::isDigit, 24);
      if (d - i >= 6 && Chars.at(t, d) == '/') {
        i = d + 1;
      }
    }
    int e = Chars.run(t, i, Chars::isAsciiAlnum, 65);
    if (e - i >= 20 && e - i <= 64 && Chars.distinct(t, i, e) >= 10) {
      out.add(new Finding("secret.slack_webhook", start, e));
    }
  }

  /**
   * A password in a URL's user information ({@code scheme://user:password@host}): the part
   * after the first colon of what comes before the authority's last {@code @}, 3 to 256
   * characters, no placeholder or variable reference.
   */
  private static void urlPassword(CharSequence t, int start, int end, List<Finding> out) {
    int limit = Math.min(t.length(), end + 512);
    int authorityEnd = end;
    int at = -1;
    while (authorityEnd < limit) {
      char c = t.charAt(authorityEnd);
      if (Character.isWhitespace(c) || c == '/' || c == '?' || c == '#' || c == '"'
          || c == '\'' || c == '`' || c == '<' || c == '>') {
        break;
      }
      if (c == '@') {
        at = authorityEnd;
      }
      authorityEnd++;
    }
    if (at < 0 || !Chars.isAsciiAlnum(Chars.at(t, at + 1))) {
      return;
    }
    int colon = indexOf(t, ':', end, at);
    if (colon >= 0) {
      reportPassword(t, colon + 1, at, "secret.url_password", out);
    }
  }

  /** The first index of {@code c} in {@code [from, to)}, or -1. */
  private static int indexOf(CharSequence t, char c, int from, int to) {
    for (int i = from; i < to; i++) {
      if (t.charAt(i) == c) {
        return i;
      }
    }
    return -1;
  }

  private static void reportPassword(CharSequence t, int s, int e, String rule,
      List<Finding> out) {
    int n = e - s;
    if (n < 3 || n > 256 || isReference(t, s, e) || isPlaceholder(t, s, e)) {
      return;
    }
    boolean digitsOnly = Chars.run(t, s, Chars::isDigit, n) == e;
    if (!digitsOnly && Chars.distinct(t, s, e) >= 3 && !isTrivialPassword(t, s, e)) {
      out.add(new Finding(rule, s, e));
    }
  }

  /** Words that stand in for a password in examples ({@code user:pass}, {@code test:test}). */
  private static final Set<String> TRIVIAL_PASSWORDS = Set.of("pass", "test", "user", "admin",
      "root", "guest", "demo", "foo", "bar", "passwd", "pwd", "hunter2", "letmein", "qwerty");

  private static boolean isTrivialPassword(CharSequence t, int s, int e) {
    return e - s <= 8
        && TRIVIAL_PASSWORDS.contains(t.subSequence(s, e).toString().toLowerCase(Locale.ROOT));
  }

  /** A variable or template reference rather than a value: {@code $X}, {@code %X%}, … */
  private static boolean isReference(CharSequence t, int s, int e) {
    char c = Chars.at(t, s);
    return c == '$' || c == '%' || c == '{' || c == '<' || c == '[' || c == '*'
        || Chars.at(t, e - 1) == '%' || Chars.at(t, e - 1) == '}';
  }

  /**
   * {@code -u user:password} or {@code --user user:password} (curl and the like): the password,
   * or the user when the password is empty ({@code -u sk_key:}, a key sent as the user name).
   */
  private static void userFlag(CharSequence t, int start, int end, List<Finding> out) {
    char before = Chars.at(t, start - 1);
    if (start > 0 && !Character.isWhitespace(before)) {
      return;
    }
    int i = end;
    char q = Chars.at(t, i - 1);
    if (q != '\'' && q != '"') {
      i = Chars.run(t, i, c -> c == ' ', 3);
      q = Chars.at(t, i);
      if (q == '\'' || q == '"') {
        i++;
      } else {
        q = ' ';
      }
    }
    int s = i;
    int limit = Math.min(t.length(), s + 512);
    int e = s;
    while (e < limit) {
      char c = t.charAt(e);
      if (q == ' ' ? Character.isWhitespace(c) : c == q || c == '\n') {
        break;
      }
      e++;
    }
    int colon = indexOf(t, ':', s, e);
    if (colon < 0) {
      return;
    }
    if (colon + 1 < e) {
      reportPassword(t, colon + 1, e, "secret.basic_auth", out);
    } else if (colon - s >= 8 && hasDigit(t, s, colon) && hasLetter(t, s, colon)) {
      reportPassword(t, s, colon, "secret.basic_auth", out);
    }
  }

  /**
   * An {@code Authorization:} header's credentials: {@code Basic} and base64 of 8 or more
   * characters, or another scheme's ({@code Token}, {@code Api-Token}, none) token of 12 or more
   * token characters with a letter and a digit. {@code Bearer} is the bearer rule's.
   */
  private static void authorization(CharSequence t, int start, int end, List<Finding> out) {
    int i = Chars.run(t, end, c -> c == ' ' || c == '\t', 8);
    int w = Chars.run(t, i, c -> Chars.isAsciiAlnum(c) || c == '-', 20);
    int s = i;
    boolean basic = false;
    if (w > i && Chars.at(t, w) == ' ') {
      if (Chars.containsIgnoreCase(t, i, w, "bearer")) {
        return;
      }
      basic = w - i == 5 && Chars.containsIgnoreCase(t, i, w, "basic");
      s = Chars.run(t, w, c -> c == ' ', 3);
    }
    int e = Chars.run(t, s, SecretDetector::isTokenChar, 4097);
    int n = e - s;
    if (n > 4096 || isPlaceholder(t, s, e) || isReference(t, s, e)) {
      return;
    }
    if (basic ? n >= 8 : n >= 12 && hasDigit(t, s, e) && hasLetter(t, s, e)
        && Chars.distinct(t, s, e) >= 8) {
      out.add(new Finding("secret.basic_auth", s, e));
    }
  }

  /** Checks a key block at a BEGIN line; returns where its scan stopped. */
  private static int privateKey(CharSequence t, int start, int end, List<Finding> out) {
    int label = Chars.run(t, end, c -> (c >= 'A' && c <= 'Z') || c == ' ', 40);
    String suffix = "PRIVATE KEY";
    int labelEnd = label;
    if (Chars.regionEquals(t, label - " BLOCK".length(), " BLOCK")) {
      labelEnd -= " BLOCK".length();
    }
    if (labelEnd - end < suffix.length() || !Chars.regionEquals(t, labelEnd - suffix.length(),
        suffix) || !Chars.regionEquals(t, label, "-----")) {
      return end;
    }
    int i = label + 5;
    int limit = Math.min(t.length(), i + 16_384);
    int base64 = 0;
    int e = i;
    while (i < limit) {
      char c = t.charAt(i);
      if (c == '-' && Chars.regionEquals(t, i, "-----END ")) {
        int close = i + 9;
        int closeLimit = Math.min(t.length(), close + 60);
        while (close < closeLimit && !Chars.regionEquals(t, close, "-----")) {
          close++;
        }
        e = close < closeLimit ? close + 5 : i + 9;
        break;
      }
      if (Chars.isBase64(c) || c == '=') {
        base64++;
      } else if (!(Character.isWhitespace(c) || c == '\\' || c == ':' || c == ','
          || c == '-')) {
        break;
      }
      i++;
      e = i;
    }
    if (base64 >= 64) {
      out.add(new Finding("secret.private_key", start, e));
    }
    return e;
  }

  private static void jwt(CharSequence t, int start, List<Finding> out) {
    if (Chars.isBase64Url(Chars.at(t, start - 1))) {
      return;
    }
    int h = Chars.run(t, start, Chars::isBase64Url, 2048);
    if (h - start < 10 || Chars.at(t, h) != '.' || !Chars.regionEquals(t, h + 1, "eyJ")) {
      return;
    }
    int p = Chars.run(t, h + 1, Chars::isBase64Url, 16_384);
    if (p - h - 1 < 10 || Chars.at(t, p) != '.') {
      return;
    }
    int s = Chars.run(t, p + 1, Chars::isBase64Url, 2048);
    if (s - p - 1 < 16 || !headerNamesAlg(t, start, h)) {
      return;
    }
    out.add(new Finding("secret.jwt", start, s));
  }

  private static boolean headerNamesAlg(CharSequence t, int start, int end) {
    try {
      byte[] decoded = Base64.getUrlDecoder().decode(t.subSequence(start, end).toString()
          .replace("=", ""));
      String header = new String(decoded, StandardCharsets.UTF_8).strip();
      return header.startsWith("{") && header.contains("\"alg\"");
    } catch (IllegalArgumentException notBase64) {
      return false;
    }
  }

  private static boolean isNameChar(char c) {
    return Chars.isAsciiAlnum(c) || c == '_' || c == '-' || c == '.';
  }

  private static boolean endsValue(char c) {
    return Character.isWhitespace(c) || c == '"' || c == '\'' || c == '`' || c == ',' || c == ';'
        || c == ')' || c == '(' || c == '[' || c == ']' || c == '{' || c == '}' || c == '<'
        || c == '>' || c == '&' || c == '\\' || c == '\0';
  }

  /**
   * Checks a credential assignment at a credential-like name; returns where the name ends. A
   * bare {@code key} (weak) must stand alone as a name and needs a longer, non-hex value.
   */
  private static int assignment(CharSequence t, int start, int end, boolean weak,
      List<Finding> out) {
    if (weak && (isNameChar(Chars.at(t, start - 1)) || isNameChar(Chars.at(t, end)))) {
      return end;
    }
    int nameEnd = Chars.run(t, end, SecretDetector::isNameChar, 40);
    int nameStart = start;
    while (nameStart > 0 && start - nameStart < 40 && isNameChar(t.charAt(nameStart - 1))) {
      nameStart--;
    }
    for (String part : NAME_PARTS_NOT_SECRET) {
      if (Chars.containsIgnoreCase(t, nameStart, nameEnd, part)) {
        return nameEnd;
      }
    }
    for (String suffix : NAME_SUFFIXES_NOT_SECRET) {
      if (Chars.containsIgnoreCase(t, end, nameEnd, suffix)) {
        return nameEnd;
      }
    }
    char dash = Chars.at(t, start - 1);
    boolean flag = dash == '-' && (Chars.at(t, start - 2) == '-'
        || Character.isWhitespace(Chars.at(t, start - 2)));
    assignedValue(t, nameEnd, weak, flag, out);
    return nameEnd;
  }

  /** Index after {@code is}, {@code was} or {@code are} and one blank at {@code i}, else i. */
  private static int connector(CharSequence t, int i) {
    if (Chars.at(t, i) != ' ') {
      return i;
    }
    for (String word : new String[] {"is ", "was ", "are ", "is: ", "here: "}) {
      if (Chars.containsIgnoreCase(t, i + 1, Math.min(t.length(), i + 1 + word.length()),
          word)) {
        return i + 1 + word.length();
      }
    }
    return i;
  }

  private static void assignedValue(CharSequence t, int nameEnd, boolean weak, boolean flag,
      List<Finding> out) {
    int i = nameEnd;
    char q = Chars.at(t, i);
    if (q == '"' || q == '\'' || q == '`') {
      i++;
    }
    int spoken = connector(t, i);
    if (spoken > i) {
      i = spoken;
    } else {
      i = skipBlanks(t, i, 3);
      char op = Chars.at(t, i);
      if (op == ':') {
        i += Chars.at(t, i + 1) == '=' ? 2 : 1;
      } else if (op == '=') {
        i += Chars.at(t, i + 1) == '>' ? 2 : 1;
      } else if (!(flag && i > nameEnd)) {
        // A command-line flag (--password VALUE) takes its value after a blank.
        return;
      }
    }
    i = skipBlanks(t, i, 3);
    q = Chars.at(t, i);
    if (q == '"' || q == '\'' || q == '`') {
      i++;
    }
    int valueStart = i;
    int valueEnd = valueStart;
    int limit = Math.min(t.length(), valueStart + 257);
    while (valueEnd < limit && !endsValue(t.charAt(valueEnd))) {
      valueEnd++;
    }
    // A sentence's full stop is not part of the value.
    if (valueEnd > valueStart && t.charAt(valueEnd - 1) == '.') {
      valueEnd--;
    }
    int n = valueEnd - valueStart;
    if (n < (weak ? 20 : 12) || n > 256) {
      return;
    }
    boolean letter = false;
    boolean digit = false;
    boolean hexOnly = true;
    boolean tokenOnly = true;
    for (int k = valueStart; k < valueEnd; k++) {
      char c = t.charAt(k);
      letter |= Character.isLetter(c);
      digit |= Chars.isDigit(c);
      hexOnly &= Chars.isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
          || c == '-';
      tokenOnly &= isTokenChar(c);
    }
    if (!letter || !digit || weak && (hexOnly || !tokenOnly)) {
      return;
    }
    if (isPlaceholder(t, valueStart, valueEnd)) {
      return;
    }
    double min = weak ? 3.8 : n < 16 ? 3.0 : MIN_ENTROPY;
    if (Chars.entropy(t, valueStart, valueEnd) >= min) {
      out.add(new Finding("secret.credential_assignment", valueStart, valueEnd));
    }
  }

  private static int skipBlanks(CharSequence t, int from, int max) {
    return Chars.run(t, from, c -> c == ' ' || c == '\t', max);
  }
}
