package io.pointsman.jmh;

import java.util.LinkedHashMap;
import java.util.Map;

/** The command-line options of the harness mains: {@code --key=value}, or {@code --flag}. */
public final class Options {
  private Options() {}

  /**
   * Reads the options in order; a later one overrides an earlier one with the same key.
   *
   * @param args the arguments, each {@code --key=value} or {@code --flag} (read as "true")
   * @return the options by key, in the order given
   */
  public static Map<String, String> parse(String[] args) {
    Map<String, String> opts = new LinkedHashMap<>();
    for (String a : args) {
      String[] kv = a.replaceFirst("^--", "").split("=", 2);
      opts.put(kv[0], kv.length > 1 ? kv[1] : "true");
    }
    return opts;
  }
}
