package io.pointsman.examples.server;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the OpenAI-compatible facade until the process is stopped; SIGTERM or Ctrl-C shuts it
 * down gracefully (open exchanges finish, the journal drains into PostgreSQL).
 *
 * <p>Run on embedded defaults (an embedded PostgreSQL and the journal, both kept in
 * {@code ./pointsman-data} between starts, the in-process fixture provider, one generated key,
 * port 8080):
 * {@code mvn -q -B -pl pointsman-examples -am compile exec:java -Dexec.mainClass=io.pointsman.examples.server.FacadeMain}
 * ; options are listed by {@link FacadeConfig#fromArgs}, passed with
 * {@code -Dexec.args="--port 9090"}.
 */
public final class FacadeMain {
  private FacadeMain() {}

  /**
   * Starts the facade.
   *
   * @param args options, see {@link FacadeConfig#fromArgs}
   * @throws InterruptedException if interrupted while serving
   */
  public static void main(String[] args) throws InterruptedException {
    FacadeConfig config = FacadeConfig.fromArgs(args);
    PrintStream out = System.out;
    Facade facade = Facade.open(config);
    FacadeServer server = FacadeServer.start(facade);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "pointsman-shutdown"));
    out.println("Pointsman facade listening on " + server.baseUri());
    facade.describe(out);
    if (config.keys().size() == 1 && config.postgresUrl() == null) {
      out.println("  key:        " + config.keys().get(0).key()
          + "  (Authorization: Bearer <key>; generated for this run)");
    }
    out.println("  try:        curl -s " + server.baseUri() + "/chat/completions -H"
        + " 'Authorization: Bearer <key>' -d '{\"model\":\"" + config.models().get(0).name()
        + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}'");
    out.println("READY " + server.port());
    out.flush();
    stopped.await();
  }
}
