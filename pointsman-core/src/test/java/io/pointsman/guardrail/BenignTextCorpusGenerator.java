package io.pointsman.guardrail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Writes {@code guardrail/injection/benign-text.tsv}, a training part of ordinary prompts that
 * the other parts lack: multi-line technical and everyday text (SQL, code in several languages,
 * logs, configuration, stack traces, e-mails, notes, chat), all benign. The injection parts
 * hold short texts built from attack frames and their near misses, so words that are merely
 * common — "now", "from", "orders", a line break — carried weight learned from attack frames;
 * this part is there to teach the classifier that they are no evidence. It is training data
 * only; no figure is published from it.
 *
 * <p>Deterministic (fixed seed); {@code BenignTextCorpusTest} checks the committed file is what
 * this writes. Regenerate with
 *
 * <pre>
 * java -cp pointsman-core/target/test-classes:pointsman-core/target/classes \
 *     io.pointsman.guardrail.BenignTextCorpusGenerator \
 *     pointsman-core/src/test/resources/guardrail/injection/benign-text.tsv
 * </pre>
 */
public final class BenignTextCorpusGenerator {
  static final long SEED = 20_261_203L;

  private final Random r = new Random(SEED);
  private final List<CorpusGenerator.Sample> out = new ArrayList<>();
  private final Set<String> seen = new HashSet<>();

  private BenignTextCorpusGenerator() {}

