package io.pointsman.provider;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.Message;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Removes from a provider's error text what must not travel on: the adapter's own credential,
 * anything shaped like a credential ({@code sk-…} keys, {@code Bearer …} tokens, Pointsman
 * virtual keys, {@code api_key=…} pairs) and every run of {@value #PROMPT_RUN} or more
 * characters that also occurs in the prompt (providers echo the input in validation errors).
 * Stateless apart from the call's secret and prompt; one instance per failed call.
 */
final class ErrorScrubber {
  /** The shortest run of the prompt that is removed when the provider echoes it. */
  static final int PROMPT_RUN = 10;
  static final String CREDENTIAL = "[credential]";
  static final String PROMPT = "[prompt]";
  // A shape starts where no ASCII letter, digit or underscore precedes it, written out rather
  // than as \b, whose reading of non-ASCII letters changed in JDK 19: the same on every JDK.
  private static final String START = "(?<![A-Za-z0-9_])";
  private static final Pattern SHAPED = Pattern.compile(
      "(?i)(?:" + START + "bearer\\s+[^\\s\"',;]+|" + START + "(?:sk|pm|rk)-[^\\s\"',;]{3,}"
      + "|" + START + "(?:api[_-]?key|x-api-key|authorization|token|secret)\\s*[=:]\\s*"
      + "[\"']?[^\\s\"',;]{6,})");
  private static final long BASE = 1_000_003L;

  private final String secret;
  private final List<String> prompt;

  private ErrorScrubber(String secret, List<String> prompt) {
    this.secret = secret;
    this.prompt = prompt;
  }

  /** A scrubber that knows no secret and no prompt: it removes only credential shapes. */
  static ErrorScrubber shapesOnly() {
    return new ErrorScrubber(null, List.of());
  }

  /**
   * A scrubber for one call.
   *
   * @param secret the credential the adapter sent, or null
   * @param request the call's request, or null
   */
  static ErrorScrubber of(String secret, ChatRequest request) {
    List<String> texts = new ArrayList<>();
    if (request != null && request.messages() != null) {
      for (Message m : request.messages()) {
        if (m == null) {
          continue;
        }
        if (m.content() instanceof Content.Text t && t.text() != null) {
          texts.add(t.text());
        } else if (m.content() instanceof Content.Parts parts) {
          for (ContentPart p : parts.parts()) {
            if (p != null && p.text() != null) {
              texts.add(p.text());
            }
          }
        }
      }
    }
    return new ErrorScrubber(secret == null || secret.length() < 4 ? null : secret,
        List.copyOf(texts));
  }

  /**
   * A scrubber for one call whose prompt is these texts (an embeddings call's inputs).
   *
   * @param secret the credential the adapter sent, or null
   * @param texts the texts the provider may echo
   */
  static ErrorScrubber ofTexts(String secret, List<String> texts) {
    return new ErrorScrubber(secret == null || secret.length() < 4 ? null : secret,
        List.copyOf(texts));
  }

  /** Scrubs a (short, already cut) provider message. */
  String scrub(String message) {
    if (message == null || message.isEmpty()) {
      return message;
    }
    String s = message;
    if (secret != null) {
      s = s.replace(secret, CREDENTIAL);
    }
    s = SHAPED.matcher(s).replaceAll(CREDENTIAL);
    return removePrompt(s);
  }

  private String removePrompt(String s) {
    int k = PROMPT_RUN;
    if (prompt.isEmpty() || s.length() < k) {
      return s;
    }
    // The message's windows of k characters, by rolling hash; the prompt is scanned once.
    Map<Long, List<Integer>> windows = new HashMap<>();
    long pow = 1;
    for (int i = 1; i < k; i++) {
      pow *= BASE;
    }
    long h = 0;
    for (int i = 0; i < s.length(); i++) {
      if (i >= k) {
        h -= s.charAt(i - k) * pow;
      }
      h = h * BASE + s.charAt(i);
      if (i >= k - 1) {
        windows.computeIfAbsent(h, x -> new ArrayList<>()).add(i - k + 1);
      }
    }
    boolean[] hit = new boolean[s.length()];
    boolean any = false;
    for (String text : prompt) {
      long ph = 0;
      for (int i = 0; i < text.length(); i++) {
        if (i >= k) {
          ph -= text.charAt(i - k) * pow;
        }
        ph = ph * BASE + text.charAt(i);
        if (i >= k - 1) {
          List<Integer> at = windows.get(ph);
          if (at != null) {
            for (int start : at) {
              if (s.regionMatches(start, text, i - k + 1, k)) {
                for (int j = start; j < start + k; j++) {
                  hit[j] = true;
                }
                any = true;
              }
            }
          }
        }
      }
    }
    if (!any) {
      return s;
    }
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      if (!hit[i]) {
        out.append(s.charAt(i));
      } else if (i == 0 || !hit[i - 1]) {
        out.append(PROMPT);
      }
    }
    return out.toString();
  }
}
