package io.pointsman.langchain4j;

import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import io.pointsman.CallOptions;
import io.pointsman.Gateway;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/** What both models are built with; immutable once built. */
final class Settings {
  final Gateway gateway;
  final CallerKeys keys;
  final String defaultModel;
  final PointsmanChatRequestParameters defaults;
  final boolean strictJsonSchema;
  final Duration timeout;
  final Set<String> tags;
  final List<ChatModelListener> listeners;

  private Settings(Mutable m) {
    if (m.keys == null) {
      throw new IllegalStateException("set keys(CallerKeys) or virtualKey(String)");
    }
    this.gateway = m.gateway;
    this.keys = m.keys;
    this.defaultModel = m.defaultModel;
    PointsmanChatRequestParameters.Builder d = PointsmanChatRequestParameters.builder()
        .overrideWith(m.defaults);
    if (m.defaultModel != null) {
      d.modelName(m.defaultModel);
    }
    this.defaults = d.build();
    this.strictJsonSchema = m.strictJsonSchema;
    this.timeout = m.timeout;
    this.tags = Set.copyOf(new LinkedHashSet<>(m.tags));
    this.listeners = List.copyOf(m.listeners);
    // Fail at build time, not on the first call, for a tag the gateway would refuse.
    CallOptions.Builder probe = CallOptions.builder("probe");
    this.tags.forEach(probe::tag);
  }

  /** The call's options: the request's own key, else the supplier's. */
  CallOptions options(ChatRequest request) {
    String key = null;
    if (request.parameters() instanceof PointsmanChatRequestParameters p) {
      key = p.virtualKey();
    }
    if (key == null) {
      key = keys.keyFor(request);
      if (key == null) {
        throw new dev.langchain4j.exception.AuthenticationException(
            "the CallerKeys supplier returned no virtual key for this call");
      }
    }
    if (timeout == null && tags.isEmpty()) {
      return CallOptions.of(key);
    }
    CallOptions.Builder b = CallOptions.builder(key);
    if (timeout != null) {
      b.timeout(timeout);
    }
    tags.forEach(b::tag);
    return b.build();
  }

  /** The mutable half, held by each public builder. */
  static final class Mutable {
    final Gateway gateway;
    CallerKeys keys;
    String defaultModel;
    ChatRequestParameters defaults;
    boolean strictJsonSchema;
    Duration timeout;
    final List<String> tags = new ArrayList<>();
    final List<ChatModelListener> listeners = new ArrayList<>();

    Mutable(Gateway gateway) {
      this.gateway = Objects.requireNonNull(gateway, "gateway");
    }

    Settings build() {
      return new Settings(this);
    }
  }
}
