package io.pointsman.provider;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Json;
import io.pointsman.spi.ChunkSink;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Shared helpers for the adapter tests. */
final class Fixtures {
  static final HttpTimeouts SHORT = new HttpTimeouts(Duration.ofSeconds(2),
      Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(20));

  private Fixtures() {}

  static ProviderException failureOf(ThrowingCallable call) {
    return org.assertj.core.api.Assertions.catchThrowableOfType(ProviderException.class, call);
  }

  static ProviderCall call(String provider, String model, ChatRequest request) {
    return new ProviderCall("req-1", "evt-1", new Deployment("d1", provider, "catalog-model",
        model, null), request, 1, null);
  }

  static ChatRequest request(String json) {
    return Json.readRequest(json);
  }

  static JsonNode tree(String json) {
    try {
      return Json.mapper().readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode tree(Object value) {
    try {
      // Through text, so numbers compare by value rather than by node type.
      return tree(Json.mapper().writeValueAsString(value));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A sink that records chunks and cancels after a given number of them. */
  static final class RecordingSink implements ChunkSink {
    final List<ChatChunk> chunks = new ArrayList<>();
    final int cancelAfter;

    RecordingSink() {
      this(Integer.MAX_VALUE);
    }

    RecordingSink(int cancelAfter) {
      this.cancelAfter = cancelAfter;
    }

    @Override
    public boolean accept(ChatChunk chunk) {
      chunks.add(chunk);
      return chunks.size() < cancelAfter;
    }

    String text() {
      StringBuilder b = new StringBuilder();
      chunks.forEach(c -> b.append(c.text()));
      return b.toString();
    }
  }
}
