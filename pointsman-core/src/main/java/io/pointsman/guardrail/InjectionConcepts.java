package io.pointsman.guardrail;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The concept lexicon of {@link InjectionFeatures}: words that cancel, replace, reveal or send
 * instructions, in many languages, mapped to a few concepts ({@code IGNORE}, {@code RULES},
 * {@code PRIOR}, {@code REVEAL}…). A token in the lexicon yields features for its concept and
 * for its concept paired with the concepts just before it, so that "set aside what you were told
 * before" and "ignore the previous instructions" share evidence although they share no word.
 *
 * <p>The lexicon is the resource {@value #RESOURCE}; its comment says the entry format. Entries
 * pass through the classifier's own normalisation, so an entry matches exactly the tokens the
 * tokeniser makes of the same word however it is obfuscated. Immutable and thread-safe; a lookup
 * is a few bit tests for a token that is not in the lexicon.
 */
final class InjectionConcepts {
  static final String RESOURCE = "/io/pointsman/guardrail/injection-concepts.txt";

  /** Tags a stem's hash so that it never equals a whole word's. */
  private static final int STEM_TAG = 0x5A17_C3E5;
  private static final int BLOOM_BITS = 1 << 16;

  static final InjectionConcepts DEFAULT = load();

  private final long[] words = new long[BLOOM_BITS / 64];
  /**
   * The stems of every word and stem entry and of every pair's first token: the one test most
   * tokens take.
   */
  private final long[] stems = new long[BLOOM_BITS / 64];
  private final long[] pairStarts = new long[BLOOM_BITS / 64];
  private final int[] keys;
  private final byte[] values;
  private final int mask;
  private final List<String> names;

  private InjectionConcepts(Map<Integer, Integer> entries, List<Integer> starts,
      List<Integer> entryStems, List<String> names) {
    int size = Integer.highestOneBit(Math.max(16, entries.size() * 4) - 1) << 1;
    keys = new int[size];
    values = new byte[size];
    mask = size - 1;
    for (Map.Entry<Integer, Integer> e : entries.entrySet()) {
      int key = e.getKey();
      int i = slot(key);
      while (keys[i] != 0) {
        i = (i + 1) & mask;
      }
      keys[i] = key;
      values[i] = (byte) (int) e.getValue();
      set(words, key);
    }
    for (int s : starts) {
      set(pairStarts, s);
    }
    for (int s : entryStems) {
      set(stems, s);
    }
    this.names = List.copyOf(names);
  }

  /** The concept names, in the order of their ids (id 1 is the first). */
  List<String> names() {
    return names;
  }

  /**
   * The concept of a token, or 0.
   *
   * @param token the token's hash
   * @param stem its stem's hash
   * @param previous the hash of the token before it
   * @param pairOpen whether {@code previous} starts a two-token entry
   */
  int concept(int token, int stem, int previous, boolean pairOpen) {
    if (pairOpen) {
      int c = get(pairKey(previous, token));
      if (c != 0) {
        return c;
      }
    }
    if (test(words, token)) {
      int c = get(nonZero(token));
      if (c != 0) {
        return c;
      }
    }
    if (stem != token) {
      int tagged = stem ^ STEM_TAG;
      if (test(words, tagged)) {
        return get(nonZero(tagged));
      }
    }
    return 0;
  }

  /**
   * False when no word or stem entry can match a token with this stem and no pair can start
   * with it: then {@link #startsPair} is false for it, and {@link #concept} is 0 unless the token
   * before it started a pair.
   */
  boolean mayHold(int stem) {
    return test(stems, stem);
  }

  /** Whether a token starts a two-token entry. */
  boolean startsPair(int token) {
    return test(pairStarts, token);
  }

  private int get(int key) {
    int i = slot(key);
    while (true) {
      int k = keys[i];
      if (k == key) {
        return values[i];
      }
      if (k == 0) {
        return 0;
      }
      i = (i + 1) & mask;
    }
  }

  private int slot(int key) {
    return (key * 0x9E3779B1 >>> 7) & mask;
  }

  private static boolean test(long[] bits, int h) {
    return (bits[(h >>> 6) & (BLOOM_BITS / 64 - 1)] & (1L << h)) != 0;
  }

  private static void set(long[] bits, int h) {
    bits[(h >>> 6) & (BLOOM_BITS / 64 - 1)] |= 1L << h;
  }

  private static int nonZero(int key) {
    return key == 0 ? 1 : key;
  }

  private static int pairKey(int first, int second) {
    return nonZero((first * 0x85EBCA6B) ^ (second * 0xC2B2AE35) ^ 0x27D4EB2F);
  }

  private static InjectionConcepts load() {
    return parse(resource());
  }

  /** The text of {@value #RESOURCE}. */
  static String resource() {
    try (InputStream in = InjectionConcepts.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  /** One line of a lexicon: a concept's name and its entries as written. */
  record Line(String concept, List<String> entries) {}

  /**
   * The concept lines of a lexicon, in order, without blank and comment lines.
   *
   * @throws IllegalStateException if a line has no name or an empty entry
   */
  static List<Line> lines(String file) {
    List<Line> out = new ArrayList<>();
    for (String line : file.split("\n")) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      int colon = l.indexOf(':');
      if (colon <= 0) {
        throw new IllegalStateException("malformed lexicon line: " + line);
      }
      List<String> entries = new ArrayList<>();
      for (String raw : l.substring(colon + 1).split(",")) {
        String entry = raw.strip();
        if (entry.isEmpty()) {
          throw new IllegalStateException("empty entry in lexicon line: " + line);
        }
        entries.add(entry);
      }
      out.add(new Line(l.substring(0, colon).strip(), entries));
    }
    return out;
  }

  /**
   * Parses a lexicon (the format of {@value #RESOURCE}).
   *
   * @throws IllegalStateException if a line or an entry is malformed
   */
  static InjectionConcepts parse(String file) {
    Map<Integer, Integer> entries = new LinkedHashMap<>();
    List<Integer> starts = new ArrayList<>();
    List<Integer> entryStems = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Line line : lines(file)) {
      names.add(line.concept());
      if (names.size() > 100) {
        throw new IllegalStateException("more than 100 concepts");
      }
      int id = names.size();
      for (String entry : line.entries()) {
        boolean stem = entry.endsWith("*");
        String text = stem ? entry.substring(0, entry.length() - 1) : entry;
        List<int[]> tokens = tokens(text);
        if (tokens.isEmpty()) {
          throw new IllegalStateException("lexicon entry without a token: " + entry);
        }
        // A stem entry is matched by the stem of the words it begins, which is the entry's own
        // hash ("bypas*" is the stem of "bypass", although "bypas" read as a word stems to
        // "bypa"); a word by its stem; a pair by its first token's stem (its second token is
        // looked up only after a first, so common second words such as "as" or "me" stay out).
        entryStems.add(stem ? tokens.get(0)[0] : tokens.get(0)[1]);
        int key;
        if (stem) {
          if (tokens.size() != 1 || text.length() != InjectionFeatures.STEM) {
            throw new IllegalStateException("a stem entry is one word of "
                + InjectionFeatures.STEM + " letters: " + entry);
          }
          key = nonZero(tokens.get(0)[0] ^ STEM_TAG);
        } else if (tokens.size() == 1) {
          key = nonZero(tokens.get(0)[0]);
        } else {
          // An entry of more tokens is matched by its first two.
          key = pairKey(tokens.get(0)[0], tokens.get(1)[0]);
          starts.add(tokens.get(0)[0]);
        }
        entries.putIfAbsent(key, id);
      }
    }
    return new InjectionConcepts(entries, starts, entryStems, names);
  }

  /** The raw token and stem hashes the tokeniser makes of a text. */
  private static List<int[]> tokens(String text) {
    List<int[]> out = new ArrayList<>();
    InjectionFeatures f = InjectionFeatures.raw((token, stem) -> out.add(new int[] {token, stem}));
    f.accept(text);
    f.finish();
    return out;
  }
}
