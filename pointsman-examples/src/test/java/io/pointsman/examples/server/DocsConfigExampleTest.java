package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.auth.VirtualKeys;
import io.pointsman.provider.OpenAiProvider;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every facade configuration example in the docs (and in {@link FacadeConfig}'s Javadoc) loads:
 * it parses as a {@link FacadeConfig}, its keys are well-formed virtual keys, its models build
 * their catalog specs, and its upstream URL reaches OpenAI's chat completions path.
 */
class DocsConfigExampleTest {
  private static final Path DOCS = Path.of("..", "docs");

  @TempDir
  Path dir;

  /** The JSON code blocks of a Markdown file that look like a facade configuration. */
  static List<String> configBlocks(String markdown) {
    List<String> out = new ArrayList<>();
    String fence = "```json\n";
    int at = markdown.indexOf(fence);
    while (at >= 0) {
      int end = markdown.indexOf("\n```", at + fence.length());
      String block = markdown.substring(at + fence.length(), end);
      if (block.contains("\"models\"") && block.contains("\"keys\"")) {
        out.add(block);
      }
      at = markdown.indexOf(fence, end + 4);
    }
    return out;
  }

  private void assertLoads(String json, String where) throws IOException {
    Path file = dir.resolve("config-" + Math.abs(json.hashCode()) + ".json");
    Files.writeString(file, json);
    FacadeConfig c = FacadeConfig.read(file);
    for (FacadeConfig.KeyEntry k : c.keys()) {
      assertThat(VirtualKeys.wellFormed(k.key())).as("%s: key %s", where, k.id()).isTrue();
    }
    for (FacadeConfig.ModelEntry m : c.models()) {
      assertThat(m.spec().name()).isEqualTo(m.name());
    }
    if (c.upstream() != null) {
      URI endpoint = OpenAiProvider.builder().baseUri(URI.create(c.upstream())).build()
          .endpoint("any");
      assertThat(endpoint.getPath()).as("%s: upstream %s", where, c.upstream())
          .isEqualTo("/v1/chat/completions");
    }
  }

  @Test
  void everyConfigurationExampleInTheDocsLoads() throws IOException {
    int found = 0;
    try (var files = Files.list(DOCS)) {
      for (Path md : files.filter(p -> p.toString().endsWith(".md")).toList()) {
        for (String block : configBlocks(Files.readString(md))) {
          assertLoads(block, md.getFileName().toString());
          found++;
        }
      }
    }
    assertThat(found).as("docs/operations.md has a configuration example").isPositive();
  }

  @Test
  void theJavadocExampleOfFacadeConfigLoads() throws IOException {
    String source = Files.readString(Path.of("src", "main", "java", "io", "pointsman",
        "examples", "server", "FacadeConfig.java"));
    int open = source.indexOf("<pre>{@code\n");
    int close = source.indexOf("}</pre>", open);
    StringBuilder json = new StringBuilder();
    for (String line : source.substring(open + "<pre>{@code\n".length(), close).split("\n")) {
      json.append(line.replaceFirst("^\\s*\\* ?", "")).append('\n');
    }
    assertLoads(json.toString(), "FacadeConfig Javadoc");
  }
}
