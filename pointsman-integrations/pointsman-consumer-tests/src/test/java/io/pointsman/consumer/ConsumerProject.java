package io.pointsman.consumer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Maven project written the way a user writes one, outside this build: it imports
 * {@code pointsman-bom}, declares the Pointsman artifacts it needs without versions, and runs its
 * main class on the class path or, for a modular application, on the module path.
 *
 * <p>It is built by a separate Maven process whose local repository holds only what
 * invoker:install put there (this build's artifacts and their dependencies); plugins come from
 * this build's local repository, read as a remote one, and then from Maven Central, so the run
 * is offline where that local repository already has them.
 */
final class ConsumerProject {

  private static final String PLUGINS = """
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-resources-plugin</artifactId>
          <version>3.3.1</version>
        </plugin>
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-compiler-plugin</artifactId>
          <version>3.14.0</version>
        </plugin>
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-dependency-plugin</artifactId>
          <version>3.8.1</version>
          <executions>
            <execution>
              <id>path</id>
              <phase>generate-sources</phase>
              <goals>
                <goal>build-classpath</goal>
              </goals>
              <configuration>
                <includeScope>runtime</includeScope>
                <outputProperty>app.path</outputProperty>
              </configuration>
            </execution>
          </executions>
        </plugin>
        <plugin>
          <groupId>org.codehaus.mojo</groupId>
          <artifactId>exec-maven-plugin</artifactId>
          <version>3.6.1</version>
          <executions>
            <execution>
              <id>run</id>
              <phase>process-classes</phase>
              <goals>
                <goal>exec</goal>
              </goals>
              <configuration>
                <executable>${java.home}/bin/java</executable>
                <arguments>
                  %s
                </arguments>
              </configuration>
            </execution>
          </executions>
        </plugin>
      """;

  private final String name;
  private final List<String> artifacts = new ArrayList<>();
  private final Map<String, String> sources = new LinkedHashMap<>();
  private boolean modular;

  private ConsumerProject(String name) {
    this.name = name;
  }

  static ConsumerProject named(String name) {
    return new ConsumerProject(name);
  }

  /** Adds a Pointsman artifact, without a version: the BOM gives it. */
  ConsumerProject dependsOn(String artifactId) {
    artifacts.add(artifactId);
    return this;
  }

  /** Adds a source file under src/main/java. */
  ConsumerProject source(String relativePath, String text) {
    sources.put(relativePath, text);
    return this;
  }

  /** Runs {@code app/app.Main} on the module path instead of {@code app.Main} on the class path. */
  ConsumerProject modular() {
    this.modular = true;
    return this;
  }

  /** Writes the project, builds it and runs its main class; returns what the build printed. */
  Result run() throws IOException, InterruptedException {
    Path work = Path.of(property("consumer.work"));
    Path dir = work.resolve(name);
    deleteRecursively(dir);
    Files.createDirectories(dir);
    for (Map.Entry<String, String> e : sources.entrySet()) {
      Path file = dir.resolve("src/main/java").resolve(e.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, e.getValue(), StandardCharsets.UTF_8);
    }
    Files.writeString(dir.resolve("pom.xml"), pom(), StandardCharsets.UTF_8);
    Path settings = dir.resolve("settings.xml");
    Files.writeString(settings, settings(), StandardCharsets.UTF_8);

    Path log = dir.resolve("build.log");
    String mvn = Path.of(property("consumer.mavenHome"), "bin",
        System.getProperty("os.name").startsWith("Windows") ? "mvn.cmd" : "mvn").toString();
    Process p = new ProcessBuilder(mvn, "-B", "-ntp", "-s", settings.toString(),
        "-Dmaven.repo.local=" + property("consumer.repository"), "process-classes")
        .directory(dir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException(name + ": the build did not end in 5 minutes; see " + log);
    }
    return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  /** What the build of a consumer project ended with. */
  record Result(int exitCode, String output) {
  }

  private String pom() {
    StringBuilder deps = new StringBuilder();
    for (String a : artifacts) {
      deps.append("""
              <dependency>
                <groupId>io.pointsman</groupId>
                <artifactId>%s</artifactId>
              </dependency>
          """.formatted(a));
    }
    String path = "${project.build.outputDirectory}${path.separator}${app.path}";
    String args = modular
        // One argument: exec-maven-plugin rewrites a separate value after --module-path.
        ? "<argument>--module-path=" + path + "</argument>"
            + "<argument>--module</argument><argument>app/app.Main</argument>"
        : "<argument>-cp</argument><argument>" + path + "</argument>"
            + "<argument>app.Main</argument>";
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <project xmlns="http://maven.apache.org/POM/4.0.0"
                 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                 xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
          <modelVersion>4.0.0</modelVersion>
          <groupId>com.example</groupId>
          <artifactId>%s</artifactId>
          <version>1.0</version>
          <properties>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
            <maven.compiler.release>17</maven.compiler.release>
          </properties>
          <dependencyManagement>
            <dependencies>
              <dependency>
                <groupId>io.pointsman</groupId>
                <artifactId>pointsman-bom</artifactId>
                <version>%s</version>
                <type>pom</type>
                <scope>import</scope>
              </dependency>
            </dependencies>
          </dependencyManagement>
          <dependencies>
        %s  </dependencies>
          <build>
            <plugins>
        %s    </plugins>
          </build>
        </project>
        """.formatted(name, property("consumer.version"), deps, PLUGINS.formatted(args));
  }

  private static String settings() {
    String mirror = Path.of(property("consumer.mirror")).toUri().toString();
    String repo = """
              <%1$s>
                <id>build-local</id>
                <url>%2$s</url>
                <releases><enabled>true</enabled></releases>
                <snapshots><enabled>false</enabled></snapshots>
              </%1$s>
        """;
    return """
        <settings>
          <profiles>
            <profile>
              <id>build-local</id>
              <repositories>
        %s      </repositories>
              <pluginRepositories>
        %s      </pluginRepositories>
            </profile>
          </profiles>
          <activeProfiles>
            <activeProfile>build-local</activeProfile>
          </activeProfiles>
        </settings>
        """.formatted(repo.formatted("repository", mirror),
            repo.formatted("pluginRepository", mirror));
  }

  static String property(String key) {
    String value = System.getProperty(key);
    if (value == null) {
      throw new IllegalStateException(key + " is not set: run these tests through Maven (verify)");
    }
    return value;
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(p);
      }
    }
  }
}
