package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.core.http.StreamResponse;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.UnauthorizedException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.CompletionUsage;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official OpenAI Java SDK, unmodified, against the facade: plain and streamed chat
 * completions, the accounting headers through the SDK's raw-response API, and the gateway's
 * refusals as the SDK's typed exceptions. Every call that reached the gateway must be a ledger
 * row once the server has drained.
 */
class OpenAiSdkTest {
  private static final String MODEL = "gpt-4o-mini";

  @TempDir
  Path dir;

  private TestDatabase db;
  private FacadeServer server;
  private String key;
  private String poorKey;
  private final List<OpenAIClient> clients = new ArrayList<>();
  /** The ledger rows the calls of a test must leave, as "outcome/http status". */
  private final List<String> expectedRows = new ArrayList<>();

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    key = VirtualKeys.generate();
    poorKey = VirtualKeys.generate();
    FacadeConfig config = TestFacades.twoKeys(dir, db, key, poorKey, null);
    server = FacadeServer.start(Facade.open(config));
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      for (OpenAIClient c : clients) {
        c.close();
      }
      // The graceful close drains the journal into PostgreSQL.
      server.close();
      assertThat(ledger("SELECT outcome || '/' || http_status FROM pointsman.ledger_entries"))
          .as("one ledger row per call that reached the gateway")
          .containsExactlyInAnyOrderElementsOf(expectedRows);
    } finally {
      server.close();
      db.close();
    }
  }

  private OpenAIClient client(String apiKey) {
    // No retries: every call the test makes is exactly one HTTP request, so the ledger count
    // is exact.
    OpenAIClient c = OpenAIOkHttpClient.builder().baseUrl(server.baseUri().toString())
        .apiKey(apiKey).maxRetries(0).build();
    clients.add(c);
    return c;
  }

  private static ChatCompletionCreateParams.Builder params(String prompt, long maxTokens) {
    return ChatCompletionCreateParams.builder().model(MODEL).temperature(0.0)
        .maxCompletionTokens(maxTokens).addUserMessage(prompt);
  }

  @Test
  void plainAndStreamedCompletionsCompleteThroughTheSdk() {
    OpenAIClient client = client(key);

    // (a) A plain call, typed.
    ChatCompletion plain = client.chat().completions()
        .create(params("What is a pointsman?", 50).build());
    expectedRows.add("SUCCESS/200");
    assertThat(plain.id()).isNotBlank();
    assertThat(plain.model()).isEqualTo(MODEL);
    assertThat(plain.choices()).hasSize(1);
    String answer = plain.choices().get(0).message().content().orElseThrow();
    assertThat(answer).isNotBlank();
    CompletionUsage usage = plain.usage().orElseThrow();
    assertThat(usage.promptTokens()).isPositive();
    assertThat(usage.completionTokens()).isPositive();

    // The same, through the raw-response API: the accounting headers reach the SDK. A new
    // prompt, so that the exact cache does not answer it at no cost.
    try (HttpResponseFor<ChatCompletion> raw = client.chat().completions().withRawResponse()
        .create(params("And a railway switch?", 50).build())) {
      expectedRows.add("SUCCESS/200");
      assertThat(raw.statusCode()).isEqualTo(200);
      assertThat(raw.requestId()).hasValueSatisfying(id -> assertThat(id).isNotBlank());
      assertThat(raw.headers().values("x-pointsman-cache")).containsExactly("MISS(exact)");
      assertThat(raw.headers().values("x-pointsman-event-id")).singleElement()
          .asString().isNotBlank();
      List<String> cost = raw.headers().values("x-pointsman-cost-micros");
      assertThat(cost).hasSize(1);
      assertThat(Long.parseLong(cost.get(0))).isPositive();
      ChatCompletion parsed = raw.parse();
      assertThat(parsed.choices().get(0).message().content()).hasValueSatisfying(
          text -> assertThat(text).isNotBlank());
    }

    // (b) The first prompt streamed, with the usage chunk asked for. Streams skip the exact
    // cache, so the fixture provider answers again, the same way for the same messages.
    StringBuilder streamed = new StringBuilder();
    List<CompletionUsage> usageChunks = new ArrayList<>();
    int[] chunks = {0};
    try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions()
        .createStreaming(params("What is a pointsman?", 50)
            .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
            .build())) {
      stream.stream().forEach(chunk -> {
        chunks[0]++;
        assertThat(chunk.model()).isEqualTo(MODEL);
        for (ChatCompletionChunk.Choice choice : chunk.choices()) {
          choice.delta().content().ifPresent(streamed::append);
        }
        chunk.usage().ifPresent(usageChunks::add);
      });
    }
    expectedRows.add("SUCCESS/200");
    assertThat(chunks[0]).isGreaterThan(1);
    assertThat(streamed.toString()).isEqualTo(answer);
    assertThat(usageChunks).as("include_usage gives one usage chunk").singleElement()
        .satisfies(u -> {
          assertThat(u.promptTokens()).isEqualTo(usage.promptTokens());
          assertThat(u.completionTokens()).isEqualTo(usage.completionTokens());
        });
  }

  @Test
  void anInvalidKeyIsTheSdksUnauthorizedException() {
    OpenAIClient client = client(VirtualKeys.generate());
    UnauthorizedException e = catchThrowableOfType(UnauthorizedException.class,
        () -> client.chat().completions().create(params("hello", 50).build()));
    assertThat(e).isNotNull();
    assertThat(e.statusCode()).isEqualTo(401);
    assertThat(e.type()).hasValue("authentication_error");
    assertThat(e.code()).hasValue("invalid_api_key");
    assertThat(e.headers().values("www-authenticate")).containsExactly("Bearer");
    // Refused at authentication: without an identity there is nobody to charge, so no row.
  }

  @Test
  void aBudgetRefusalIsAServiceExceptionWithStatus402() {
    OpenAIClient client = client(poorKey);
    // The trial team's budget of 20 micro-units cannot hold the reservation of a 1,000-token
    // answer; the SDK has no class of its own for 402.
    OpenAIServiceException plain = catchThrowableOfType(OpenAIServiceException.class,
        () -> client.chat().completions().create(params("hello", 1_000).build()));
    expectedRows.add("REJECTED/402");
    assertThat(plain).isNotNull();
    assertThat(plain.statusCode()).isEqualTo(402);
    assertThat(plain.type()).hasValue("insufficient_quota");
    assertThat(plain.code()).hasValue("insufficient_quota");

    // A stream is refused before its first event, so the SDK sees the status, not a stream.
    OpenAIServiceException streamed = catchThrowableOfType(OpenAIServiceException.class,
        () -> {
          try (StreamResponse<ChatCompletionChunk> s = client.chat().completions()
              .createStreaming(params("hello", 1_000).build())) {
            s.stream().forEach(chunk -> { });
          }
        });
    expectedRows.add("REJECTED/402");
    assertThat(streamed).isNotNull();
    assertThat(streamed.statusCode()).isEqualTo(402);
  }

  private List<String> ledger(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
