package io.pointsman.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/**
 * One embedding vector as the wire carries it: an array of floats
 * ({@code encoding_format: "float"}) or a base64 string of little-endian 32-bit floats
 * ({@code "base64"}). Kept as a {@code float[]} or the string, never as a JSON tree, so that a
 * vector of 3,072 floats costs 12 KiB. Immutable.
 */
@JsonSerialize(using = EmbeddingVector.Writer.class)
@JsonDeserialize(using = EmbeddingVector.Reader.class)
public final class EmbeddingVector {
  private final float[] floats;
  private final String base64;

  private EmbeddingVector(float[] floats, String base64) {
    this.floats = floats;
    this.base64 = base64;
  }

  /**
   * A vector carried as floats.
   *
   * @param values the floats (copied)
   * @return the vector
   * @throws NullPointerException if values is null
   */
  public static EmbeddingVector ofFloats(float... values) {
    return new EmbeddingVector(Objects.requireNonNull(values, "values").clone(), null);
  }

  /**
   * A vector carried as base64 of little-endian 32-bit floats.
   *
   * @param value the base64 text
   * @return the vector
   * @throws NullPointerException if value is null
   * @throws IllegalArgumentException if value is not base64 of a whole number of floats
   */
  public static EmbeddingVector ofBase64(String value) {
    Objects.requireNonNull(value, "value");
    byte[] bytes = Base64.getDecoder().decode(value);
    if (bytes.length % Float.BYTES != 0) {
      throw new IllegalArgumentException("base64 embedding of " + bytes.length
          + " bytes is not a whole number of floats");
    }
    return new EmbeddingVector(null, value);
  }

  /**
   * Returns whether the vector is carried as base64.
   *
   * @return true for base64
   */
  public boolean isBase64() {
    return base64 != null;
  }

  /**
   * Returns the base64 text, or {@code null} when the vector is carried as floats.
   *
   * @return the text
   */
  public String base64() {
    return base64;
  }

  /**
   * Returns the floats, decoding base64 when that is how the vector is carried.
   *
   * @return a copy of the floats
   */
  public float[] floats() {
    if (floats != null) {
      return floats.clone();
    }
    ByteBuffer b = ByteBuffer.wrap(Base64.getDecoder().decode(base64))
        .order(ByteOrder.LITTLE_ENDIAN);
    float[] out = new float[b.remaining() / Float.BYTES];
    b.asFloatBuffer().get(out);
    return out;
  }

  /**
   * Returns the number of dimensions.
   *
   * @return the length
   */
  public int dimensions() {
    return floats != null ? floats.length
        : Base64.getDecoder().decode(base64).length / Float.BYTES;
  }

  /**
   * Returns the same vector carried as base64 of little-endian 32-bit floats.
   *
   * @return the vector
   */
  public EmbeddingVector toBase64() {
    if (base64 != null) {
      return this;
    }
    ByteBuffer b = ByteBuffer.allocate(floats.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(floats);
    return new EmbeddingVector(null, Base64.getEncoder().encodeToString(b.array()));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EmbeddingVector v && Arrays.equals(floats, v.floats)
        && Objects.equals(base64, v.base64);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(floats) + Objects.hashCode(base64);
  }

  @Override
  public String toString() {
    return "EmbeddingVector(" + dimensions() + (base64 != null ? ", base64)" : ")");
  }

  /** Writes the vector as the wire carries it. */
  static final class Writer extends JsonSerializer<EmbeddingVector> {
    @Override
    public void serialize(EmbeddingVector v, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      if (v.base64 != null) {
        gen.writeString(v.base64);
        return;
      }
      gen.writeStartArray(v.floats, v.floats.length);
      for (float f : v.floats) {
        gen.writeNumber(f);
      }
      gen.writeEndArray();
    }
  }

  /** Reads an array of numbers or a base64 string, without building a tree. */
  static final class Reader extends JsonDeserializer<EmbeddingVector> {
    @Override
    public EmbeddingVector deserialize(JsonParser p, DeserializationContext ctxt)
        throws IOException {
      JsonToken t = p.currentToken();
      if (t == JsonToken.VALUE_STRING) {
        try {
          return ofBase64(p.getText());
        } catch (IllegalArgumentException e) {
          return (EmbeddingVector) ctxt.handleWeirdStringValue(EmbeddingVector.class,
              p.getText(), "not base64 of 32-bit floats");
        }
      }
      if (t != JsonToken.START_ARRAY) {
        return (EmbeddingVector) ctxt.handleUnexpectedToken(EmbeddingVector.class, p);
      }
      float[] buf = new float[256];
      int n = 0;
      for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
        if (e != JsonToken.VALUE_NUMBER_FLOAT && e != JsonToken.VALUE_NUMBER_INT) {
          return (EmbeddingVector) ctxt.handleUnexpectedToken(Float.class, p);
        }
        if (n == buf.length) {
          buf = Arrays.copyOf(buf, n * 2);
        }
        buf[n++] = p.getFloatValue();
      }
      return new EmbeddingVector(Arrays.copyOf(buf, n), null);
    }
  }
}
