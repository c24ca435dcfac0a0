package io.pointsman.limits;

import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ResolvedModel;
import java.time.Instant;
import java.util.Set;

/** Builds admissions for limiter tests. */
final class Admissions {
  static final ResolvedModel MODEL = new ResolvedModel(
      ModelSpec.builder("m").price(Price.of(1, 1)).build(), 10, false, 10);

  private Admissions() {}

  static Admission of(String id, String key, String team, String org, Set<String> tags,
      long worstCase, Instant at) {
    Identity identity = new Identity(key, null, team, org, tags, Grant.all(), Grant.all(),
        Grant.all());
    return new Admission(id, identity, tags, MODEL, 10, 10, worstCase, at);
  }
}
