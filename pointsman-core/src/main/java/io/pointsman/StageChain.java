package io.pointsman;

import io.pointsman.spi.Chain;
import io.pointsman.spi.Exchange;
import io.pointsman.spi.Reply;
import io.pointsman.spi.Stage;
import java.util.List;
import java.util.function.Function;

/**
 * Runs the custom stages registered at one insertion point, then the terminal part of the
 * lifecycle, enforcing the chain contract: proceed at most once, never return null, pass the
 * exchange received.
 */
final class StageChain implements Chain {
  /** A registered custom stage. */
  record Named(String name, Stage stage) {}

  private final List<Named> stages;
  private final int index;
  private final Call call;
  private final Function<Call, Reply> terminal;
  private final String owner;
  private boolean proceeded;

  private StageChain(List<Named> stages, int index, Call call, Function<Call, Reply> terminal,
      String owner) {
    this.stages = stages;
    this.index = index;
    this.call = call;
    this.terminal = terminal;
    this.owner = owner;
  }

  static Reply run(List<Named> stages, Call call, Function<Call, Reply> terminal) {
    if (stages.isEmpty()) {
      return terminal.apply(call);
    }
    return new StageChain(stages, 0, call, terminal, null).proceed(call);
  }

  @Override
  public Reply proceed(Exchange exchange) {
    if (proceeded) {
      throw violation(owner, "stage '" + owner + "' called proceed twice");
    }
    proceeded = true;
    if (exchange != call) {
      throw violation(owner, "stage '" + owner + "' passed an exchange it did not receive");
    }
    if (index == stages.size()) {
      return terminal.apply(call);
    }
    Named named = stages.get(index);
    StageChain next = new StageChain(stages, index + 1, call, terminal, named.name());
    Reply reply;
    try {
      reply = named.stage().apply(call, next);
    } catch (PointsmanException e) {
      throw e;
    } catch (RuntimeException e) {
      throw PointsmanException.failure(Status.INTERNAL, named.name(),
          "stage '" + named.name() + "' failed: " + e.getClass().getName(), e);
    }
    if (reply == null) {
      throw violation(named.name(), "stage '" + named.name() + "' returned null");
    }
    if (!next.proceeded && call.servedByStage == null && !call.providerPhase
        && !call.servedFromCache) {
      call.servedByStage = named.name();
    }
    return reply;
  }

  private PointsmanException violation(String stage, String message) {
    // Remembered on the call: the call fails even if the stage catches this and replies.
    if (call.contractViolation == null) {
      call.contractViolation = message;
    }
    return PointsmanException.failure(Status.INTERNAL, stage == null ? "chain" : stage, message,
        null);
  }
}
