package io.pointsman;

import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Choice;
import io.pointsman.model.ChunkChoice;
import io.pointsman.model.ChunkDelta;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.Usage;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.Admission;
import io.pointsman.spi.ChunkSink;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderReply;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.UsageRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gateway around a scripted provider, a budget limiter of its own and a recording accounting,
 * all writing to one trace, for the tests of the accounting boundary. Model {@code m}: window
 * 8,192, output cap 100, 1 micro-unit per input token and 2 per output token.
 */
final class BoundaryRig {
  static final String KEY = "pm-boundary-key-01";
  static final Price PRICE = Price.of(1_000_000, 2_000_000);
  static final long CAP = 100;

  /** Answers one attempt; the default answers "ok" with the usage given by {@link #usage}. */
  interface Script {
    ProviderReply answer(ProviderCall call, ChunkSink sink, int attempt);
  }

  final List<String> trace = new CopyOnWriteArrayList<>();
  final InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
  final HoldingLimiter limiter = new HoldingLimiter(trace);
  final RecordingAccounting accounting = new RecordingAccounting(trace);
  final List<ProviderCall> calls = new CopyOnWriteArrayList<>();
  final AtomicInteger attempts = new AtomicInteger();
  volatile Script script = (call, sink, attempt) -> reply("ok", Usage.of(10, 5));
  ModelCatalog catalog = ModelCatalog.builder()
      .model(ModelSpec.builder("m").contextWindow(8_192).maxOutputTokens(CAP).price(PRICE)
          .capabilities(ModelSpec.TOOLS, ModelSpec.STREAMING, ModelSpec.VISION).build())
      .model(ModelSpec.builder("big").contextWindow(200_000).maxOutputTokens(64_000)
          .price(PRICE).build())
      .build();

  BoundaryRig() {
    keys.addKey(KEY, KeySpec.builder("k1").team("t1").org("o1").build());
  }

  final Provider provider = new Provider() {
    @Override
    public ProviderReply send(ProviderCall call) {
      return stream(call, null);
    }

    @Override
    public ProviderReply stream(ProviderCall call, ChunkSink sink) {
      calls.add(call);
      trace.add("send");
      return script.answer(call, sink, attempts.incrementAndGet());
    }
  };

  Gateway.Builder builder() {
    return builder(limiter);
  }

  Gateway.Builder builder(Limiter with) {
    return Gateway.builder().authenticator(keys).models(catalog).limiter(with)
        .accounting(accounting).provider("p", provider)
        .deployment(Deployment.of("d-m", "p", "m"))
        .deployment(Deployment.of("d-m-2", "p", "m"));
  }

  Gateway gateway() {
    return builder().build();
  }

  /** The same setup routed by a router of the test's own, which picks the deployments. */
  Gateway.Builder routed(io.pointsman.spi.Router router) {
    return Gateway.builder().authenticator(keys).models(catalog).limiter(limiter)
        .accounting(accounting).provider("p", provider).router(router);
  }

  static ChatRequest ask(String text) {
    return ChatRequest.builder().model("m").addMessage(Message.user(text)).build();
  }

  static ProviderReply reply(String text, Usage usage) {
    ChatResponse response = new ChatResponse("r", "chat.completion", 0, "m",
        List.of(new Choice(0, Message.assistant(text), "stop", null, null)), usage, null, null);
    return new ProviderReply(response, usage, false);
  }

  static ChatChunk chunk(String text) {
    return new ChatChunk("r", "chat.completion.chunk", 0, "m", List.of(new ChunkChoice(0,
        new ChunkDelta(Role.ASSISTANT, text, null, null), null, null)), null, null);
  }

  UsageRecord record() {
    if (accounting.records.size() != 1) {
      throw new AssertionError("expected one usage record, got " + accounting.records);
    }
    return accounting.records.get(0);
  }

  /** Records intents and usage records; can be told to fail the next settled call. */
  static final class RecordingAccounting implements Accounting {
    final List<String> trace;
    final List<DispatchIntent> intents = new CopyOnWriteArrayList<>();
    final List<UsageRecord> records = new CopyOnWriteArrayList<>();
    volatile RuntimeException failSettled;

    RecordingAccounting(List<String> trace) {
      this.trace = trace;
    }

    @Override
    public void dispatched(DispatchIntent intent) {
      trace.add("intent");
      intents.add(intent);
    }

    @Override
    public void settled(UsageRecord record) {
      trace.add("record");
      if (failSettled != null) {
        throw failSettled;
      }
      records.add(record);
    }
  }

  /**
   * A limiter with one budget across all calls: a reservation holds its admission's worst case
   * and may extend while the budget has room.
   */
  static final class HoldingLimiter implements Limiter {
    final List<String> trace;
    final List<Admission> admissions = new CopyOnWriteArrayList<>();
    final List<Hold> holds = new CopyOnWriteArrayList<>();
    volatile long budget = Long.MAX_VALUE;
    volatile boolean extendable = true;
    volatile Throwable settleFailure;
    long spent;
    long held;

    HoldingLimiter(List<String> trace) {
      this.trace = trace;
    }

    @Override
    public synchronized Reservation reserve(Admission admission) {
      admissions.add(admission);
      if (spent + held + admission.worstCaseMicros() > budget) {
        throw PointsmanException.denied(Status.PAYMENT_REQUIRED, Stages.RATELIMIT_RESERVE,
            "budget:test", "over budget");
      }
      held += admission.worstCaseMicros();
      Hold h = new Hold(this, "res-" + holds.size(), admission.worstCaseMicros());
      holds.add(h);
      return h;
    }

    synchronized long spent() {
      return spent;
    }

    synchronized long held() {
      return held;
    }

    Hold hold() {
      if (holds.size() != 1) {
        throw new AssertionError("expected one reservation, got " + holds.size());
      }
      return holds.get(0);
    }
  }

  /** One reservation of {@link HoldingLimiter}. */
  static final class Hold implements Reservation {
    final HoldingLimiter limiter;
    final String id;
    final List<Long> extensions = new ArrayList<>();
    long amount;
    int settles;
    int releases;
    long charged = -1;

    Hold(HoldingLimiter limiter, String id, long amount) {
      this.limiter = limiter;
      this.id = id;
      this.amount = amount;
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public long heldMicros() {
      synchronized (limiter) {
        return amount;
      }
    }

    @Override
    public boolean extend(long additionalMicros) {
      synchronized (limiter) {
        limiter.trace.add("extend");
        extensions.add(additionalMicros);
        if (!limiter.extendable
            || limiter.spent + limiter.held + additionalMicros > limiter.budget) {
          return false;
        }
        limiter.held += additionalMicros;
        amount += additionalMicros;
        return true;
      }
    }

    @Override
    public void settle(long actualMicros) {
      synchronized (limiter) {
        limiter.trace.add("settle");
        settles++;
        charged = actualMicros;
        Throwable failure = limiter.settleFailure;
        if (failure instanceof RuntimeException e) {
          throw e;
        }
        if (failure instanceof Error e) {
          throw e;
        }
        limiter.held -= amount;
        limiter.spent += actualMicros;
      }
    }

    @Override
    public void release() {
      synchronized (limiter) {
        limiter.trace.add("release");
        releases++;
        limiter.held -= amount;
      }
    }

    int ends() {
      synchronized (limiter) {
        return settles + releases;
      }
    }
  }
}
