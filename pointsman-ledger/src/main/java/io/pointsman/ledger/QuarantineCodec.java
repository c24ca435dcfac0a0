package io.pointsman.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.CacheOutcome;
import io.pointsman.model.Json;
import io.pointsman.model.Usage;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The JSON form of quarantined items: every field of a {@link UsageRecord} or an
 * {@link InterruptedCall}, by name, with a format version, so that a re-drive rebuilds exactly
 * what was handed over. Usage is kept in its OpenAI form. Stateless and thread-safe.
 */
final class QuarantineCodec {
  private static final int VERSION = 1;
  private static final ObjectMapper MAPPER = Json.mapper();

  private QuarantineCodec() {}

  static String json(UsageRecord r) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("v", VERSION);
    n.put("eventId", r.eventId());
    n.put("requestId", r.requestId());
    n.put("keyId", r.keyId());
    n.put("userId", r.userId());
    n.put("teamId", r.teamId());
    n.put("orgId", r.orgId());
    tags(n, r.tags());
    n.put("model", r.model());
    n.put("deploymentId", r.deploymentId());
    n.put("attempts", r.attempts());
    n.put("outcome", r.outcome().name());
    n.put("httpStatus", r.httpStatus());
    n.put("decidedBy", r.decidedBy());
    n.put("rule", r.rule());
    n.set("usage", r.usage() == null ? null : MAPPER.valueToTree(r.usage()));
    n.put("costMicros", r.costMicros());
    n.put("costEstimated", r.costEstimated());
    n.put("reservationId", r.reservationId());
    n.put("heldMicros", r.heldMicros());
    n.put("cacheOutcome", r.cacheOutcome().name());
    n.put("startedAt", r.startedAt().toString());
    n.put("durationNanos", r.durationNanos());
    n.put("priceVersion", r.priceVersion());
    return write(n);
  }

  static String json(InterruptedCall c) {
    DispatchIntent d = c.lastIntent();
    ObjectNode i = MAPPER.createObjectNode();
    i.put("eventId", d.eventId());
    i.put("requestId", d.requestId());
    i.put("attempt", d.attempt());
    i.put("keyId", d.keyId());
    i.put("userId", d.userId());
    i.put("teamId", d.teamId());
    i.put("orgId", d.orgId());
    tags(i, d.tags());
    i.put("model", d.model());
    i.put("deploymentId", d.deploymentId());
    i.put("provider", d.provider());
    i.put("reservationId", d.reservationId());
    i.put("heldMicros", d.heldMicros());
    i.put("worstCaseMicros", d.worstCaseMicros());
    i.put("at", d.at().toString());
    i.put("callStartedAt", d.callStartedAt().toString());
    ObjectNode n = MAPPER.createObjectNode();
    n.put("v", VERSION);
    n.set("lastIntent", i);
    n.put("attemptsSeen", c.attemptsSeen());
    n.put("requestIntentFound", c.requestIntentFound());
    n.put("recoveredAt", c.recoveredAt().toString());
    return write(n);
  }

  static UsageRecord record(String json) {
    JsonNode n = read(json);
    try {
      JsonNode usage = n.get("usage");
      return UsageRecord.builder()
          .eventId(text(n, "eventId")).requestId(text(n, "requestId")).keyId(text(n, "keyId"))
          .userId(text(n, "userId")).teamId(text(n, "teamId")).orgId(text(n, "orgId"))
          .tags(tags(n)).model(text(n, "model")).deploymentId(text(n, "deploymentId"))
          .attempts(n.get("attempts").asInt())
          .outcome(UsageOutcome.valueOf(text(n, "outcome")))
          .httpStatus(n.get("httpStatus").asInt())
          .decidedBy(text(n, "decidedBy")).rule(text(n, "rule"))
          .usage(usage == null || usage.isNull() ? null
              : MAPPER.treeToValue(usage, Usage.class))
          .costMicros(n.get("costMicros").asLong())
          .costEstimated(n.get("costEstimated").asBoolean())
          .reservationId(text(n, "reservationId")).heldMicros(n.get("heldMicros").asLong())
          .cacheOutcome(CacheOutcome.valueOf(text(n, "cacheOutcome")))
          .startedAt(Instant.parse(text(n, "startedAt")))
          .durationNanos(n.get("durationNanos").asLong())
          .priceVersion(text(n, "priceVersion"))
          .build();
    } catch (JsonProcessingException | RuntimeException e) {
      throw new IllegalStateException("quarantined record payload cannot be decoded", e);
    }
  }

  static InterruptedCall call(String json) {
    JsonNode n = read(json);
    try {
      JsonNode i = n.get("lastIntent");
      DispatchIntent d = DispatchIntent.builder()
          .eventId(text(i, "eventId")).requestId(text(i, "requestId"))
          .attempt(i.get("attempt").asInt()).keyId(text(i, "keyId"))
          .userId(text(i, "userId")).teamId(text(i, "teamId")).orgId(text(i, "orgId"))
          .tags(tags(i)).model(text(i, "model")).deploymentId(text(i, "deploymentId"))
          .provider(text(i, "provider")).reservationId(text(i, "reservationId"))
          .heldMicros(i.get("heldMicros").asLong())
          .worstCaseMicros(i.get("worstCaseMicros").asLong())
          .at(Instant.parse(text(i, "at")))
          .callStartedAt(Instant.parse(text(i, "callStartedAt")))
          .build();
      return new InterruptedCall(d, n.get("attemptsSeen").asInt(),
          n.get("requestIntentFound").asBoolean(), Instant.parse(text(n, "recoveredAt")));
    } catch (RuntimeException e) {
      throw new IllegalStateException("quarantined call payload cannot be decoded", e);
    }
  }

  private static void tags(ObjectNode n, Set<String> tags) {
    ArrayNode a = n.putArray("tags");
    tags.stream().sorted().forEach(a::add);
  }

  private static Set<String> tags(JsonNode n) {
    Set<String> out = new LinkedHashSet<>();
    n.get("tags").forEach(t -> out.add(t.asText()));
    return out;
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static JsonNode read(String json) {
    try {
      JsonNode n = MAPPER.readTree(json);
      if (n == null || n.path("v").asInt() != VERSION) {
        throw new IllegalStateException("quarantined payload has an unknown format version");
      }
      return n;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("quarantined payload is not JSON", e);
    }
  }

  private static String write(JsonNode n) {
    try {
      return MAPPER.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not encode a quarantined item", e);
    }
  }
}
