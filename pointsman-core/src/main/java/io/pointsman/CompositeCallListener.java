package io.pointsman;

import java.util.List;

/**
 * Reports every event to each listener in order; one that throws does not keep the event from
 * the others, and the first failure is thrown once all were told (the gateway counts it).
 */
final class CompositeCallListener implements CallListener {
  private final List<CallListener> listeners;

  CompositeCallListener(List<CallListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  @Override
  public void identified(io.pointsman.spi.Identity identity) {
    RuntimeException first = null;
    for (CallListener l : listeners) {
      try {
        l.identified(identity);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void modelResolved(io.pointsman.spi.ResolvedModel model) {
    RuntimeException first = null;
    for (CallListener l : listeners) {
      try {
        l.modelResolved(model);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void stageEnd(String stage, long nanos) {
    RuntimeException first = null;
    for (CallListener l : listeners) {
      try {
        l.stageEnd(stage, nanos);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void cacheOutcome(CacheStatus status) {
    RuntimeException first = null;
    for (CallListener l : listeners) {
      try {
        l.cacheOutcome(status);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void guardrailOutcome(String stage, PointsmanException denial) {
    RuntimeException first = null;
    for (CallListener l : listeners) {
      try {
        l.guardrailOutcome(stage, denial);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void attemptStart(io.pointsman.spi.Deployment deployment, int attempt) {
    RuntimeException first = null;
    for (CallListener l : listeners) {
      try {
        l.attemptStart(deployment, attempt);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void attemptEnd(io.pointsman.spi.Deployment deployment, int attempt,
      io.pointsman.spi.ProviderException failure, long nanos) {
    RuntimeException first = null;
    for (CallListener l : listeners) {
      try {
        l.attemptEnd(deployment, attempt, failure, nanos);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void firstChunk(long nanosSinceStart) {
    RuntimeException first = null;
    for (CallListener l : listeners) {
      try {
        l.firstChunk(nanosSinceStart);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void callEnd(CallEnd end) {
    RuntimeException first = null;
    for (CallListener l : listeners) {
      try {
        l.callEnd(end);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
