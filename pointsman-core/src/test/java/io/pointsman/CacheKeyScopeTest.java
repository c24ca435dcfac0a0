package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.auth.KeySpec;
import io.pointsman.cache.InMemoryExactCache;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ResolvedModel;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the exact key is scoped by: the tenant, the whole conversation, the answering model. */
class CacheKeyScopeTest {
  private static final String LONE_A = "pm-test-key-lone-a";
  private static final String LONE_B = "pm-test-key-lone-b";

  private final TestRig rig = new TestRig();

  {
    rig.keys.addKey(LONE_A, KeySpec.builder("k-lone-a").build());
    rig.keys.addKey(LONE_B, KeySpec.builder("k-lone-b").build());
  }

  private final Gateway gateway = rig.builder().build();

  private ChatResult call(ChatRequest r, String key) {
    return gateway.chat(r, CallOptions.of(key));
  }

  @Test
  void twoKeysWithNeitherTeamNorOrgNeverShareAnEntry() {
    assertThat(call(TestRig.request("q"), LONE_A).cacheStatus().outcome())
        .isEqualTo(CacheOutcome.MISS);
    ChatResult other = call(TestRig.request("q"), LONE_B);
    assertThat(other.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
    assertThat(rig.fixture.sends()).isEqualTo(2);
    // Each key still hits its own entry.
    assertThat(call(TestRig.request("q"), LONE_A).cacheStatus().outcome())
        .isEqualTo(CacheOutcome.HIT);
    assertThat(call(TestRig.request("q"), LONE_B).cacheStatus().outcome())
        .isEqualTo(CacheOutcome.HIT);
    assertThat(rig.fixture.sends()).isEqualTo(2);
  }

  @Test
  void theTenantOfAKeyWithoutTeamOrOrgIsTheKeyAndOtherwiseOrgAndTeam() {
    assertThat(query(identity("k1", null, null)).tenant())
        .isNotEqualTo(query(identity("k2", null, null)).tenant());
    assertThat(query(identity("k1", "t", "o")).tenant())
        .isEqualTo(query(identity("k2", "t", "o")).tenant());
    assertThat(query(identity("k1", "t", null)).tenant())
        .isNotEqualTo(query(identity("k1", null, "t")).tenant());
    // A key id can never pose as an org or a team.
    assertThat(query(identity("o", null, null)).tenant())
        .isNotEqualTo(query(identity("k", null, "o")).tenant());
    assertThat(InMemoryExactCache.key(query(identity("k1", null, null))))
        .isNotEqualTo(InMemoryExactCache.key(query(identity("k2", null, null))));
  }

  @Test
  void theSameLastMessageAfterAnotherConversationIsAMiss() {
    ChatRequest first = ChatRequest.builder().model("gpt-test")
        .addMessage(Message.system("You answer in French."))
        .addMessage(Message.user("Tell me about Paris."))
        .addMessage(Message.assistant("Paris est la capitale."))
        .addMessage(Message.user("How many people live there?")).temperature(0.0).build();
    ChatRequest otherHistory = first.toBuilder().messages(java.util.List.of(
        Message.system("You answer in French."), Message.user("Tell me about Rome."),
        Message.assistant("Rome est la capitale."),
        Message.user("How many people live there?"))).build();
    ChatRequest otherSystem = first.toBuilder().messages(java.util.List.of(
        Message.system("You answer in English."), Message.user("Tell me about Paris."),
        Message.assistant("Paris est la capitale."),
        Message.user("How many people live there?"))).build();
    call(first, TestRig.KEY);
    assertThat(call(otherHistory, TestRig.KEY).cacheStatus().outcome())
        .isEqualTo(CacheOutcome.MISS);
    assertThat(call(otherSystem, TestRig.KEY).cacheStatus().outcome())
        .isEqualTo(CacheOutcome.MISS);
    assertThat(call(first, TestRig.KEY).cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(rig.fixture.sends()).isEqualTo(3);
  }

  @Test
  void anAnswerFromADeploymentOfAnotherModelIsStoredUnderThatModel() {
    // A router that falls back to the deployment serving mini-model for every call.
    Gateway fallingBack = rig.routed(context -> Deployment.of("fixture-mini",
        "fixture", "mini-model")).build();
    ChatRequest forGpt = TestRig.request("q");
    ChatResult answered = fallingBack.chat(forGpt, CallOptions.of(TestRig.KEY));
    assertThat(answered.deploymentId()).isEqualTo("fixture-mini");
    // gpt-test was resolved, mini-model answered: the next gpt-test call must not get it.
    Gateway direct = fallingBack.toBuilder().router(context -> Deployment.of("fixture-gpt",
        "fixture", "gpt-test")).build();
    assertThat(direct.chat(forGpt, CallOptions.of(TestRig.KEY)).cacheStatus().outcome())
        .isEqualTo(CacheOutcome.MISS);
    ChatResult forMini = direct.chat(forGpt.toBuilder().model("mini-model").build(),
        CallOptions.of(TestRig.KEY));
    assertThat(forMini.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(forMini.response()).isEqualTo(answered.response());
  }

  @Test
  void aDeploymentNamingTheResolvedModelByAnAliasAnswersForIt() {
    CacheQuery resolved = new CacheQuery(identity("k1", "t", "o"), new ResolvedModel(
        ModelSpec.builder("gpt-test").aliases("test").build(), 10, false, 10),
        TestRig.request("q"), CacheControl.DEFAULT);
    assertThat(resolved.answeredBy(Deployment.of("d", "fixture", "test")).keyModel())
        .isEqualTo("gpt-test");
    assertThat(resolved.answeredBy(Deployment.of("d", "fixture", "mini-model")).keyModel())
        .isEqualTo("mini-model");
    assertThat(resolved.keyModel()).isEqualTo("gpt-test");
  }

  @Test
  void theDefaultExactCacheHasNoStoresToWaitFor() throws InterruptedException {
    InMemoryExactCache cache = InMemoryExactCache.ofDefaults(Clock.system());
    cache.store(query(identity("k1", null, null)), null);
    assertThat(cache.awaitStores(Duration.ZERO)).isTrue();
  }

  private static Identity identity(String key, String team, String org) {
    return new Identity(key, null, team, org, Set.of(), Grant.all(), Grant.all(), Grant.all());
  }

  private static CacheQuery query(Identity identity) {
    return new CacheQuery(identity, new ResolvedModel(ModelSpec.builder("gpt-test").build(), 10,
        false, 10), TestRig.request("q"), CacheControl.DEFAULT);
  }
}
