package io.pointsman.cache.semantic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The BERT uncased WordPiece tokenizer described by a Hugging Face {@code tokenizer.json}:
 * {@code BertNormalizer} (drop control characters, map whitespace to a space, space out CJK
 * ideographs, strip accents, lowercase), {@code BertPreTokenizer} (split on whitespace, isolate
 * each punctuation character) and greedy longest-match-first WordPiece with the {@code ##}
 * continuation prefix, then {@code [CLS] … [SEP]}. Written here rather than taken from a
 * native tokenizer library so that the cache needs no native code and no download at run time;
 * the output is pinned against the Hugging Face implementation by the oracle tests.
 * Immutable and thread-safe.
 */
public final class WordPieceTokenizer {
  private static final int MAX_CHARS_PER_WORD = 100;

  private final Map<String, Integer> vocab;
  private final int cls;
  private final int sep;
  private final int unk;

  private WordPieceTokenizer(Map<String, Integer> vocab) {
    this.vocab = vocab;
    this.cls = id(vocab, "[CLS]");
    this.sep = id(vocab, "[SEP]");
    this.unk = id(vocab, "[UNK]");
  }

  private static int id(Map<String, Integer> vocab, String token) {
    Integer id = vocab.get(token);
    if (id == null) {
      throw new IllegalArgumentException("the vocabulary has no " + token);
    }
    return id;
  }

  /**
   * Reads the WordPiece vocabulary of a {@code tokenizer.json}.
   *
   * @param tokenizerJson the file's content; not closed
   * @return the tokenizer
   * @throws UncheckedIOException if the stream cannot be read
   * @throws IllegalArgumentException if the file is not a WordPiece tokenizer with the BERT
   *     special tokens
   */
  public static WordPieceTokenizer fromTokenizerJson(InputStream tokenizerJson) {
    Objects.requireNonNull(tokenizerJson, "tokenizerJson");
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(tokenizerJson);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read tokenizer.json", e);
    }
    JsonNode model = root.path("model");
    if (!"WordPiece".equals(model.path("type").asText())) {
      throw new IllegalArgumentException("not a WordPiece tokenizer: " + model.path("type"));
    }
    Map<String, Integer> vocab = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : model.path("vocab").properties()) {
      vocab.put(e.getKey(), e.getValue().asInt());
    }
    return new WordPieceTokenizer(Map.copyOf(vocab));
  }

  /**
   * Returns the vocabulary size.
   *
   * @return the number of tokens
   */
  public int vocabularySize() {
    return vocab.size();
  }

  /**
   * Encodes a text as token ids, {@code [CLS]} first and {@code [SEP]} last, keeping at most
   * {@code window} ids (the word pieces beyond {@code window - 2} are dropped).
   *
   * @param text the text, possibly empty
   * @param window the most ids returned, at least 2
   * @return the ids
   * @throws IllegalArgumentException if window is below 2
   */
  public int[] encode(String text, int window) {
    Objects.requireNonNull(text, "text");
    if (window < 2) {
      throw new IllegalArgumentException("window must be at least 2: " + window);
    }
    int[] ids = new int[window];
    int n = 0;
    ids[n++] = cls;
    for (String word : preTokenize(normalize(text))) {
      n = wordPieces(word, ids, n, window - 1);
      if (n == window - 1) {
        break;
      }
    }
    ids[n++] = sep;
    return n == window ? ids : Arrays.copyOf(ids, n);
  }

  private int wordPieces(String word, int[] ids, int n, int limit) {
    int chars = word.codePointCount(0, word.length());
    if (chars > MAX_CHARS_PER_WORD) {
      ids[n++] = unk;
      return n;
    }
    // The whole word becomes [UNK] when any part of it has no piece, so collect first.
    int start = n;
    int begin = 0;
    while (begin < word.length()) {
      int end = word.length();
      Integer found = null;
      while (end > begin) {
        String sub = word.substring(begin, end);
        found = vocab.get(begin > 0 ? "##" + sub : sub);
        if (found != null) {
          break;
        }
        end = Character.isLowSurrogate(word.charAt(end - 1)) && end - 2 > begin
            ? end - 2 : end - 1;
      }
      if (found == null) {
        ids[start] = unk;
        return start + 1;
      }
      if (n < limit) {
        ids[n] = found;
      }
      n++;
      begin = end;
    }
    return Math.min(n, limit);
  }

  static String normalize(String text) {
    StringBuilder cleaned = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (cp == 0 || cp == 0xFFFD || isControl(cp)) {
        continue;
      }
      if (isWhitespace(cp)) {
        cleaned.append(' ');
      } else if (isCjk(cp)) {
        cleaned.append(' ').appendCodePoint(cp).append(' ');
      } else {
        cleaned.appendCodePoint(cp);
      }
    }
    String decomposed = Normalizer.normalize(cleaned, Normalizer.Form.NFD);
    StringBuilder stripped = new StringBuilder(decomposed.length());
    for (int i = 0; i < decomposed.length(); ) {
      int cp = decomposed.codePointAt(i);
      i += Character.charCount(cp);
      if (Character.getType(cp) == Character.NON_SPACING_MARK) {
        continue;
      }
      // Per character, as Rust's char::to_lowercase: String.toLowerCase would apply the
      // context rule for a final sigma, which the reference tokenizer does not.
      if (cp < 128) {
        stripped.append((char) (cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
      } else {
        stripped.append(new String(Character.toChars(cp)).toLowerCase(Locale.ROOT));
      }
    }
    return stripped.toString();
  }

  static List<String> preTokenize(String normalized) {
    List<String> words = new ArrayList<>();
    int wordStart = -1;
    for (int i = 0; i < normalized.length(); ) {
      int cp = normalized.codePointAt(i);
      int next = i + Character.charCount(cp);
      if (isWhitespace(cp)) {
        if (wordStart >= 0) {
          words.add(normalized.substring(wordStart, i));
          wordStart = -1;
        }
      } else if (isPunctuation(cp)) {
        if (wordStart >= 0) {
          words.add(normalized.substring(wordStart, i));
          wordStart = -1;
        }
        words.add(normalized.substring(i, next));
      } else if (wordStart < 0) {
        wordStart = i;
      }
      i = next;
    }
    if (wordStart >= 0) {
      words.add(normalized.substring(wordStart));
    }
    return words;
  }

  private static boolean isControl(int cp) {
    if (cp == '\t' || cp == '\n' || cp == '\r') {
      return false;
    }
    int type = Character.getType(cp);
    return type == Character.CONTROL || type == Character.FORMAT || type == Character.SURROGATE
        || type == Character.PRIVATE_USE || type == Character.UNASSIGNED;
  }

  private static boolean isWhitespace(int cp) {
    // Rust's char::is_whitespace is the Unicode White_Space property.
    switch (cp) {
      case ' ': case '\t': case '\n': case 0x0B: case 0x0C: case '\r': case 0x85: case 0xA0:
      case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
        return true;
      default:
        return cp >= 0x2000 && cp <= 0x200A;
    }
  }

  private static boolean isPunctuation(int cp) {
    if (cp < 128) {
      return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96)
          || (cp >= 123 && cp <= 126);
    }
    int type = Character.getType(cp);
    return type == Character.CONNECTOR_PUNCTUATION || type == Character.DASH_PUNCTUATION
        || type == Character.START_PUNCTUATION || type == Character.END_PUNCTUATION
        || type == Character.INITIAL_QUOTE_PUNCTUATION
        || type == Character.FINAL_QUOTE_PUNCTUATION || type == Character.OTHER_PUNCTUATION;
  }

  private static boolean isCjk(int cp) {
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF)
        || (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F)
        || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF)
        || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
  }
}
