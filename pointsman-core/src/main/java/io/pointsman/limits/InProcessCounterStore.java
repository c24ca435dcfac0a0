package io.pointsman.limits;

import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterGrant;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterStore;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link CounterStore} in the process's memory: one cell per counter key, each with its own
 * lock. A reservation locks its cells in key order (a global order, so two reservations never
 * deadlock), checks them, updates them and unlocks: there is no global lock, and reservations
 * with disjoint counters never wait for each other.
 *
 * <p>Rates use GCRA in microseconds: one stored "theoretical arrival time" per counter. Cells
 * whose period ended more than a day ago (budgets), whose rate fully replenished, or with no
 * call in flight are dropped now and then, so per-period keys do not accumulate.
 *
 * <p>Thread-safe.
 */
public final class InProcessCounterStore implements CounterStore {
  private static final long SWEEP_EVERY = 4096;
  private static final long GRACE_MILLIS = 86_400_000L;

  private static final class Cell {
    final ReentrantLock lock = new ReentrantLock();
    final Counter.Type type;
    long spent;
    long held;
    long inFlight;
    long tatMicros;
    long horizonMillis;
    boolean dead;

    Cell(Counter.Type type) {
      this.type = type;
    }

    boolean idle(long nowMillis) {
      switch (type) {
        case BUDGET:
          return held == 0 && horizonMillis != 0 && horizonMillis + GRACE_MILLIS < nowMillis;
        case CONCURRENCY:
          return inFlight == 0;
        case RATE:
          return tatMicros <= nowMillis * 1000;
        default:
          throw new AssertionError(type);
      }
    }
  }

  private final ConcurrentHashMap<String, Cell> cells = new ConcurrentHashMap<>();
  private final AtomicInteger created = new AtomicInteger();

  /** Creates an empty store. */
  public InProcessCounterStore() {}

  @Override
  public CounterGrant acquire(String reservationId, List<Counter> counters, long nowMillis) {
    Objects.requireNonNull(reservationId, "reservationId");
    int n = counters.size();
    Cell[] cs = new Cell[n];
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    // Insertion sort: a reservation has a handful of counters.
    for (int i = 1; i < n; i++) {
      int x = order[i];
      int j = i - 1;
      while (j >= 0 && counters.get(order[j]).key().compareTo(counters.get(x).key()) > 0) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = x;
    }
    long nowMicros = Math.multiplyExact(nowMillis, 1000L);
    while (true) {
      int locked = 0;
      boolean retry = false;
      try {
        for (int k = 0; k < n; k++) {
          Counter c = counters.get(order[k]);
          Cell cell = cell(c, nowMillis);
          cell.lock.lock();
          cs[order[k]] = cell;
          locked++;
          if (cell.dead) {
            // Swept between lookup and lock: start again with a fresh cell.
            retry = true;
            break;
          }
        }
        if (!retry) {
          return decide(counters, cs, nowMicros);
        }
      } finally {
        for (int k = locked - 1; k >= 0; k--) {
          cs[order[k]].lock.unlock();
        }
      }
    }
  }

  private static CounterGrant decide(List<Counter> counters, Cell[] cs, long nowMicros) {
    int n = counters.size();
    long[] remaining = new long[n];
    long[] resets = new long[n];
    for (int i = 0; i < n; i++) {
      Counter c = counters.get(i);
      Cell cell = cs[i];
      switch (c.type()) {
        case BUDGET: {
          long available = c.limit() - cell.spent - cell.held;
          resets[i] = c.horizonMillis();
          if (c.amount() > available) {
            remaining[i] = available;
            return CounterGrant.of(i, remaining, resets);
          }
          remaining[i] = available - c.amount();
          break;
        }
        case CONCURRENCY:
          if (cell.inFlight + 1 > c.limit()) {
            remaining[i] = 0;
            return CounterGrant.of(i, remaining, resets);
          }
          remaining[i] = c.limit() - cell.inFlight - 1;
          break;
        case RATE: {
          long interval = interval(c);
          long tolerance = c.limit() * interval;
          long tat = Math.max(cell.tatMicros, nowMicros);
          long next = tat + c.amount() * interval;
          if (next - nowMicros > tolerance) {
            remaining[i] = (tolerance - (tat - nowMicros)) / interval;
            resets[i] = ceilMillis(tat);
            return CounterGrant.of(i, remaining, resets);
          }
          remaining[i] = (tolerance - (next - nowMicros)) / interval;
          resets[i] = ceilMillis(next);
          break;
        }
        default:
          throw new AssertionError(c.type());
      }
    }
    for (int i = 0; i < n; i++) {
      Counter c = counters.get(i);
      Cell cell = cs[i];
      switch (c.type()) {
        case BUDGET:
          cell.held += c.amount();
          cell.horizonMillis = c.horizonMillis();
          break;
        case CONCURRENCY:
          cell.inFlight++;
          break;
        case RATE:
          cell.tatMicros = Math.max(cell.tatMicros, nowMicros) + c.amount() * interval(c);
          break;
        default:
          throw new AssertionError(c.type());
      }
    }
    return CounterGrant.of(-1, remaining, resets);
  }

