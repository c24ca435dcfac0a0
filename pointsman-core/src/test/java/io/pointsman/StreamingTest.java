package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.catalog.TokenBounds;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.StreamOptions;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamingTest {
  private static final String TEXT = "The quick brown fox jumps over the lazy dog again and again.";

  private static TestRig rig(boolean reportUsage) {
    return new TestRig(FixtureProvider.builder().reply(r -> TEXT).streamChunks(6)
        .reportUsage(reportUsage).build(), 1_000_000_000L);
  }

  private static ChatRequest streamed(boolean includeUsage) {
    ChatRequest.Builder b = TestRig.request("tell me").toBuilder().stream(true);
    if (includeUsage) {
      b.streamOptions(new StreamOptions(true, null));
    }
    return b.build();
  }

  @Test
  void deliversChunksInOrderThenReturnsAfterTheRecordIsDurable() {
    TestRig rig = rig(true);
    Gateway gateway = rig.builder().build();
    List<String> pieces = new ArrayList<>();
    List<Integer> recordsSeenDuringStream = new ArrayList<>();

    ChatResult result = gateway.stream(streamed(true), CallOptions.of(TestRig.KEY), chunk -> {
      pieces.add(chunk.text());
      recordsSeenDuringStream.add(rig.accounting.records().size());
    });

    assertThat(String.join("", pieces)).isEqualTo(TEXT);
    assertThat(recordsSeenDuringStream).allMatch(n -> n == 0);
    assertThat(rig.accounting.records()).hasSize(1);
    assertThat(result.response().firstText()).isEqualTo(TEXT);
    assertThat(result.costEstimated()).isFalse();
    assertThat(result.cacheStatus()).isEqualTo(CacheStatus.skipped("stream"));
    assertThat(result.timeToFirstTokenNanos()).isPositive()
        .isLessThanOrEqualTo(result.timings().nanos(Stages.TOTAL));
    assertThat(result.usage()).isEqualTo(FixtureProvider.usageFor(
        streamed(true).withModel("gpt-test"), TEXT));
  }

  @Test
  void aStreamWithoutUsageSettlesFullInputPlusCountedOutputFlaggedEstimated() {
    TestRig rig = rig(false);
    ChatResult result = rig.builder().build().stream(streamed(false),
        CallOptions.of(TestRig.KEY), chunk -> {});
    UsageRecord record = rig.accounting.records().get(0);
    assertThat(record.costEstimated()).isTrue();
    assertThat(record.usage().completionTokens()).isEqualTo(TokenBounds.count(TEXT));
    assertThat(record.usage().promptTokens())
        .as("the full input bound used at admission")
        .isEqualTo(TokenBounds.upperBound(streamed(false)));
    assertThat(result.costMicros()).isPositive();
  }

  @Test
  void cancellingMidStreamStopsTheProviderAndChargesWhatWasStreamed() {
    TestRig rig = rig(true);
    List<String> pieces = new ArrayList<>();
    ChatResult result = rig.builder().build().stream(streamed(true),
        CallOptions.of(TestRig.KEY), new StreamObserver() {
          private StreamControl control;

          @Override
          public void onStart(StreamControl c) {
            this.control = c;
          }

          @Override
          public void onChunk(ChatChunk chunk) {
            pieces.add(chunk.text());
            if (pieces.size() == 2) {
              control.cancel();
            }
          }
        });

    assertThat(pieces).hasSize(2);
    assertThat(result.outcome()).isEqualTo(UsageOutcome.CANCELLED);
    assertThat(result.costEstimated()).isTrue();
    String streamed = String.join("", pieces);
    assertThat(result.usage().completionTokens()).isEqualTo(TokenBounds.count(streamed));
    assertThat(rig.accounting.records().get(0).outcome()).isEqualTo(UsageOutcome.CANCELLED);
    assertThat(rig.limiter.ends(result.eventId())).isEqualTo(1);
  }

  @Test
  void aThrowingObserverFailsTheCallButItIsStillAccounted() {
    TestRig rig = rig(true);
    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> rig.builder().build().stream(streamed(true), CallOptions.of(TestRig.KEY),
            chunk -> {
              throw new IllegalStateException("client went away");
            }));
    assertThat(e.stage()).isEqualTo("stream.observer");
    assertThat(rig.accounting.records()).hasSize(1);
    assertThat(rig.accounting.records().get(0).costMicros()).isPositive();
  }

  @Test
  void aFailureBeforeTheFirstChunkIsRetriedButNotAfter() {
    TestRig rig = rig(true);
    rig.fixture.failNext(ProviderException.answered(503, "busy", null));
    List<String> pieces = new ArrayList<>();
    ChatResult result = rig.builder().build().stream(streamed(true),
        CallOptions.of(TestRig.KEY), chunk -> pieces.add(chunk.text()));
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(String.join("", pieces)).isEqualTo(TEXT);
  }
}
