package io.pointsman.catalog;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.model.ToolCall;
import java.util.function.ToLongFunction;

/**
 * Input token bounds for admission and the context check, without tokenizing on the hot path.
 *
 * <p>A byte-level BPE never yields more tokens than a text has UTF-8 bytes, so the byte length
 * of every text field, plus a per-message allowance for the chat format, is a safe upper bound
 * of a prompt's tokens. Images are not bounded by their bytes: each image part adds the model's
 * per-image bound ({@link ModelSpec#imageTokens()}, {@link ModelSpec#DEFAULT_IMAGE_TOKENS} in
 * the forms without a spec). Parts the model does not name (audio, files) add the same bound
 * plus their JSON length, and unnamed fields their JSON length.
 * {@link #exact} counts with the o200k BPE (jtokkit) when the bound is not enough.
 * Thread-safe.
 */
public final class TokenBounds {
  /** Tokens the chat format adds per message (role and separators), as an upper bound. */
  public static final int PER_MESSAGE = 4;
  /** Tokens the chat format adds per prompt (reply priming). */
  public static final int PER_PROMPT = 3;
  /**
   * Allowance for one image part when no model says otherwise: {@link
   * ModelSpec#DEFAULT_IMAGE_TOKENS}.
   */
  public static final long PER_IMAGE = ModelSpec.DEFAULT_IMAGE_TOKENS;

  private TokenBounds() {}

  /**
   * Returns an upper bound of the prompt's tokens, computed from UTF-8 byte lengths.
   *
   * @param request the request
   * @return the bound
   */
  public static long upperBound(ChatRequest request) {
    return upperBound(request, PER_IMAGE);
  }

  /**
   * Returns an upper bound of the prompt's tokens for a model whose image parts cost at most
   * {@code imageTokens} each, computed from UTF-8 byte lengths.
   *
   * @param request the request
   * @param imageTokens the bound of one image part
   * @return the bound
   */
  public static long upperBound(ChatRequest request, long imageTokens) {
    return measure(request, TokenBounds::utf8Length, imageTokens);
  }

  /**
   * Counts the prompt's tokens with the o200k BPE: text exactly, the chat format, images and
   * unnamed fields by the same allowances as {@link #upperBound}. Slower: use only when the
   * bound is not enough.
   *
   * @param request the request
   * @return the count
   */
  public static long exact(ChatRequest request) {
    return exact(request, PER_IMAGE);
  }

  /**
   * Counts the prompt's tokens with the o200k BPE, image parts at {@code imageTokens} each (see
   * {@link #exact(ChatRequest)}).
   *
   * @param request the request
   * @param imageTokens the bound of one image part
   * @return the count
   */
  public static long exact(ChatRequest request, long imageTokens) {
    Encoding enc = Holder.ENCODING;
    return measure(request, text -> count(enc, text), imageTokens);
  }

  /**
   * Walks every field of the prompt that reaches the model: texts are measured by
   * {@code text} (bytes for the bound, tokens for the exact count); the chat format, images
   * and unnamed fields get the same allowances either way.
   */
  private static long measure(ChatRequest request, ToLongFunction<String> text,
      long imageTokens) {
    long total = PER_PROMPT;
    for (Message m : request.messages()) {
      total += PER_MESSAGE + text.applyAsLong(m.name());
      total += content(m.content(), text, imageTokens);
      if (m.toolCalls() != null) {
        for (ToolCall call : m.toolCalls()) {
          total += PER_MESSAGE + text.applyAsLong(call.id());
          if (call.function() != null) {
            total += text.applyAsLong(call.function().name())
                + text.applyAsLong(call.function().arguments());
          }
        }
      }
      total += text.applyAsLong(m.toolCallId()) + extras(m.extra());
    }
    if (request.tools() != null && !request.tools().isEmpty()) {
      total += text.applyAsLong(Json.write(request.tools()));
    }
    if (request.responseFormat() != null) {
      total += text.applyAsLong(Json.write(request.responseFormat()));
    }
    return total;
  }

  private static long content(Content content, ToLongFunction<String> text,
      long imageTokens) {
    if (content == null) {
      return 0;
    }
    if (content instanceof Content.Text t) {
      return text.applyAsLong(t.text());
    }
    long total = 0;
    for (ContentPart part : ((Content.Parts) content).parts()) {
      if ("text".equals(part.type())) {
        total += text.applyAsLong(part.text());
      } else if ("image_url".equals(part.type())) {
        total += imageTokens;
      } else {
        // Audio, files and parts unknown to the model are bounded by their JSON, not by tokens.
        total += imageTokens + Json.writeBytes(part).length;
      }
      total += extras(part.extra());
    }
    return total;
  }

  private static long extras(java.util.Map<String, ?> extra) {
    return extra.isEmpty() ? 0 : Json.writeBytes(extra).length;
  }

  /**
   * Counts the tokens of a text with the o200k BPE.
   *
   * @param text the text, or null
   * @return the count, zero for null
   */
  public static long count(String text) {
    return count(Holder.ENCODING, text);
  }

  private static long count(Encoding enc, String text) {
    return text == null || text.isEmpty() ? 0 : enc.countTokensOrdinary(text);
  }

  /**
   * Returns the UTF-8 length of a string as the JDK's encoder produces it (an unpaired
   * surrogate becomes one replacement byte; the default input guardrail refuses such text).
   * Long strings are measured with the JDK's vectorized encoder, which is about twice as fast
   * as a character loop on ASCII text; short ones without allocating.
   *
   * @param s the string, or null
   * @return the length in bytes, zero for null
   */
  public static long utf8Length(String s) {
    if (s == null) {
      return 0;
    }
    if (s.length() >= 256) {
      return s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }
    long n = 0;
    int len = s.length();
    for (int i = 0; i < len; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < len
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        n += 1;
      } else {
        n += 3;
      }
    }
    return n;
  }

  private static final class Holder {
    static final Encoding ENCODING =
        Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
  }
}
