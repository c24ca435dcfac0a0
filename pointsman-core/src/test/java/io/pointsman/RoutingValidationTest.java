package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.route.SingleDeploymentRouter;
import io.pointsman.spi.Deployment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The builder checks the whole routing configuration at build(), the router's included. */
class RoutingValidationTest {
  private final TestRig rig = new TestRig();

  private Gateway.Builder routed(Deployment... deployments) {
    return Gateway.builder().authenticator(rig.keys).models(rig.catalog)
        .accounting(rig.accounting).provider("fixture", rig.fixture)
        .router(new SingleDeploymentRouter(List.of(deployments)));
  }

  @Test
  void aRoutedDeploymentNamingAnUnregisteredProviderIsRefusedAtBuild() {
    assertThatThrownBy(() -> routed(Deployment.of("ok", "fixture", "gpt-test"),
        Deployment.of("east", "openai-east", "gpt-test")).build())
        .isInstanceOfSatisfying(ConfigurationException.class, e -> assertThat(e.problem())
            .isEqualTo(ConfigurationException.Problem.UNREGISTERED_PROVIDER))
        .hasMessageContaining("the router's deployment east names provider 'openai-east'")
        .hasMessageContaining("add provider(\"openai-east\", ...)");
  }

  @Test
  void aRoutedDeploymentServingAMisspeltModelIsRefusedAtBuild() {
    assertThatThrownBy(() -> routed(Deployment.of("d", "fixture", "gpt-tset")).build())
        .isInstanceOfSatisfying(ConfigurationException.class, e -> assertThat(e.problem())
            .isEqualTo(ConfigurationException.Problem.UNKNOWN_MODEL))
        .hasMessageContaining("serves model 'gpt-tset', which is not in the catalog");
  }

  @Test
  void aDeploymentNextToARouterIsRefusedRatherThanIgnored() {
    assertThatThrownBy(() -> routed(Deployment.of("d", "fixture", "gpt-test"))
        .deployment(Deployment.of("ignored", "fixture", "mini-model")).build())
        .isInstanceOfSatisfying(ConfigurationException.class, e -> assertThat(e.problem())
            .isEqualTo(ConfigurationException.Problem.CONFLICTING_SETTINGS))
        .hasMessageContaining("deployment(...) was added next to router(...)")
        .hasMessageContaining("ignored");
  }

  @Test
  void aValidRoutedConfigurationBuildsAndServes() {
    try (Gateway gateway = routed(Deployment.of("d", "fixture", "gpt-test")).build()) {
      assertThat(gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY))
          .deploymentId()).isEqualTo("d");
    }
  }
}
