package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.spi.Deployment;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ResolvedModel;
import io.pointsman.spi.UsageOutcome;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class CallListenerTest {
  private final TestRig rig = new TestRig();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final List<CallListener.CallEnd> ends = new CopyOnWriteArrayList<>();

  private final class Recording implements CallListener {
    @Override
    public void identified(Identity identity) {
      events.add("identified " + identity.keyId());
    }

    @Override
    public void modelResolved(ResolvedModel model) {
      events.add("model " + model.name());
    }

    @Override
    public void stageEnd(String stage, long nanos) {
      assertThat(nanos).isNotNegative();
      events.add("stage " + stage);
    }

    @Override
    public void cacheOutcome(CacheStatus status) {
      events.add("cache " + status.outcome());
    }

    @Override
    public void guardrailOutcome(String stage, PointsmanException denial) {
      events.add("guardrail " + stage + (denial == null ? " passed" : " denied"));
    }

    @Override
    public void attemptStart(Deployment deployment, int attempt) {
      events.add("attempt " + attempt + " " + deployment.id());
    }

    @Override
    public void attemptEnd(Deployment deployment, int attempt, ProviderException failure,
        long nanos) {
      events.add("attempt end " + attempt + (failure == null ? " ok" : " failed"));
    }

    @Override
    public void firstChunk(long nanosSinceStart) {
      events.add("first chunk");
    }

    @Override
    public void callEnd(CallEnd end) {
      events.add("end");
      ends.add(end);
    }
  }

  @Test
  void aPlainCallReportsEveryStageAttemptAndItsEndWithTheUsageRecord() {
    Gateway gateway = rig.builder().listener(start -> new Recording()).build();

    ChatResult result = gateway.chat(TestRig.request("hello"), CallOptions.of(TestRig.KEY));

    assertThat(events).containsExactly("stage identity.auth", "identified k1",
        "stage model.resolve", "model gpt-test", "stage ratelimit.reserve",
        "stage guardrail.input", "guardrail guardrail.input passed", "stage cache.lookup",
        "cache MISS", "stage router.select", "attempt 1 fixture-gpt", "attempt end 1 ok",
        "stage provider.attempt", "stage guardrail.output",
        "guardrail guardrail.output passed", "stage ledger.write", "end");
    CallListener.CallEnd end = ends.get(0);
    assertThat(end.record()).isEqualTo(rig.accounting.records().get(0));
    assertThat(end.record().costMicros()).isEqualTo(result.costMicros());
    assertThat(end.response()).isSameAs(result.response());
    assertThat(end.error()).isNull();
  }

  @Test
  void aCacheHitAndADenialAreReported() {
    Gateway gateway = rig.builder().listener(start -> new Recording()).build();
    gateway.chat(TestRig.request("twice"), CallOptions.of(TestRig.KEY));
    events.clear();
    gateway.chat(TestRig.request("twice"), CallOptions.of(TestRig.KEY));
    assertThat(events).contains("cache HIT").doesNotContain("attempt 1 fixture-gpt");
    assertThat(ends.get(1).record().outcome()).isEqualTo(UsageOutcome.CACHE_HIT);

    Gateway guarded = rig.builder().listener(start -> new Recording())
        .inputGuardrail((identity, request) -> {
          throw PointsmanException.denied(Status.BAD_REQUEST, Stages.GUARDRAIL_INPUT,
              "pattern.blocked", "blocked");
        }).build();
    assertThatThrownBy(() -> guarded.chat(TestRig.request("blocked"),
        CallOptions.of(TestRig.KEY))).isInstanceOf(PointsmanException.class);
    assertThat(events).contains("guardrail guardrail.input denied");
    CallListener.CallEnd denied = ends.get(2);
    assertThat(denied.error().status().httpStatus()).isEqualTo(400);
    assertThat(denied.record().outcome()).isEqualTo(UsageOutcome.REJECTED);
    assertThat(denied.record().rule()).isEqualTo("pattern.blocked");
  }

  @Test
  void aStreamReportsItsFirstChunk() {
    Gateway gateway = rig.builder().listener(start -> {
      assertThat(start.streaming()).isTrue();
      return new Recording();
    }).build();

    gateway.stream(TestRig.request("stream"), CallOptions.of(TestRig.KEY), chunk -> {});

    assertThat(events).containsSubsequence("attempt 1 fixture-gpt", "first chunk",
        "attempt end 1 ok", "end");
    assertThat(ends.get(0).firstChunkNanos()).isNotNegative();
  }

  @Test
  void aThrowingListenerChangesNothingInTheCallAndIsCounted() {
    CallListener throwing = new CallListener() {
      @Override
      public void stageEnd(String stage, long nanos) {
        throw new IllegalStateException("broken listener");
      }

      @Override
      public void callEnd(CallEnd end) {
        throw new IllegalStateException("broken listener");
      }
    };
    Gateway gateway = rig.builder().listener(start -> throwing).build();

    ChatResult result = gateway.chat(TestRig.request("still served"),
        CallOptions.of(TestRig.KEY));

    assertThat(result.outcome()).isEqualTo(UsageOutcome.SUCCESS);
    assertThat(rig.accounting.records()).singleElement()
        .satisfies(r -> assertThat(r.outcome()).isEqualTo(UsageOutcome.SUCCESS));
    assertThat(rig.limiter.ends(rig.accounting.records().get(0).reservationId())).isEqualTo(1);
    // Nine stages ended and the call ended: every one of them threw.
    assertThat(gateway.listenerFailures()).isEqualTo(10);
  }

  @Test
  void aFactoryThatThrowsLeavesTheCallUnobservedAndServed() {
    Gateway gateway = rig.builder().listener(start -> {
      throw new IllegalStateException("broken factory");
    }).build();

    assertThat(gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)).outcome())
        .isEqualTo(UsageOutcome.SUCCESS);
    assertThat(gateway.listenerFailures()).isEqualTo(1);
  }

  @Test
  void compositeTellsEveryListenerEvenWhenOneThrows() {
    CallListener.Factory broken = start -> new CallListener() {
      @Override
      public void callEnd(CallEnd end) {
        throw new IllegalStateException("broken");
      }
    };
    Gateway gateway = rig.builder().listener(CallListener.Factory.composite(broken,
        start -> new Recording())).build();

    gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));

    assertThat(ends).hasSize(1);
    assertThat(gateway.listenerFailures()).isEqualTo(1);
  }
}
