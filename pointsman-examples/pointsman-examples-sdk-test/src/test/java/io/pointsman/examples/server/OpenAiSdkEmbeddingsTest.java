package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.errors.BadRequestException;
import com.openai.errors.PermissionDeniedException;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.EmbeddingCreateParams;
import io.pointsman.catalog.Price;
import io.pointsman.provider.testing.RecordedRequest;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official OpenAI Java SDK's embeddings call against the facade, in front of an upstream
 * HTTP fixture on 127.0.0.1 that answers {@code /embeddings}, followed by the ledger rows each
 * call produced in PostgreSQL.
 */
class OpenAiSdkEmbeddingsTest {
  static final Price PRICE = new Price(20_000, 0, 0);

  @TempDir
  Path dir;

  private ContractRig rig;
  private final List<OpenAIClient> clients = new ArrayList<>();

  @AfterEach
  void tearDown() {
    clients.forEach(OpenAIClient::close);
    if (rig != null) {
      rig.close();
    }
  }

  private OpenAIClient client(String key) {
    OpenAIClient c = OpenAIOkHttpClient.builder().baseUrl(rig.baseUrl()).apiKey(key).build();
    clients.add(c);
    return c;
  }

  private List<RecordedRequest> upstreamEmbeddings() {
    return rig.upstream.requests().stream().filter(r -> r.target().endsWith("/embeddings"))
        .toList();
  }

  @Test
  void theSdksEmbeddingsCallIsAnsweredChargedAndLedgeredThenCached() throws Exception {
    rig = new ContractRig(dir);
    EmbeddingCreateParams params = EmbeddingCreateParams.builder()
        .model(ContractRig.EMBEDDING_MODEL)
        .inputOfArrayOfStrings(List.of("the points of a railway", "a signal box"))
        .encodingFormat(EmbeddingCreateParams.EncodingFormat.FLOAT)
        .build();
    HttpResponseFor<CreateEmbeddingResponse> raw = client(rig.key).embeddings()
        .withRawResponse().create(params);
    CreateEmbeddingResponse response = raw.parse();

    assertThat(response.data()).hasSize(2);
    for (int i = 0; i < 2; i++) {
      assertThat(response.data().get(i).index()).isEqualTo(i);
      List<Float> expected = new ArrayList<>();
      for (int d = 0; d < EmbeddingsUpstream.DIMENSIONS; d++) {
        expected.add(EmbeddingsUpstream.value(i, d));
      }
      assertThat(response.data().get(i).embedding()).isEqualTo(expected);
    }
    long tokens = 2L * EmbeddingsUpstream.TOKENS_PER_INPUT;
    assertThat(response.usage().promptTokens()).isEqualTo(tokens);
    assertThat(response.usage().totalTokens()).isEqualTo(tokens);
    long cost = PRICE.cost(tokens, 0, 0, 0, 0);
    assertThat(cost).isPositive();
    assertThat(raw.headers().values("x-pointsman-cost-micros"))
        .containsExactly(Long.toString(cost));
    assertThat(raw.headers().values("x-pointsman-cost-estimated")).containsExactly("false");
    assertThat(raw.headers().values("x-pointsman-deployment"))
        .containsExactly("upstream-" + ContractRig.EMBEDDING_MODEL);
    String eventId = raw.headers().values("x-pointsman-event-id").get(0);

    // What the upstream received: the SDK's request with the upstream's credential.
    assertThat(upstreamEmbeddings()).singleElement().satisfies(r -> {
      assertThat(r.header("authorization")).isEqualTo("Bearer " + ContractRig.UPSTREAM_SECRET);
      assertThat(r.bodyText()).contains("\"input\":[\"the points of a railway\","
          + "\"a signal box\"]").contains("\"encoding_format\":\"float\"");
    });

    Map<String, String> row = ledgerRow(eventId);
    assertThat(row).containsEntry("model", ContractRig.EMBEDDING_MODEL)
        .containsEntry("outcome", "SUCCESS").containsEntry("status", "SETTLED")
        .containsEntry("http_status", "200")
        .containsEntry("prompt_tokens", Long.toString(tokens))
        .containsEntry("completion_tokens", "0")
        .containsEntry("cost_micros", Long.toString(cost))
        .containsEntry("cost_estimated", "f")
        .containsEntry("deployment_id", "upstream-" + ContractRig.EMBEDDING_MODEL)
        .containsEntry("cache_outcome", "MISS")
        .containsEntry("key_id", "key-app").containsEntry("team_id", "checkout");
    assertThat(row.get("price_version")).isNotBlank();

    // The same request again: answered from the cache, at no cost, and ledgered as such.
    HttpResponseFor<CreateEmbeddingResponse> again = client(rig.key).embeddings()
        .withRawResponse().create(params);
    assertThat(again.parse().data()).hasSize(2);
    assertThat(again.headers().values("x-pointsman-cost-micros")).containsExactly("0");
    assertThat(again.headers().values("x-pointsman-cache")).containsExactly("HIT(embeddings)");
    assertThat(upstreamEmbeddings()).hasSize(1);
    Map<String, String> hit = ledgerRow(again.headers().values("x-pointsman-event-id").get(0));
    assertThat(hit).containsEntry("outcome", "CACHE_HIT").containsEntry("cost_micros", "0")
        .containsEntry("cache_outcome", "HIT").containsEntry("attempts", "0");
  }

