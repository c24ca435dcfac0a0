package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Model-provider and developer-service tokens known by their prefix: a token of each format is
 * reported under its rule, inside a sentence and after a name; one character short of its
 * shortest length, glued to a word in front, of too few distinct characters, or a snake_case
 * name without a digit, it is not.
 */
class PrefixedTokensTest {
  private static final String HEX = "0123456789abcdef";
  private static final String HEX_ANY = "0123456789abcdefABCDEF";
  private static final String ALNUM =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  private static final String URLSAFE = ALNUM + "-_";
  private static final String BECH32_UPPER = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

  record Format(String prefix, String alphabet, int length, String rule) {}

  static final List<Format> FORMATS = List.of(
      new Format("sk-or-v1-", HEX, 64, "secret.llm_api_key"),
      new Format("gsk_", ALNUM, 52, "secret.llm_api_key"),
      new Format("pplx-", ALNUM, 48, "secret.llm_api_key"),
      new Format("xai-", ALNUM, 80, "secret.llm_api_key"),
      new Format("r8_", ALNUM, 37, "secret.llm_api_key"),
      new Format("lsv2_pt_", HEX, 42, "secret.llm_api_key"),
      new Format("pcsk_", ALNUM, 72, "secret.llm_api_key"),
      new Format("tvly-", ALNUM, 32, "secret.llm_api_key"),
      new Format("pypi-AgEIcHlwaS5vcmc", URLSAFE, 150, "secret.service_token"),
      new Format("dckr_pat_", URLSAFE, 27, "secret.service_token"),
      new Format("dop_v1_", HEX, 64, "secret.service_token"),
      new Format("hvs.", URLSAFE, 90, "secret.service_token"),
      new Format("ATATT3", URLSAFE, 186, "secret.service_token"),
      new Format("shpat_", HEX, 32, "secret.service_token"),
      new Format("lin_api_", ALNUM, 40, "secret.service_token"),
      new Format("sntryu_", HEX, 64, "secret.service_token"),
      new Format("dapi", HEX, 32, "secret.service_token"),
      new Format("dp.pt.", ALNUM, 43, "secret.service_token"),
      new Format("AGE-SECRET-KEY-1", BECH32_UPPER, 58, "secret.service_token"),
      new Format("sgp_local_", HEX_ANY, 40, "secret.service_token"),
      new Format("ntn_", ALNUM, 46, "secret.service_token"),
      new Format("figd_", URLSAFE, 40, "secret.service_token"),
      new Format("squ_", HEX, 40, "secret.service_token"),
      new Format("sqa_", ALNUM, 40, "secret.service_token"),
      new Format("fo1_", URLSAFE, 43, "secret.service_token"),
      new Format("fm2_", ALNUM + "+/=", 300, "secret.service_token"),
      new Format("sq0atp-", URLSAFE, 22, "secret.service_token"),
      new Format("sq0csp-", URLSAFE, 43, "secret.service_token"),
      new Format("s-s4t2ud-", HEX, 64, "secret.service_token"));

  private static String chars(Random r, String alphabet, int n) {
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
    }
    return sb.toString();
  }

  private static List<String> rules(String text) {
    List<Finding> found = new ArrayList<>();
    SecretDetector.ofDefaults().scan(text, found);
    return found.stream().map(Finding::rule).toList();
  }

  @Test
  void eachFormatIsReportedUnderItsRule() {
    Random r = new Random(20261203);
    for (Format f : FORMATS) {
      String token = f.prefix() + chars(r, f.alphabet(), f.length());
      assertThat(rules("my key is " + token + ", keep it safe")).as(token).contains(f.rule());
      assertThat(rules("API_KEY=\"" + token + "\"")).as(token).contains(f.rule());
      String redacted = DefaultChainFindingsTest.redacted("use " + token + " for the build");
      assertThat(redacted).as(token).doesNotContain(token.substring(f.prefix().length()));
    }
  }

  @Test
  void nearMissesAreNot() {
    Random r = new Random(20261204);
    for (Format f : FORMATS) {
      String shortOne = f.prefix() + chars(r, f.alphabet(), minimum(f) - 1);
      assertThat(rules("the value " + shortOne + " here")).as(shortOne).doesNotContain(f.rule());
      String glued = "x" + f.prefix() + chars(r, f.alphabet(), f.length());
      assertThat(rules("see " + glued)).as(glued).doesNotContain(f.rule());
      String flat = f.prefix() + String.valueOf(f.alphabet().charAt(1)).repeat(f.length());
      assertThat(rules("see " + flat)).as(flat).doesNotContain(f.rule());
      String snake = f.prefix() + "init_renderer_module_for_the_main_window_and_its_children"
          .repeat(8).substring(0, f.length());
      assertThat(rules("call " + snake + "()")).as(snake).doesNotContain(f.rule());
    }
  }

  @Test
  void aMailchimpKeyIsReportedByItsDataCentreSuffix() {
    Random r = new Random(20261205);
    String key = chars(r, HEX, 32) + "-us18";
    assertThat(rules("MAILCHIMP_KEY = \"" + key + "\"")).as(key).contains("secret.service_token");
    assertThat(rules("the list key " + chars(r, HEX, 32) + "-us6 works"))
        .contains("secret.service_token");
    String redacted = DefaultChainFindingsTest.redacted("export MC=" + key + " && run");
    assertThat(redacted).doesNotContain(key.substring(0, 32)).doesNotContain("-us18");
    for (String near : List.of(chars(r, HEX, 31) + "-us18", "x" + chars(r, HEX, 32) + "-us18",
        chars(r, HEX, 32) + "-us180", chars(r, HEX, 32) + "-usa", chars(r, HEX, 32) + "-us",
        "0123456789abcdef".substring(0, 4).repeat(8) + "-us1",
        chars(r, HEX, 32).toUpperCase(Locale.ROOT) + "-us18")) {
      assertThat(rules("see " + near + " here")).as(near).doesNotContain("secret.service_token");
    }
  }

  /** The shortest body each format accepts (SecretDetector's table). */
  private static int minimum(Format f) {
    return switch (f.prefix()) {
      case "pplx-" -> 40;
      case "xai-" -> 70;
      case "r8_" -> 30;
      case "lsv2_pt_" -> 40;
      case "pcsk_" -> 50;
      case "tvly-" -> 30;
      case "pypi-AgEIcHlwaS5vcmc" -> 50;
      case "dckr_pat_" -> 20;
      case "hvs." -> 24;
      case "ATATT3" -> 150;
      case "dp.pt." -> 40;
      case "ntn_" -> 40;
      case "figd_" -> 38;
      case "fm2_" -> 100;
      default -> f.length();
    };
  }
}
