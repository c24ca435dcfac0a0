package io.pointsman.examples.spring;

import io.pointsman.springai.PointsmanChatModel;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /ask}: one question to the model through Spring AI's {@link ChatClient}. */
@RestController
class AskController {
  private final ChatClient chat;

  AskController(ChatClient chat) {
    this.chat = chat;
  }

  /** The question. */
  record Question(String question) {}

  /** The answer and what the gateway charged for it. */
  record Answer(String answer, Object costMicros, Object deployment, Object cache,
      Object eventId) {}

  @PostMapping("/ask")
  Answer ask(@RequestBody Question question) {
    ChatResponse r = chat.prompt().user(question.question()).call().chatResponse();
    var meta = r.getMetadata();
    return new Answer(r.getResult().getOutput().getText(),
        meta.get(PointsmanChatModel.METADATA_COST_MICROS),
        meta.get(PointsmanChatModel.METADATA_DEPLOYMENT),
        meta.get(PointsmanChatModel.METADATA_CACHE_STATUS),
        meta.get(PointsmanChatModel.METADATA_EVENT_ID));
  }
}