  @Test
  void aSingleStringAndTokenInputsWithDimensionsReachTheUpstreamAsSent() throws Exception {
    rig = new ContractRig(dir);
    CreateEmbeddingResponse one = client(rig.key).embeddings().create(EmbeddingCreateParams
        .builder().model(ContractRig.EMBEDDING_MODEL).input("one text").dimensions(2)
        .encodingFormat(EmbeddingCreateParams.EncodingFormat.FLOAT).build());
    assertThat(one.data()).singleElement()
        .satisfies(e -> assertThat(e.embedding()).hasSize(2));
    CreateEmbeddingResponse tokens = client(rig.key).embeddings().create(EmbeddingCreateParams
        .builder().model(ContractRig.EMBEDDING_MODEL)
        .inputOfArrayOfTokenArrays(List.of(List.of(1L, 2L, 3L), List.of(4L)))
        .encodingFormat(EmbeddingCreateParams.EncodingFormat.FLOAT).build());
    assertThat(tokens.data()).hasSize(2);
    assertThat(upstreamEmbeddings()).hasSize(2);
    assertThat(upstreamEmbeddings().get(0).bodyText()).contains("\"dimensions\":2");
    assertThat(upstreamEmbeddings().get(1).bodyText()).contains("\"input\":[[1,2,3],[4]]");
  }

  @Test
  void refusalsAreTheSdksExceptionsAndLedgeredWithoutCost() throws Exception {
    rig = new ContractRig(dir);
    BadRequestException chatModel = catchThrowableOfType(BadRequestException.class,
        () -> client(rig.key).embeddings().create(EmbeddingCreateParams.builder()
            .model(ContractRig.MODEL).input("x").build()));
    assertThat(chatModel.code()).hasValue("unsupported_value");
    assertThat(chatModel.param()).hasValue("model");
    assertThat(chatModel.headers().values("x-pointsman-rule"))
        .containsExactly("capability:embeddings");

    BadRequestException empty = catchThrowableOfType(BadRequestException.class,
        () -> client(rig.key).embeddings().create(EmbeddingCreateParams.builder()
            .model(ContractRig.EMBEDDING_MODEL).inputOfArrayOfStrings(List.of("a", ""))
            .build()));
    assertThat(empty.type()).hasValue("invalid_request_error");
    assertThat(empty.param()).hasValue("input[1]");

    // The trial team's budget of 20 micro-units cannot hold 2,000 input tokens at the input
    // price (40 micro-units), although the upstream would have charged fewer: 402, unsent.
    com.openai.errors.UnexpectedStatusCodeException budget = catchThrowableOfType(
        com.openai.errors.UnexpectedStatusCodeException.class,
        () -> client(rig.poorKey).embeddings().create(EmbeddingCreateParams.builder()
            .model(ContractRig.EMBEDDING_MODEL).input("x".repeat(2_000)).build()));
    assertThat(budget.statusCode()).isEqualTo(402);
    assertThat(budget.code()).hasValue("insufficient_quota");
    assertThat(PRICE.cost(2_000, 0, 0, 0, 0)).isEqualTo(40);
    Map<String, String> refusedForBudget = ledgerRow(
        budget.headers().values("x-request-id").get(0), "request_id");
    assertThat(refusedForBudget).containsEntry("outcome", "REJECTED")
        .containsEntry("http_status", "402").containsEntry("cost_micros", "0")
        .containsEntry("decided_by", "ratelimit.reserve");

    PermissionDeniedException denied = catchThrowableOfType(PermissionDeniedException.class,
        () -> client(rig.limitedKey).embeddings().create(EmbeddingCreateParams.builder()
            .model(ContractRig.EMBEDDING_MODEL).input("x").build()));
    assertThat(denied.code()).hasValue("model_not_allowed");
    assertThat(upstreamEmbeddings()).isEmpty();

    Map<String, String> row = ledgerRow(chatModel.headers().values("x-request-id").get(0),
        "request_id");
    assertThat(row).containsEntry("outcome", "REJECTED").containsEntry("http_status", "400")
        .containsEntry("rule", "capability:embeddings").containsEntry("cost_micros", "0")
        .containsEntry("attempts", "0");
  }

  private Map<String, String> ledgerRow(String eventId) throws Exception {
    return ledgerRow(eventId, "event_id");
  }

  /** Waits for the journal to settle the call's row into PostgreSQL, then reads it. */
  private Map<String, String> ledgerRow(String id, String column) throws Exception {
    long deadline = System.nanoTime() + 15_000_000_000L;
    while (true) {
      try (Connection c = rig.db.connect(); PreparedStatement s = c.prepareStatement(
          "SELECT * FROM pointsman.ledger_entries WHERE " + column + " = ?")) {
        s.setString(1, id);
        try (ResultSet rs = s.executeQuery()) {
          if (rs.next()) {
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
              row.put(rs.getMetaData().getColumnName(i), rs.getString(i));
            }
            return row;
          }
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no ledger row with " + column + " " + id);
      }
      Thread.sleep(50);
    }
  }
}
