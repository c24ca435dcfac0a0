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
import com.fasterxml.jackson.databind.type.TypeFactory;
import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * The content of a message: either a plain string or a list of typed parts (text, images,
 * audio, files). On the wire it is a JSON string or a JSON array.
 */
@JsonSerialize(using = Content.Writer.class)
@JsonDeserialize(using = Content.Reader.class)
public sealed interface Content permits Content.Text, Content.Parts {

  /**
   * Returns plain text content.
   *
   * @param text the text
   * @return the content
   */
  static Content text(String text) {
    return new Text(text);
  }

  /**
   * Returns multi-part content.
   *
   * @param parts the parts, in order
   * @return the content
   */
  static Content parts(List<ContentPart> parts) {
    return new Parts(parts);
  }

  /**
   * Returns the concatenated text of this content (text parts only, separated by newlines).
   *
   * @return the text, empty when there is none
   */
  String asText();

  /**
   * Plain string content.
   *
   * @param text the text
   */
  record Text(String text) implements Content {
    /**
     * Creates plain text content.
     *
     * @param text the text
     * @throws NullPointerException if text is null
     */
    public Text {
      Objects.requireNonNull(text, "text");
    }

    @Override
    public String asText() {
      return text;
    }
  }

  /**
   * Multi-part content.
   *
   * @param parts the parts, in order
   */
  record Parts(List<ContentPart> parts) implements Content {
    /**
     * Creates multi-part content.
     *
     * @param parts the parts, in order
     * @throws NullPointerException if parts or any part is null
     */
    public Parts {
      parts = List.copyOf(parts);
    }

    @Override
    public String asText() {
      StringBuilder out = new StringBuilder();
      for (ContentPart part : parts) {
        if (part.text() != null) {
          if (out.length() > 0) {
            out.append('\n');
          }
          out.append(part.text());
        }
      }
      return out.toString();
    }
  }

  /** Writes content as a JSON string or array. */
  final class Writer extends JsonSerializer<Content> {
    /** Creates the serializer; Jackson does, through {@code @JsonSerialize}. */
    public Writer() {}

    @Override
    public void serialize(Content value, JsonGenerator gen, SerializerProvider serializers)
        throws IOException {
      if (value instanceof Text text) {
        Json.writeString(gen, text.text());
      } else {
        serializers.findValueSerializer(
                serializers.getTypeFactory().constructCollectionType(List.class, ContentPart.class))
            .serialize(((Parts) value).parts(), gen, serializers);
      }
    }
  }

  /** Reads content from a JSON string or array. */
  final class Reader extends JsonDeserializer<Content> {
    /** Creates the deserializer; Jackson does, through {@code @JsonDeserialize}. */
    public Reader() {}

    @Override
    public Content deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      JsonToken token = p.currentToken();
      if (token == JsonToken.VALUE_STRING) {
        return new Text(p.getText());
      }
      if (token == JsonToken.START_ARRAY) {
        List<ContentPart> parts = ctxt.readValue(p,
            TypeFactory.defaultInstance().constructCollectionType(List.class, ContentPart.class));
        for (ContentPart part : parts) {
          if (part == null) {
            return (Content) ctxt.handleUnexpectedToken(Content.class, p);
          }
        }
        return new Parts(parts);
      }
      return (Content) ctxt.handleUnexpectedToken(Content.class, p);
    }
  }
}
