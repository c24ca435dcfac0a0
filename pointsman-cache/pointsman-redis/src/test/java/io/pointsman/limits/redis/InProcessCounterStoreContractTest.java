package io.pointsman.limits.redis;

import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.spi.CounterStore;

/** The counter store contract on the in-process store. */
class InProcessCounterStoreContractTest extends CounterStoreContract {
  @Override
  CounterStore newStore() {
    return new InProcessCounterStore();
  }
}
