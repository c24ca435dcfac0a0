package io.pointsman.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * README's Maven coordinates and its usage snippet, as a new user takes them: a project that
 * imports the BOM, declares exactly the artifacts README lists and runs the snippet.
 */
class ReadmeUsageProjectTest {

  private static final Pattern ARTIFACT = Pattern.compile("<artifactId>([^<]+)</artifactId>");

  @Test
  void aProjectWithReadmesCoordinatesRunsReadmesUsage() throws Exception {
    String readme = Files.readString(Path.of(ConsumerProject.property("consumer.readme")),
        StandardCharsets.UTF_8);
    String coordinates = block(readme, "## Maven coordinates", "```xml");
    String usage = block(readme, "## Usage", "```java");

    assertThat(coordinates)
        .as("README's coordinates import the BOM of this version")
        .contains("<artifactId>pointsman-bom</artifactId>")
        .contains("<version>" + ConsumerProject.property("consumer.version") + "</version>")
        .contains("<scope>import</scope>");
    List<String> artifacts = new ArrayList<>();
    Matcher m = ARTIFACT.matcher(coordinates);
    while (m.find()) {
      if (!m.group(1).equals("pointsman-bom")) {
        artifacts.add(m.group(1));
      }
    }
    assertThat(artifacts).isNotEmpty();

    ConsumerProject project = ConsumerProject.named("readme-usage");
    StringBuilder imports = new StringBuilder();
    for (String a : artifacts) {
      project.dependsOn(a);
      for (String pkg : packages(a)) {
        imports.append("import ").append(pkg).append(".*;\n");
      }
    }
    project.source("app/Main.java", """
        package app;

        %s
        public final class Main {
          public static void main(String[] args) throws Exception {
        %s
            System.out.println("README usage ran");
            System.exit(0);
          }
        }
        """.formatted(imports, usage));

    ConsumerProject.Result result = project.run();

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("README usage ran");
  }

  /** The first fenced block of the given kind after the heading, without its fences. */
  private static String block(String markdown, String heading, String fence) {
    int h = markdown.indexOf("\n" + heading + "\n");
    assertThat(h).as("README has a section " + heading).isNotNegative();
    int start = markdown.indexOf(fence + "\n", h);
    assertThat(start).as(heading + " has a " + fence + " block").isNotNegative();
    start += fence.length() + 1;
    int end = markdown.indexOf("\n```", start);
    return markdown.substring(start, end + 1);
  }

  /** The packages with classes in the artifact's jar, as installed for the consumers. */
  static TreeSet<String> packages(String artifactId) throws IOException {
    String version = ConsumerProject.property("consumer.version");
    Path jar = Path.of(ConsumerProject.property("consumer.repository"), "io", "pointsman",
        artifactId, version, artifactId + "-" + version + ".jar");
    TreeSet<String> packages = new TreeSet<>();
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      for (ZipEntry e : zip.stream().toList()) {
        String n = e.getName();
        if (n.endsWith(".class") && !n.contains("-") && n.lastIndexOf('/') > 0) {
          packages.add(n.substring(0, n.lastIndexOf('/')).replace('/', '.'));
        }
      }
    }
    return packages;
  }
}
