package io.pointsman.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Each published jar, as installed for users, is the module docs/modules.md names: a named
 * module that exports every package holding classes (so a package added later is not silently
 * hidden from modular applications), or an automatic module with a stable name.
 */
class ModuleDescriptorsTest {

  private static final Map<String, String> NAMED = Map.of(
      "pointsman-core", "io.pointsman.core",
      "pointsman-journal", "io.pointsman.journal",
      "pointsman-ledger", "io.pointsman.ledger",
      "pointsman-cache", "io.pointsman.cache",
      "pointsman-redis", "io.pointsman.redis",
      "pointsman-redis-testing", "io.pointsman.redis.testing",
      "pointsman-router", "io.pointsman.router");

  private static final Map<String, String> AUTOMATIC = Map.of(
      "pointsman-core-testing", "io.pointsman.core.testing",
      "pointsman-ledger-testing", "io.pointsman.ledger.testing",
      "pointsman-httpclient5", "io.pointsman.httpclient5",
      "pointsman-micrometer", "io.pointsman.micrometer",
      "pointsman-opentelemetry", "io.pointsman.opentelemetry",
      "pointsman-langchain4j", "io.pointsman.langchain4j");

  /** Packages that hold only resources, which a module need not export. */
  private static final Set<String> RESOURCES_ONLY = Set.of("db.migration");

  @Test
  void namedModulesExportEveryPackageWithClasses() {
    for (Map.Entry<String, String> e : NAMED.entrySet()) {
      ModuleDescriptor d = descriptor(e.getKey());
      assertThat(d.isAutomatic()).as(e.getKey() + " has a module-info").isFalse();
      assertThat(d.name()).isEqualTo(e.getValue());
      Set<String> exported = d.exports().stream().filter(x -> !x.isQualified())
          .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
      Set<String> hidden = new TreeSet<>(d.packages());
      hidden.removeAll(exported);
      hidden.removeAll(RESOURCES_ONLY);
      assertThat(hidden).as(e.getKey() + ": packages its module-info does not export").isEmpty();
    }
  }

  @Test
  void coreRequiresSlf4jSoThatTheResolverAddsIt() {
    assertThat(descriptor("pointsman-core").requires().stream()
        .map(ModuleDescriptor.Requires::name))
        .contains("org.slf4j", "com.fasterxml.jackson.databind");
  }

  @Test
  void testingModulesHaveTheirAutomaticNames() {
    for (Map.Entry<String, String> e : AUTOMATIC.entrySet()) {
      ModuleDescriptor d = descriptor(e.getKey());
      assertThat(d.isAutomatic()).isTrue();
      assertThat(d.name()).isEqualTo(e.getValue());
    }
  }

  private static ModuleDescriptor descriptor(String artifactId) {
    String version = ConsumerProject.property("consumer.version");
    Path jar = Path.of(ConsumerProject.property("consumer.repository"), "io", "pointsman",
        artifactId, version, artifactId + "-" + version + ".jar");
    Set<ModuleReference> found = ModuleFinder.of(jar).findAll();
    assertThat(found).as(jar.toString()).hasSize(1);
    return found.iterator().next().descriptor();
  }
}
