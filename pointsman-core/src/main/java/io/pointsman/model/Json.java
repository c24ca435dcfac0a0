package io.pointsman.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
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
      T value = MAPPER.readValue(json, type);
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
    return PointsmanException.badRequest(Stages.REQUEST, "invalid JSON" + where
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
