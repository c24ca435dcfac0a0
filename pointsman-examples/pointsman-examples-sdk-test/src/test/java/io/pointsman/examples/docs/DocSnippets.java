package io.pointsman.examples.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The Java snippets of the README and docs/, as printed, and a compiler for them. A snippet is
 * a {@code ```java} block preceded by a comment naming it and the variables it uses:
 * {@code <!-- snippet: NAME; given: Type a, Type b -->}. It compiles as the body of a static
 * method taking the given variables, with the project's API packages imported; the method
 * returns the snippet's {@code gateway} variable when it declares one.
 */
final class DocSnippets {
  private static final Pattern BLOCK = Pattern.compile(
      "<!-- snippet: ([\\w-]+); given:([^\\n]*?)-->\\s*\\n```java\\n(.*?)\\n```", Pattern.DOTALL);
  private static final Pattern ANY_BLOCK = Pattern.compile("^```java$", Pattern.MULTILINE);
  private static final List<String> IMPORTS = List.of("io.pointsman.*", "io.pointsman.spi.*",
      "io.pointsman.accounting.*", "io.pointsman.auth.*", "io.pointsman.catalog.*",
      "io.pointsman.limits.*", "io.pointsman.model.*", "io.pointsman.testing.*",
      "io.pointsman.cache.exact.*", "io.pointsman.cache.semantic.*",
      "io.pointsman.cache.semantic.guard.*", "io.pointsman.cache.tiered.*",
      "io.pointsman.journal.*", "io.pointsman.ledger.*", "io.pointsman.router.*",
      "io.pointsman.cache.redis.*", "io.pointsman.limits.redis.*", "java.net.URI",
      "io.pointsman.guardrail.*", "java.nio.file.Path", "java.time.Duration", "java.time.ZoneId",
      "java.util.List", "io.pointsman.spring.boot.*", "io.pointsman.springai.PointsmanChatOptions",
      "org.springframework.ai.chat.client.ChatClient", "dev.langchain4j.service.AiServices",
      "static org.assertj.core.api.Assertions.*");

  /** One snippet as printed. */
  record Snippet(String file, String name, String given, String code) {
    int lines() {
      return (int) code.lines().count();
    }
  }

  private DocSnippets() {}

  /** The repository root: the nearest directory up from here with README.md and docs/. */
  static Path root() {
    Path here = Path.of("").toAbsolutePath();
    while (here != null
        && !(Files.exists(here.resolve("README.md")) && Files.isDirectory(here.resolve("docs")))) {
      here = here.getParent();
    }
    if (here == null) {
      throw new IllegalStateException("no README.md and docs/ above " + Path.of("").toAbsolutePath());
    }
    return here;
  }

  /** Every named snippet of README.md and docs/*.md. */
  static Map<String, Snippet> all() {
    Map<String, Snippet> out = new LinkedHashMap<>();
    List<Path> files = new ArrayList<>();
    files.add(root().resolve("README.md"));
    try (var docs = Files.list(root().resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
      for (Path f : files) {
        String text = Files.readString(f, StandardCharsets.UTF_8);
        Matcher m = BLOCK.matcher(text);
        int named = 0;
        while (m.find()) {
          named++;
          String key = root().relativize(f) + "#" + m.group(1);
          out.put(key, new Snippet(root().relativize(f).toString(), m.group(1),
              m.group(2).trim(), m.group(3)));
        }
        long blocks = ANY_BLOCK.matcher(text).results().count();
        if (blocks != named) {
          throw new AssertionError(root().relativize(f) + " has " + blocks + " java blocks, "
              + named + " of them named: precede each with <!-- snippet: NAME; given: ... -->");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Compiles a snippet and returns its method, taking the given variables in order. */
  static Method compile(Snippet s, Path work) throws Exception {
    String cls = "Snippet_" + s.name().replace('-', '_');
    StringBuilder src = new StringBuilder("package snippets;\n");
    for (String i : IMPORTS) {
      src.append("import ").append(i).append(";\n");
    }
    boolean returns = s.code().contains("Gateway gateway =");
    src.append("public final class ").append(cls).append(" {\n");
    if (s.given().equals("member")) {
      // A declaration: compiled as a member of the class.
      src.append(s.code()).append("\n  public static Object run() {\n    return null;\n  }\n");
    } else {
      src.append("  public static Object run(").append(s.given())
          .append(") throws Exception {\n").append(s.code()).append('\n')
          .append(returns ? "    return gateway;\n" : "    return null;\n").append("  }\n");
    }
    src.append("}\n");
    Path dir = work.resolve("src/snippets");
    Files.createDirectories(dir);
    Path file = dir.resolve(cls + ".java");
    Files.writeString(file, src);
    Path classes = work.resolve("classes");
    Files.createDirectories(classes);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, Locale.ROOT,
        StandardCharsets.UTF_8)) {
      boolean ok = javac.getTask(null, fm, diagnostics, List.of("-classpath", classPath(), "-d",
          classes.toString(), "-Xlint:all,-try", "-Werror"), null,
          fm.getJavaFileObjects(file)).call();
      if (!ok) {
        throw new AssertionError(s.file() + " snippet " + s.name() + " does not compile:\n"
            + diagnostics.getDiagnostics().stream().map(Object::toString)
                .collect(Collectors.joining("\n")));
      }
    }
    URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
        DocSnippets.class.getClassLoader());
    for (Method m : loader.loadClass("snippets." + cls).getMethods()) {
      if (m.getName().equals("run")) {
        return m;
      }
    }
    throw new AssertionError("no run method");
  }

  /** The test's class path, also when Surefire passes it in a manifest-only jar. */
  private static String classPath() throws IOException {
    String cp = System.getProperty("java.class.path");
    String[] parts = cp.split(java.io.File.pathSeparator);
    if (parts.length == 1 && parts[0].endsWith(".jar")) {
      try (JarFile jar = new JarFile(parts[0])) {
        Manifest mf = jar.getManifest();
        String listed = mf == null ? null : mf.getMainAttributes().getValue("Class-Path");
        if (listed != null) {
          List<String> out = new ArrayList<>();
          for (String u : listed.trim().split("\\s+")) {
            out.add(u.startsWith("file:") ? Path.of(java.net.URI.create(u)).toString()
                : Path.of(parts[0]).getParent().resolve(u).toString());
          }
          return String.join(java.io.File.pathSeparator, out);
        }
      }
    }
    return cp;
  }
}
