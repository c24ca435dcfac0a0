package io.pointsman.examples.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The facade ({@code io.pointsman.examples.server.FacadeMain}) as a child JVM on this JVM's
 * class path, its output appended to a log file: the chaos test's own copy of the drill's
 * child-process helper. {@link #kill()} sends SIGKILL, {@link #stop()} SIGTERM.
 */
final class FacadeProcess {
  private static final long START_TIMEOUT_SECONDS = 180;

  private final Process process;
  private final int port;

  private FacadeProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  static FacadeProcess start(Path config, Path portFile, Path log) {
    try {
      Files.deleteIfExists(portFile);
      List<String> cmd = new ArrayList<>();
      cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("-Xmx384m");
      cmd.add("-XX:TieredStopAtLevel=1");
      cmd.add("-cp");
      cmd.add(classPath());
      cmd.add("io.pointsman.examples.server.FacadeMain");
      cmd.add("--config");
      cmd.add(config.toString());
      cmd.add("--port-file");
      cmd.add(portFile.toString());
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
      while (!Files.exists(portFile)) {
        if (!p.isAlive()) {
          throw new IllegalStateException("the facade exited with " + p.exitValue()
              + " before listening; see " + log);
        }
        if (System.nanoTime() > deadline) {
          p.destroyForcibly();
          throw new IllegalStateException("the facade did not listen within "
              + START_TIMEOUT_SECONDS + " s; see " + log);
        }
        Thread.sleep(20);
      }
      return new FacadeProcess(p, Integer.parseInt(Files.readString(portFile).trim()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the facade", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the facade", e);
    }
  }

  private static String classPath() {
    Set<String> entries = new LinkedHashSet<>();
    ClassLoader cl = FacadeProcess.class.getClassLoader();
    while (cl != null) {
      if (cl instanceof URLClassLoader u) {
        for (URL url : u.getURLs()) {
          if ("file".equals(url.getProtocol())) {
            try {
              entries.add(Paths.get(url.toURI()).toString());
            } catch (java.net.URISyntaxException e) {
              throw new IllegalStateException("bad class path entry " + url, e);
            }
          }
        }
      }
      cl = cl.getParent();
    }
    if (entries.isEmpty()) {
      return System.getProperty("java.class.path");
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL, then waits for the process to be gone; returns its exit code. */
  int kill() throws InterruptedException {
    process.destroyForcibly();
    return process.waitFor();
  }

  /** SIGTERM (graceful shutdown), then waits; returns the exit code. */
  int stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return process.waitFor();
    }
    return process.exitValue();
  }

  boolean alive() {
    return process.isAlive();
  }
}
