package io.pointsman.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.json.UTF8JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads and writes the OpenAI JSON model with one shared, configured Jackson mapper.
 *
 * <p>Every read failure (invalid JSON, wrong types, unknown roles, documents past the parser's
 * bounds) becomes a {@link PointsmanException} with status 400 and stage {@code "request"},
 * whose message names the problem and its JSON path but never echoes the document. Thread-safe.
 */
public final class Json {
  /** Largest JSON document the readers accept, in bytes. */
  public static final int MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;
  /** Deepest nesting the readers accept. */
  public static final int MAX_NESTING_DEPTH = 256;

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  static {
    MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
        .maxDocumentLength(MAX_DOCUMENT_BYTES)
        .maxNestingDepth(MAX_NESTING_DEPTH)
        .maxStringLength(MAX_DOCUMENT_BYTES)
        .build());
  }

  private static final ObjectMapper CANONICAL = JsonMapper.builder()
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .build();

  /**
   * A reader per type, made once: {@code MAPPER.readValue(bytes, type)} resolves the type
   * anew on every call, which was a twentieth of the time spent decoding stream chunks.
   */
  private static final ClassValue<ObjectReader> READERS = new ClassValue<>() {
    @Override
    protected ObjectReader computeValue(Class<?> type) {
      return MAPPER.readerFor(type);
    }
  };

  private Json() {}

  /**
   * Returns the shared mapper. Do not reconfigure it.
   *
   * @return the mapper
   */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Reads a request.
   *
   * @param json UTF-8 JSON
   * @return the request
   * @throws PointsmanException with status 400 when the JSON is invalid or of the wrong shape
   * @throws NullPointerException if json is null
   */
  public static ChatRequest readRequest(byte[] json) {
    return read(json, ChatRequest.class);
  }

  /**
   * Reads a request.
   *
   * @param json JSON text
   * @return the request
   * @throws PointsmanException with status 400 when the JSON is invalid or of the wrong shape
   * @throws NullPointerException if json is null
   */
  public static ChatRequest readRequest(String json) {
    return read(json.getBytes(StandardCharsets.UTF_8), ChatRequest.class);
  }

  /**
   * Reads a response.
   *
   * @param json UTF-8 JSON
   * @return the response
   * @throws PointsmanException with status 400 when the JSON is invalid or of the wrong shape
   */
  public static ChatResponse readResponse(byte[] json) {
    return read(json, ChatResponse.class);
  }

  /**
   * Reads a stream chunk.
   *
   * @param json UTF-8 JSON
   * @return the chunk
   * @throws PointsmanException with status 400 when the JSON is invalid or of the wrong shape
   */
  public static ChatChunk readChunk(byte[] json) {
    return read(json, ChatChunk.class);
  }

  /**
   * Reads any model type.
   *
   * @param <T> the type
   * @param json UTF-8 JSON
   * @param type the class to read
   * @return the value
   * @throws PointsmanException with status 400 when the JSON is invalid or of the wrong shape
   */
  public static <T> T read(byte[] json, Class<T> type) {
    if (json.length == 0) {
      throw PointsmanException.badRequest(Stages.REQUEST, "empty JSON document");
    }
    try {
      T value = READERS.get(type).readValue(json);
      if (value == null) {
        throw PointsmanException.badRequest(Stages.REQUEST,
            "JSON document is null, expected an object");
      }
      return value;
    } catch (JsonProcessingException e) {
      throw translate(e);
    } catch (IOException e) {
      // Reading from memory cannot fail for I/O reasons: this is undecodable input, for
      // example bytes that look like an unsupported UCS-4 encoding.
      throw PointsmanException.badRequest(Stages.REQUEST, "undecodable JSON document: "
          + e.getClass().getSimpleName());
    }
  }

  private static PointsmanException translate(JsonProcessingException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof PointsmanException pe) {
        return pe;
      }
    }
    String path = e instanceof com.fasterxml.jackson.databind.JsonMappingException jme
        ? jme.getPathReference() : null;
    String detail = e.getOriginalMessage();
    if (detail == null) {
      detail = e.getClass().getSimpleName();
    }
    // Keep only the first line: Jackson's later lines can quote the document.
    int newline = detail.indexOf('\n');
    if (newline >= 0) {
      detail = detail.substring(0, newline);
    }
    if (detail.length() > 200) {
      detail = detail.substring(0, 200) + "…";
    }
    var location = e.getLocation();
    String where = location == null ? "" : " at line " + location.getLineNr() + " column "
        + location.getColumnNr();
    return PointsmanException.denied(Status.BAD_REQUEST, Stages.REQUEST,
        PointsmanException.INVALID_JSON_RULE, "invalid JSON" + where
        + (path == null || path.isEmpty() ? "" : " (" + path + ")") + ": " + detail);
  }

  /**
   * Writes a value as UTF-8 JSON.
   *
   * @param value a model value
   * @return the JSON bytes
   */
  public static byte[] writeBytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + value.getClass().getName(), e);
    }
  }

  /**
   * Writes a value as JSON text.
   *
   * @param value a model value
   * @return the JSON text
   */
  public static String write(Object value) {
    return new String(writeBytes(value), StandardCharsets.UTF_8);
  }

  /**
   * Writes a value as canonical JSON: object keys sorted at every level, no whitespace. Two
   * values that differ only in key order or formatting give the same bytes.
   *
   * @param value a model value or a {@link JsonNode}
   * @return the canonical UTF-8 bytes
   */
  public static byte[] canonicalBytes(Object value) {
    JsonNode tree = value instanceof JsonNode node ? node : MAPPER.valueToTree(value);
    try {
      return MAPPER.writeValueAsBytes(sorted(tree));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write canonical JSON", e);
    }
  }

  /**
   * Streams a model value's canonical form into a sink, for hashing without building a tree:
   * record fields in declaration order, map entries and JSON object fields sorted by key.
   * Gives the same bytes for two values that differ only in the order of their unnamed or
   * free-form fields.
   *
   * @param value a model value
   * @param sink where the bytes go, for example a {@link java.security.DigestOutputStream}
   */
  public static void writeCanonical(Object value, OutputStream sink) {
    try {
      CANONICAL.writeValue(sink, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Strings at least this long are checked for {@link #writeString}'s fast path. */
  private static final int FAST_STRING_MIN = 256;
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * Writes a string value exactly as {@code gen.writeString(s)} would, faster for long plain
   * ASCII text. Jackson checks and copies a string char by char (33 µs for a 32 KiB prompt on
   * the 2-core benchmark machine). ASCII without control characters, quotes or backslashes needs
   * no escaping: that is checked eight bytes at a time, and such a string is written as raw
   * UTF-8 between quotes, the same bytes. Other strings, and generators other than the UTF-8
   * ones of this class's two mappers with their default escaping, go through Jackson.
   */
  static void writeString(JsonGenerator gen, String s) throws IOException {
    if (s.length() >= FAST_STRING_MIN && gen instanceof UTF8JsonGenerator
        && (gen.getCodec() == MAPPER || gen.getCodec() == CANONICAL)
        && gen.getCharacterEscapes() == null
        && !gen.isEnabled(JsonWriteFeature.ESCAPE_FORWARD_SLASHES.mappedFeature())) {
      byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
      // As many bytes as chars: every char was ASCII, or an unpaired surrogate that the
      // encoder replaced with '?', which plain() rules out.
      if (bytes.length == s.length() && plain(bytes, s)) {
        gen.writeRawUTF8String(bytes, 0, bytes.length);
        return;
      }
    }
    gen.writeString(s);
  }

  /**
   * Whether ASCII bytes, one per char of {@code s}, need no JSON escaping: no byte below 0x20,
   * no quote, no backslash, and every '?' a real one.
   */
  static boolean plain(byte[] b, String s) {
    int n = b.length;
    int i = 0;
    for (; i + 8 <= n; i += 8) {
      long x = (long) LONGS.get(b, i);
      // Exact for bytes below 0x80: a lane below 0x20 borrows into its own high bit, and no
      // lane borrows unless one is below 0x20.
      long control = (x - 0x2020202020202020L) & ~x & HIGHS;
      if ((control | zeroLane(x ^ 0x2222222222222222L) | zeroLane(x ^ 0x5C5C5C5C5C5C5C5CL))
          != 0) {
        return false;
      }
      if (zeroLane(x ^ 0x3F3F3F3F3F3F3F3FL) != 0 && !realQuestionMarks(b, s, i, i + 8)) {
        return false;
      }
    }
    for (; i < n; i++) {
      byte c = b[i];
      if (c < 0x20 || c == '"' || c == '\\') {
        return false;
      }
    }
    return realQuestionMarks(b, s, n - n % 8, n);
  }

  /** Nonzero when some byte lane of v is zero (exact as a test of existence). */
  private static long zeroLane(long v) {
    return (v - ONES) & ~v & HIGHS;
  }

  private static boolean realQuestionMarks(byte[] b, String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] == '?' && s.charAt(i) != '?') {
        return false;
      }
    }
    return true;
  }

  private static JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      TreeMap<String, JsonNode> fields = new TreeMap<>();
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        fields.put(e.getKey(), sorted(e.getValue()));
      }
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      fields.forEach(out::set);
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      node.forEach(child -> out.add(sorted(child)));
      return out;
    }
    return node;
  }

  /**
   * Returns an immutable, order-preserving copy of an extra-fields map; never null.
   *
   * @param extra the map, or null
   * @return the copy
   */
  static Map<String, JsonNode> extras(Map<String, JsonNode> extra) {
    if (extra == null || extra.isEmpty()) {
      return Map.of();
    }
    return Collections.unmodifiableMap(new LinkedHashMap<>(extra));
  }

  /** An immutable copy that keeps null elements, so validation can name them. */
  static <T> List<T> listAllowingNulls(List<T> list) {
    return Collections.unmodifiableList(new ArrayList<>(list));
  }

  /**
   * Quotes a short, sanitized excerpt of an untrusted value for an error message.
   *
   * @param value the value
   * @return the excerpt in single quotes, control characters escaped, at most 40 characters
   */
  public static String quoteForMessage(String value) {
    StringBuilder out = new StringBuilder("'");
    int limit = Math.min(value.length(), 40);
    for (int i = 0; i < limit; i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    if (value.length() > limit) {
      out.append('…');
    }
    return out.append('\'').toString();
  }
}
