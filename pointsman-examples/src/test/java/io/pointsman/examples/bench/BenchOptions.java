package io.pointsman.examples.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** The command-line options of the bench mains: {@code --key=value}, or {@code --flag}. */
final class BenchOptions {
  private BenchOptions() {}

  /** Reads the options in order; a later one overrides an earlier one with the same key. */
  static Map<String, String> parse(String[] args) {
    Map<String, String> opts = new LinkedHashMap<>();
    for (String a : args) {
      String[] kv = a.replaceFirst("^--", "").split("=", 2);
      opts.put(kv[0], kv.length > 1 ? kv[1] : "true");
    }
    return opts;
  }
}
