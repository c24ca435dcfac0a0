package io.pointsman;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import java.util.List;

/** Structural validation of a request at entry: a 400 naming the field, never a crash. */
final class RequestValidator {
  private RequestValidator() {}

  static void validate(ChatRequest r, boolean streaming) {
    if (r.model() == null || r.model().isBlank()) {
      throw bad("model is required");
    }
    if (r.model().length() > 256) {
      throw bad("model name is longer than 256 characters");
    }
    List<Message> messages = r.messages();
    if (messages == null || messages.isEmpty()) {
      throw bad("messages must not be empty");
    }
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      if (m == null) {
        throw bad("message " + i + " is null");
      }
      if (m.role() == null) {
        throw bad("message " + i + " has no role");
      }
      if (m.content() == null) {
        boolean toolCalls = m.toolCalls() != null && !m.toolCalls().isEmpty();
        if (m.role() != Role.ASSISTANT || !toolCalls) {
          throw bad("message " + i + " (" + m.role().wireName() + ") has no content");
        }
      }
      if (m.content() instanceof Content.Parts parts) {
        if (parts.parts().isEmpty()) {
          throw bad("message " + i + " has an empty content array");
        }
        for (ContentPart part : parts.parts()) {
          if (part.type() == null) {
            throw bad("message " + i + " has a content part without a type");
          }
          if ("text".equals(part.type()) && part.text() == null) {
            throw bad("message " + i + " has a text part without text");
          }
        }
      }
      if (m.toolCalls() != null) {
        for (var call : m.toolCalls()) {
          if (call == null || call.function() == null || call.function().name() == null) {
            throw bad("message " + i + " has a tool call without a function name");
          }
        }
      }
    }
    if (r.tools() != null) {
      for (int i = 0; i < r.tools().size(); i++) {
        if (r.tools().get(i) == null || r.tools().get(i).function() == null) {
          throw bad("tool " + i + " has no function");
        }
      }
    }
    if (r.temperature() != null && !(r.temperature() >= 0 && r.temperature() <= 2)) {
      throw bad("temperature must be between 0 and 2");
    }
    if (r.topP() != null && !(r.topP() > 0 && r.topP() <= 1)) {
      throw bad("top_p must be in (0, 1]");
    }
    if (r.maxTokens() != null && r.maxTokens() < 1) {
      throw bad("max_tokens must be at least 1");
    }
    if (r.maxCompletionTokens() != null && r.maxCompletionTokens() < 1) {
      throw bad("max_completion_tokens must be at least 1");
    }
    if (r.n() != null && (r.n() < 1 || r.n() > 128)) {
      throw bad("n must be between 1 and 128");
    }
    if (r.isStream() && !streaming) {
      throw bad("stream is true: call Gateway.stream for a streamed response");
    }
  }

  private static PointsmanException bad(String message) {
    return PointsmanException.badRequest(Stages.REQUEST, message);
  }
}
