package io.pointsman.guardrail;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Finds personal data: e-mail addresses, phone numbers, payment card numbers and IBANs. Not in
 * the default chains; add it where the host's policy needs it.
 *
 * <ul>
 *   <li>{@code pii.email}: {@code local@domain.tld} with a letters-only top-level label;
 *   <li>{@code pii.phone}: {@code +} country code with 8–15 digits in groups, or a North
 *       American number {@code (NXX) NXX-XXXX}, {@code NXX-NXX-XXXX}, {@code NXX.NXX.XXXX},
 *       optionally after {@code 1} or {@code +1}; bare digit runs are not phones;
 *   <li>{@code pii.card}: 13–19 digits, contiguous or in groups split by one space or dash, with a
 *       known issuer prefix and a valid Luhn check digit;
 *   <li>{@code pii.iban}: a country code with that country's IBAN length, plain or in groups of
 *       four, whose mod-97 check is 1.
 * </ul>
 *
 * <p>Immutable and thread-safe; linear in the text's length.
 */
public final class PiiDetector implements Detector {
  /** Every rule this detector reports. */
  public static final Set<String> RULES = Set.of("pii.email", "pii.phone", "pii.card",
      "pii.iban");

  // ISO 13616 registry lengths of the countries most often seen; others are not matched.
  private static final Map<String, Integer> IBAN_LENGTHS = Map.ofEntries(
      Map.entry("AD", 24), Map.entry("AT", 20), Map.entry("BE", 16), Map.entry("BG", 22),
      Map.entry("CH", 21), Map.entry("CY", 28), Map.entry("CZ", 24), Map.entry("DE", 22),
      Map.entry("DK", 18), Map.entry("EE", 20), Map.entry("ES", 24), Map.entry("FI", 18),
      Map.entry("FR", 27), Map.entry("GB", 22), Map.entry("GR", 27), Map.entry("HR", 21),
      Map.entry("HU", 28), Map.entry("IE", 22), Map.entry("IS", 26), Map.entry("IT", 27),
      Map.entry("LI", 21), Map.entry("LT", 20), Map.entry("LU", 20), Map.entry("LV", 21),
      Map.entry("MC", 27), Map.entry("MT", 31), Map.entry("NL", 18), Map.entry("NO", 15),
      Map.entry("PL", 28), Map.entry("PT", 25), Map.entry("RO", 24), Map.entry("SE", 24),
      Map.entry("SI", 19), Map.entry("SK", 24), Map.entry("SM", 27), Map.entry("TR", 26),
      Map.entry("AE", 23), Map.entry("SA", 24), Map.entry("IL", 23), Map.entry("BR", 29));

  private static final PiiDetector DEFAULT = new PiiDetector();

  private PiiDetector() {}

  /**
   * Returns the detector with every rule enabled.
   *
   * @return the shared instance
   */
  public static PiiDetector ofDefaults() {
    return DEFAULT;
  }

  @Override
  public String family() {
    return "pii";
  }