  /**
   * Writes the corpus.
   *
   * @param args the output file
   * @throws IOException if it cannot be written
   */
  public static void main(String[] args) throws IOException {
    Path file = Path.of(args[0]);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, CorpusGenerator.render(generate()), StandardCharsets.UTF_8);
  }

  static List<CorpusGenerator.Sample> generate() {
    BenignTextCorpusGenerator g = new BenignTextCorpusGenerator();
    g.all();
    return g.out;
  }

  private static final String[] ASKS = {
    "Why is this slow?", "Can you explain what this does?", "Find the bug, please.",
    "How can I make this shorter?", "What does this output mean?", "Rewrite this more clearly.",
    "Is anything wrong here?", "Add comments to this.", "Convert this to Python.",
    "Summarise this for the team.", "What should I check next?", "Please review.",
  };

  private static final String[] SQL = {
    "SELECT customer_id, count(*) FROM orders GROUP BY customer_id HAVING count(*) > 5;",
    "UPDATE accounts SET status = 'closed' WHERE last_login < now() - interval '2 years';",
    "SELECT o.id, o.total FROM orders o JOIN users u ON u.id = o.user_id ORDER BY o.total DESC "
        + "LIMIT 20;",
    "DELETE FROM sessions WHERE expires_at < now();",
    "CREATE INDEX idx_orders_created ON orders (created_at);",
    "INSERT INTO audit_log (actor, action, at) VALUES ('system', 'rotate', now());",
    "SELECT date_trunc('week', created_at) AS week, sum(amount) FROM payments GROUP BY 1 "
        + "ORDER BY 1;",
    "WITH recent AS (SELECT * FROM events WHERE ts > now() - interval '1 hour') SELECT type, "
        + "count(*) FROM recent GROUP BY type;",
    "ALTER TABLE products ADD COLUMN discontinued boolean DEFAULT false;",
    "SELECT name FROM employees WHERE manager_id IS NULL ORDER BY hired_on;",
  };
  private static final String[] CODE = {
    "for (int i = 0; i < items.size(); i++) {\n  total += items.get(i).price();\n}",
    "def load(path):\n    with open(path) as f:\n        return json.load(f)",
    "const res = await fetch(`/api/orders/${id}`);\nif (!res.ok) throw new Error(res.status);",
    "func (s *Server) Close() error {\n\treturn s.listener.Close()\n}",
    "if user.is_admin and not user.disabled:\n    grant(user, 'reports')",
    "public String toString() {\n  return name + \" (\" + id + \")\";\n}",
    "let now = Instant::now();\nlet elapsed = now.duration_since(start);",
    "try {\n  repo.save(order);\n} catch (DataAccessException e) {\n  log.warn(\"retry\", e);\n}",
    "fn main() {\n    println!(\"{}\", args().nth(1).unwrap_or_default());\n}",
    "git rebase -i HEAD~3\ngit push --force-with-lease origin feature/login",
    "docker run --rm -p 8080:8080 -e PROFILE=dev registry.local/app:1.4",
    "kubectl rollout restart deployment/web -n production",
    "SYSTEM_TIMEZONE = 'UTC'\nMAX_RETRIES = 3\nBASE_URL = 'https://api.example.com/v2'",
  };
  private static final String[] LOGS = {
    "2026-02-11 09:14:02 WARN  pool exhausted, waiting for connection (active=20, idle=0)",
    "INFO  [main] Started Application in 4.21 seconds (JVM running for 5.03)",
    "ERROR order-service: timeout after 30000 ms calling payment-gateway /v1/charge",
    "Exception in thread \"main\" java.lang.NullPointerException\n    at com.shop.Cart.total("
        + "Cart.java:88)\n    at com.shop.Main.main(Main.java:12)",
    "Traceback (most recent call last):\n  File \"app.py\", line 14, in <module>\n"
        + "    main()\nKeyError: 'region'",
    "nginx: [emerg] bind() to 0.0.0.0:80 failed (98: Address already in use)",
    "kernel: Out of memory: Killed process 4121 (java) total-vm:8123456kB",
    "GET /health 200 3ms\nGET /api/orders?page=2 200 41ms\nPOST /api/orders 201 88ms",
    "[system] backup finished: 14.2 GB in 00:12:31, next run scheduled for 02:00",
    "build FAILED: 2 tests failed in OrderServiceTest (expected 3 but was 2)",
  };
  private static final String[] CONFIG = {
    "server:\n  port: 8443\n  ssl:\n    enabled: true\nlogging:\n  level: INFO",
    "[database]\nhost = db.internal\nport = 5432\npool_size = 20",
    "{\n  \"name\": \"web\",\n  \"version\": \"2.3.1\",\n  \"scripts\": {\"start\": \"node "
        + "index.js\"}\n}",
    "FROM eclipse-temurin:17-jre\nCOPY app.jar /app.jar\nENTRYPOINT [\"java\", \"-jar\", "
        + "\"/app.jar\"]",
    "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"acme-logs\"\n  force_destroy = false\n}",
    "<dependency>\n  <groupId>org.slf4j</groupId>\n  <artifactId>slf4j-api</artifactId>\n"
        + "</dependency>",
  };
  private static final String[] PROSE = {
    "From now on the office opens at 8:30, and the front desk closes at six.",
    "The orders from last week shipped on Monday; two were returned.",
    "Now that the migration is done, we can turn off the old cluster.",
    "Please find the minutes of the board meeting attached.",
    "The new intern starts tomorrow; she will sit next to the design team.",
    "Our system was down for twenty minutes because of a certificate that expired.",
    "I need a polite way to tell a client that the deadline has to move.",
    "The instructions for the coffee machine are taped to the side of it.",
    "We follow the rules of the building: no bikes in the lobby.",
    "From the data it looks like most users sign up on mobile.",
    "The previous quarter was strong, but the forecast for the next one is flat.",
    "He always forgets his badge, so security lets him in from the side door.",
    "Here is the agenda: budget, hiring, then the office move.",
    "The developer said the new build fixes the crash on older phones.",
    "Remember to water the plants while I'm away; the instructions are on the fridge.",
    "Now and then the printer jams; open the back panel and pull the paper out.",
  };
  private static final String[] CHAT = {
    "user: can you help me with my essay?\nassistant: of course, what is it about?",
    "Alice: did the deploy go out?\nBob: yes, about ten minutes ago\nAlice: great, thanks",
    "Q: how do I reset my router?\nA: hold the button on the back for ten seconds.",
    "> are we still on for lunch?\nyes, 12:30 at the usual place",
  };

  private String pick(String[] options) {
    return options[r.nextInt(options.length)];
  }

  private void add(String kind, String text) {
    String t = text;
    for (int tries = 0; !seen.add(t) && tries < 200; tries++) {
      t = pick(ASKS) + "\n" + text;
    }
    out.add(new CorpusGenerator.Sample(false, kind, t));
  }

  /** A text of several pieces from the banks, joined by blank lines or spaces. */
  private String mixed(int pieces) {
    StringBuilder sb = new StringBuilder();
    String[][] banks = {SQL, CODE, LOGS, CONFIG, PROSE, PROSE, CHAT};
    for (int i = 0; i < pieces; i++) {
      if (i > 0) {
        sb.append(r.nextBoolean() ? "\n\n" : " ");
      }
      sb.append(pick(banks[r.nextInt(banks.length)]));
    }
    return sb.toString();
  }

  private void all() {
    for (int i = 0; i < 60; i++) {
      add("sql", pick(ASKS) + "\n" + pick(SQL) + (r.nextBoolean() ? "\n" + pick(SQL) : ""));
    }
    for (int i = 0; i < 60; i++) {
      add("code", pick(ASKS) + "\n```\n" + pick(CODE) + "\n```");
    }
    for (int i = 0; i < 60; i++) {
      add("log", pick(ASKS) + "\n" + pick(LOGS) + "\n" + pick(LOGS));
    }
    for (int i = 0; i < 40; i++) {
      add("config", pick(ASKS) + "\n" + pick(CONFIG));
    }
    for (int i = 0; i < 80; i++) {
      add("prose", pick(PROSE) + " " + pick(PROSE) + (r.nextBoolean() ? " " + pick(PROSE) : ""));
    }
    for (int i = 0; i < 20; i++) {
      add("chat", pick(CHAT) + "\n" + pick(ASKS));
    }
    for (int i = 0; i < 80; i++) {
      add("mixed", pick(ASKS) + "\n" + mixed(3 + r.nextInt(6)));
    }
  }
}