  /** The GCRA emission interval in microseconds, rounded up so the rate never exceeds limit. */
  static long interval(Counter c) {
    long windowMicros = c.horizonMillis() * 1000;
    return c.limit() == 0 ? windowMicros + 1 : (windowMicros + c.limit() - 1) / c.limit();
  }

  private static long ceilMillis(long micros) {
    return (micros + 999) / 1000;
  }

  @Override
  public void settle(String reservationId, List<Counter> counters, long chargeMicros,
      long nowMillis) {
    if (chargeMicros < 0) {
      throw new IllegalArgumentException("charge must not be negative: " + chargeMicros);
    }
    end(counters, chargeMicros, nowMillis);
  }

  @Override
  public void release(String reservationId, List<Counter> counters, long nowMillis) {
    end(counters, 0, nowMillis);
  }

  private void end(List<Counter> counters, long charge, long nowMillis) {
    for (Counter c : counters) {
      Cell cell = cell(c, nowMillis);
      cell.lock.lock();
      try {
        switch (c.type()) {
          case BUDGET:
            cell.held -= c.amount();
            cell.spent = Math.addExact(cell.spent, charge);
            break;
          case CONCURRENCY:
            cell.inFlight--;
            break;
          case RATE:
            // Rates count attempts at their bound and are not refunded.
            break;
          default:
            throw new AssertionError(c.type());
        }
      } finally {
        cell.lock.unlock();
      }
    }
  }

  @Override
  public CounterReading read(Counter counter) {
    Cell cell = cells.get(counter.key());
    if (cell == null) {
      return CounterReading.EMPTY;
    }
    cell.lock.lock();
    try {
      return new CounterReading(cell.spent, cell.held, cell.inFlight);
    } finally {
      cell.lock.unlock();
    }
  }

  @Override
  public void restore(Counter counter, long spentMicros, long heldMicros, long nowMillis) {
    if (counter.type() != Counter.Type.BUDGET) {
      throw new IllegalArgumentException("only budget counters are restored: " + counter.key());
    }
    if (spentMicros < 0 || heldMicros < 0) {
      throw new IllegalArgumentException("restored amounts must not be negative");
    }
    while (true) {
      Cell cell = cell(counter, 0);
      cell.lock.lock();
      try {
        if (cell.dead) {
          continue;
        }
        cell.spent = spentMicros;
        cell.held = heldMicros;
        cell.horizonMillis = counter.horizonMillis();
        return;
      } finally {
        cell.lock.unlock();
      }
    }
  }

  /**
   * Returns how many counters the store keeps, for tests and metrics.
   *
   * @return the number of cells
   */
  public int size() {
    return cells.size();
  }

  private Cell cell(Counter c, long nowMillis) {
    Cell cell = cells.get(c.key());
    if (cell != null) {
      return cell;
    }
    Cell fresh = new Cell(c.type());
    fresh.horizonMillis = c.type() == Counter.Type.BUDGET ? c.horizonMillis() : 0;
    Cell raced = cells.putIfAbsent(c.key(), fresh);
    if (raced != null) {
      return raced;
    }
    if (nowMillis > 0 && created.incrementAndGet() % SWEEP_EVERY == 0) {
      sweep(nowMillis);
    }
    return fresh;
  }

  /** Drops idle cells; a cell is marked dead under its lock so a racing reserve retries. */
  private void sweep(long nowMillis) {
    for (var e : cells.entrySet()) {
      Cell cell = e.getValue();
      if (cell.lock.tryLock()) {
        try {
          if (cell.idle(nowMillis)) {
            cell.dead = true;
            cells.remove(e.getKey(), cell);
          }
        } finally {
          cell.lock.unlock();
        }
      }
    }
  }
}