  @Override
  public void scan(CharSequence text, List<Finding> out) {
    Objects.requireNonNull(out, "out");
    int n = text.length();
    int skipUntil = 0;
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c == '@') {
        email(text, i, out);
      } else if (i >= skipUntil && (Chars.isDigit(c) || c == '+' || c == '(')
          && !Chars.isAsciiAlnum(Chars.at(text, i - 1)) && Chars.at(text, i - 1) != '.'
          && Chars.at(text, i - 1) != '-') {
        skipUntil = number(text, i, out);
      } else if (c >= 'A' && c <= 'Z' && i + 3 < n && !Chars.isAsciiAlnum(Chars.at(text, i - 1))
          && Character.isUpperCase(text.charAt(i + 1)) && Chars.isDigit(text.charAt(i + 2))
          && Chars.isDigit(text.charAt(i + 3))) {
        iban(text, i, out);
      }
    }
  }

  private static boolean isLocalChar(char c) {
    return Chars.isAsciiAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
  }

  private static void email(CharSequence t, int at, List<Finding> out) {
    int s = at;
    while (s > 0 && at - s < 64 && isLocalChar(t.charAt(s - 1))) {
      s--;
    }
    if (s == at || t.charAt(s) == '.' || t.charAt(at - 1) == '.') {
      return;
    }
    int i = at + 1;
    int labels = 0;
    int lastLabelStart = i;
    int end = i;
    int limit = Math.min(t.length(), at + 256);
    while (i < limit) {
      int labelEnd = Chars.run(t, i, c -> Chars.isAsciiAlnum(c) || c == '-', 63);
      if (labelEnd == i || t.charAt(i) == '-' || t.charAt(labelEnd - 1) == '-') {
        break;
      }
      labels++;
      lastLabelStart = i;
      end = labelEnd;
      if (Chars.at(t, labelEnd) == '.' && Chars.isAsciiAlnum(Chars.at(t, labelEnd + 1))) {
        i = labelEnd + 1;
      } else {
        break;
      }
    }
    if (labels < 2 || end - lastLabelStart < 2) {
      return;
    }
    for (int k = lastLabelStart; k < end; k++) {
      if (!Character.isLetter(t.charAt(k))) {
        return;
      }
    }
    out.add(new Finding("pii.email", s, end));
  }

  /** Parses the numeric token at {@code start}; returns the index scanning may resume from. */
  private static int number(CharSequence t, int start, List<Finding> out) {
    int n = t.length();
    int i = start;
    int limit = Math.min(n, start + 32);
    int[] groups = new int[20];
    int[] groupStarts = new int[20];
    int count = 0;
    char sep = 0;
    boolean mixed = false;
    boolean plus = t.charAt(i) == '+';
    if (plus) {
      i++;
    }
    int parenGroup = -1;
    while (i < limit && count < groups.length) {
      boolean open = false;
      if (t.charAt(i) == '(') {
        open = true;
        i++;
      }
      int e = Chars.run(t, i, Chars::isDigit, 20);
      if (e == i) {
        break;
      }
      groupStarts[count] = i;
      groups[count++] = e - i;
      i = e;
      if (open) {
        if (Chars.at(t, i) != ')') {
          return e;
        }
        parenGroup = count - 1;
        i++;
        if (Chars.at(t, i) == ' ' && Chars.isDigit(Chars.at(t, i + 1))) {
          i++;
        }
        continue;
      }
      char c = Chars.at(t, i);
      if ((c == ' ' || c == '-' || c == '.') && (Chars.isDigit(Chars.at(t, i + 1))
          || Chars.at(t, i + 1) == '(')) {
        if (sep != 0 && sep != c) {
          mixed = true;
        }
        sep = c;
        i++;
      } else {
        break;
      }
    }
    int end = i;
    if (count == 0 || Chars.isAsciiAlnum(Chars.at(t, end)) || (Chars.at(t, end) == '.'
        && Chars.isDigit(Chars.at(t, end + 1)))) {
      return end;
    }
    int digits = 0;
    for (int g = 0; g < count; g++) {
      digits += groups[g];
    }
    int tokenStart = plus ? start : (parenGroup == 0 ? groupStarts[0] - 1 : groupStarts[0]);
    if (!plus && parenGroup < 0 && !mixed && sep != '.' && card(t, groups, groupStarts, count,
        digits)) {
      out.add(new Finding("pii.card", groupStarts[0], end));
      return end;
    }
    if (phone(t, plus, groups, groupStarts, count, parenGroup, mixed, sep, digits)) {
      out.add(new Finding("pii.phone", tokenStart, end));
    }
    return end;
  }

  private static boolean phone(CharSequence t, boolean plus, int[] groups, int[] starts,
      int count, int parenGroup, boolean mixed, char sep, int digits) {
    if (plus) {
      return digits >= 8 && digits <= 15 && (count == 1 || groups[0] <= 3) && !mixed;
    }
    int g = 0;
    if (count == 4 && groups[0] == 1 && t.charAt(starts[0]) == '1') {
      g = 1;
    }
    if (count - g != 3 || groups[g] != 3 || groups[g + 1] != 3 || groups[g + 2] != 4) {
      return false;
    }
    if (parenGroup >= 0 && parenGroup != g) {
      return false;
    }
    if (mixed && parenGroup < 0) {
      return false;
    }
    if (sep == ' ' && parenGroup < 0) {
      return false;
    }
    char area = t.charAt(starts[g]);
    char exchange = t.charAt(starts[g + 1]);
    return area >= '2' && exchange >= '2';
  }

  private static boolean card(CharSequence t, int[] groups, int[] starts, int count,
      int digits) {
    if (digits < 13 || digits > 19) {
      return false;
    }
    if (count > 1) {
      // Grouped numbers come as 4-4-4-4(-3), 4-6-5 (Amex) or 4-6-4 (Diners).
      for (int g = 0; g < count - 1; g++) {
        if (groups[g] != 4 && !(g == 1 && (groups[g] == 6))) {
          return false;
        }
      }
    }
    int[] all = new int[digits];
    int k = 0;
    for (int g = 0; g < count; g++) {
      for (int i = 0; i < groups[g]; i++) {
        all[k++] = t.charAt(starts[g] + i) - '0';
      }
    }
    return knownIssuer(all, digits) && luhn(all);
  }

  private static boolean knownIssuer(int[] d, int length) {
    int two = d[0] * 10 + d[1];
    int four = two * 100 + d[2] * 10 + d[3];
    if (d[0] == 4) {
      return length == 13 || length == 16 || length == 19;
    }
    if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) {
      return length == 16;
    }
    if (two == 34 || two == 37) {
      return length == 15;
    }
    if (four == 6011 || two == 65 || (four >= 6440 && four <= 6499)) {
      return length >= 16;
    }
    if (two == 35) {
      return length >= 16;
    }
    if (two == 36 || two == 38 || two == 30) {
      return length == 14;
    }
    return false;
  }

  static boolean luhn(int[] digits) {
    int sum = 0;
    boolean twice = false;
    for (int i = digits.length - 1; i >= 0; i--) {
      int d = digits[i];
      if (twice) {
        d *= 2;
        if (d > 9) {
          d -= 9;
        }
      }
      sum += d;
      twice = !twice;
    }
    return sum % 10 == 0;
  }

  private static void iban(CharSequence t, int start, List<Finding> out) {
    String country = "" + t.charAt(start) + t.charAt(start + 1);
    Integer length = IBAN_LENGTHS.get(country);
    if (length == null) {
      return;
    }
    StringBuilder compact = new StringBuilder(length);
    int i = start;
    int end = start;
    int n = t.length();
    while (i < n && compact.length() < length) {
      char c = t.charAt(i);
      if (Chars.isUpperOrDigit(c)) {
        compact.append(c);
        i++;
        end = i;
      } else if (c == ' ' && compact.length() % 4 == 0 && i + 1 < n
          && Chars.isUpperOrDigit(t.charAt(i + 1))) {
        i++;
      } else {
        break;
      }
    }
    if (compact.length() != length || Chars.isAsciiAlnum(Chars.at(t, end))) {
      return;
    }
    if (mod97(compact) == 1) {
      out.add(new Finding("pii.iban", start, end));
    }
  }

  static int mod97(CharSequence iban) {
    int remainder = 0;
    int n = iban.length();
    for (int k = 0; k < n; k++) {
      char c = iban.charAt((k + 4) % n);
      int value = Chars.isDigit(c) ? c - '0' : c - 'A' + 10;
      remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
    }
    return remainder;
  }
}
