package io.pointsman.limits;

import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterGrant;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterRebuild;
import io.pointsman.spi.CounterStore;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link CounterStore} in the process's memory: one cell per counter key, each with its own
 * lock. A reservation (or an extension) locks its cells in key order (a global order, so two
 * reservations never deadlock), checks them, updates them and unlocks: there is no global
 * lock, and reservations with disjoint counters never wait for each other.
 *
 * <p>Rates use GCRA in microseconds of the caller's monotonic clock: one stored "theoretical
 * arrival time" per counter, so a step of the wall clock (NTP) neither resets nor stretches a
 * window. A call larger than a rate's whole allowance is refused without arithmetic, and the
 * arithmetic saturates, so no amount wraps around. Cells whose period ended more than a day ago
 * (budgets), whose rate fully replenished, or with no call in flight are dropped now and then,
 * so per-period keys do not accumulate.
 *
 * <p>Nothing is lost between the limiter and this store, so operations are not recorded by id:
 * the limiter ends each reservation once. Never stale.
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
    /** GCRA theoretical arrival time, monotonic microseconds. */
    long tatMicros = Long.MIN_VALUE;
    long horizonMillis;
    boolean dead;

    Cell(Counter.Type type) {
      this.type = type;
    }

    boolean idle(long nowMillis, long monotonicMicros) {
      switch (type) {
        case BUDGET:
          return held == 0 && horizonMillis != 0 && horizonMillis + GRACE_MILLIS < nowMillis;
        case CONCURRENCY:
          return inFlight == 0;
        case RATE:
          return tatMicros <= monotonicMicros;
        default:
          throw new AssertionError(type);
      }
    }
  }

  private final ConcurrentHashMap<String, Cell> cells = new ConcurrentHashMap<>();
  private final AtomicInteger created = new AtomicInteger();
  private final AtomicBoolean rebuilding = new AtomicBoolean();

  /** Creates an empty store. */
  public InProcessCounterStore() {}

  @Override
  public CounterGrant acquire(String reservationId, List<Counter> counters, long nowMillis,
      long monotonicMicros) {
    Objects.requireNonNull(reservationId, "reservationId");
    int n = counters.size();
    Cell[] cs = new Cell[n];
    int[] order = order(counters);
    while (true) {
      int locked = lock(counters, order, cs, nowMillis, monotonicMicros);
      try {
        if (locked == n) {
          return decide(counters, cs, nowMillis, monotonicMicros);
        }
      } finally {
        unlock(order, cs, Math.abs(locked));
      }
    }
  }

  /** The indexes of counters sorted by key: insertion sort, a reservation has a handful. */
  private static int[] order(List<Counter> counters) {
    int n = counters.size();
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    for (int i = 1; i < n; i++) {
      int x = order[i];
      int j = i - 1;
      while (j >= 0 && counters.get(order[j]).key().compareTo(counters.get(x).key()) > 0) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = x;
    }
    return order;
  }

  /**
   * Locks the cells in key order. Returns how many were locked: all of them, or the negative
   * count when a cell had been swept between lookup and lock (unlock and start again).
   */
  private int lock(List<Counter> counters, int[] order, Cell[] cs, long nowMillis,
      long monotonicMicros) {
    int locked = 0;
    for (int k = 0; k < order.length; k++) {
      Cell cell = cell(counters.get(order[k]), nowMillis, monotonicMicros);
      cell.lock.lock();
      cs[order[k]] = cell;
      locked++;
      if (cell.dead) {
        return -locked;
      }
    }
    return locked;
  }

  private static void unlock(int[] order, Cell[] cs, int locked) {
    for (int k = locked - 1; k >= 0; k--) {
      cs[order[k]].lock.unlock();
    }
  }

  private static CounterGrant decide(List<Counter> counters, Cell[] cs, long nowMillis,
      long now) {
    int n = counters.size();
    long[] remaining = new long[n];
    long[] resets = new long[n];
    long[] nextTat = null;
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
          long tolerance = saturatedMultiply(c.limit(), interval);
          long tat = Math.max(cell.tatMicros, now);
          // Ahead of now by at most the tolerance (a stored arrival only moves forward by what
          // was admitted within it); the subtraction of two monotonic readings cannot wrap.
          long ahead = tat - now;
          long available = Math.max(0, (tolerance - ahead) / interval);
          if (c.amount() > c.limit()) {
            // More than the whole allowance never fits: refused before any multiplication.
            remaining[i] = available;
            resets[i] = resetAt(nowMillis, ahead);
            return CounterGrant.of(i, remaining, resets);
          }
          long need = c.amount() * interval; // amount <= limit, so <= tolerance: no overflow
          if (ahead > tolerance - need) {
            remaining[i] = available;
            resets[i] = resetAt(nowMillis, ahead);
            return CounterGrant.of(i, remaining, resets);
          }
          remaining[i] = (tolerance - ahead - need) / interval;
          resets[i] = resetAt(nowMillis, ahead + need);
          if (nextTat == null) {
            nextTat = new long[n];
          }
          nextTat[i] = saturatedAdd(tat, need);
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
          cell.tatMicros = nextTat[i];
          break;
        default:
          throw new AssertionError(c.type());
      }
    }
    return CounterGrant.of(-1, remaining, resets);
  }

  /** The wall time at which a rate that is {@code aheadMicros} ahead fully replenishes. */
  private static long resetAt(long nowMillis, long aheadMicros) {
    return saturatedAdd(nowMillis, (aheadMicros + 999) / 1000);
  }

  /** The GCRA emission interval in microseconds, rounded up so the rate never exceeds limit. */
  static long interval(Counter c) {
    long windowMicros = saturatedMultiply(c.horizonMillis(), 1000);
    if (c.limit() == 0) {
      return saturatedAdd(windowMicros, 1);
    }
    return Math.max(1, windowMicros / c.limit() + (windowMicros % c.limit() == 0 ? 0 : 1));
  }

  private static long saturatedMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return (hi == 0 && lo >= 0) ? lo : Long.MAX_VALUE;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? (r < 0 ? Long.MAX_VALUE : Long.MIN_VALUE) : r;
  }

  @Override
  public boolean extend(String reservationId, String operationId, List<Counter> counters,
      long additionalMicros, long nowMillis) {
    Objects.requireNonNull(reservationId, "reservationId");
    if (additionalMicros < 0 || additionalMicros > Counter.MAX_VALUE) {
      throw new IllegalArgumentException("additional amount must be between 0 and "
          + Counter.MAX_VALUE + ": " + additionalMicros);
    }
    int budgets = 0;
    for (Counter c : counters) {
      if (c.type() == Counter.Type.BUDGET) {
        budgets++;
      }
    }
    if (budgets == 0 || additionalMicros == 0) {
      return true;
    }
    List<Counter> only = budgets == counters.size() ? counters
        : counters.stream().filter(c -> c.type() == Counter.Type.BUDGET).toList();
    int[] order = order(only);
    Cell[] cs = new Cell[only.size()];
    while (true) {
      int locked = lock(only, order, cs, nowMillis, Long.MIN_VALUE);
      try {
        if (locked == only.size()) {
          for (int i = 0; i < cs.length; i++) {
            if (additionalMicros > only.get(i).limit() - cs[i].spent - cs[i].held) {
              return false;
            }
          }
          for (Cell cell : cs) {
            cell.held += additionalMicros;
          }
          return true;
        }
      } finally {
        unlock(order, cs, Math.abs(locked));
      }
    }
  }

  @Override
  public boolean end(String reservationId, List<Counter> counters, long chargeMicros,
      long nowMillis) {
    long charge = Math.max(0, chargeMicros);
    for (Counter c : counters) {
      Cell cell = cell(c, nowMillis, Long.MIN_VALUE);
      cell.lock.lock();
      try {
        switch (c.type()) {
          case BUDGET:
            cell.held -= c.amount();
            cell.spent = saturatedAdd(cell.spent, charge);
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
    return true;
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

  /**
   * Starts a rebuild; one at a time per store (never stale, so none starts with
   * {@code onlyIfStale}). Holds need no record here: {@link
   * CounterRebuild#restore} counts them and the limiter ends each once.
   */
  @Override
  public CounterRebuild beginRebuild(long lockMillis, boolean onlyIfStale) {
    if (onlyIfStale || !rebuilding.compareAndSet(false, true)) {
      return null;
    }
    return new CounterRebuild() {
      private boolean open = true;

      @Override
      public void restore(Counter counter, long spentMicros, long heldMicros, long nowMillis) {
        check();
        InProcessCounterStore.this.restore(counter, spentMicros, heldMicros);
      }

      @Override
      public void hold(String reservationId, List<Counter> counters, long nowMillis) {
        check();
      }

      @Override
      public void commit() {
        check();
        close();
      }

      @Override
      public void close() {
        if (open) {
          open = false;
          rebuilding.set(false);
        }
      }

      private void check() {
        if (!open) {
          throw new IllegalStateException("the rebuild has ended");
        }
      }
    };
  }

  private void restore(Counter counter, long spentMicros, long heldMicros) {
    if (counter.type() != Counter.Type.BUDGET) {
      throw new IllegalArgumentException("only budget counters are restored: " + counter.key());
    }
    if (spentMicros < 0 || heldMicros < 0) {
      throw new IllegalArgumentException("restored amounts must not be negative");
    }
    while (true) {
      Cell cell = cell(counter, 0, Long.MIN_VALUE);
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

  private Cell cell(Counter c, long nowMillis, long monotonicMicros) {
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
    if (nowMillis > 0 && monotonicMicros != Long.MIN_VALUE
        && created.incrementAndGet() % SWEEP_EVERY == 0) {
      sweep(nowMillis, monotonicMicros);
    }
    return fresh;
  }

  /** Drops idle cells; a cell is marked dead under its lock so a racing reserve retries. */
  private void sweep(long nowMillis, long monotonicMicros) {
    for (var e : cells.entrySet()) {
      Cell cell = e.getValue();
      if (cell.lock.tryLock()) {
        try {
          if (cell.idle(nowMillis, monotonicMicros)) {
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
