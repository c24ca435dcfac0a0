package io.pointsman.jmh.guardrail;

import java.util.Random;

/** Realistic prompt text of a given size: prose, code and logs, with no secret in it. */
final class Payloads {
  private static final String[] PIECES = {
    "Can you summarise the attached meeting notes in three bullet points? ",
    "The build log says: error: cannot find symbol class StringUtils at line 42. ",
    "In OAuth, what is the difference between an access token and a refresh token? ",
    "def handler(event, context):\n    items = [normalise(x) for x in event['records']]\n"
        + "    return {'statusCode': 200, 'count': len(items)}\n",
    "2026-03-01T10:00:00Z INFO request_id=5f2c9a status=200 latency_ms=41 path=/v1/items\n",
    "Set max_tokens to 512 and temperature to 0.2; the password policy needs 14 characters. ",
    "SELECT region, sum(amount) FROM orders WHERE created_at > now() - interval '7 days' "
        + "GROUP BY region ORDER BY 2 DESC;\n",
    "Please ignore the typos in my previous message, I was typing on my phone. ",
    "Our API returns 401 when the session expired; the client should refresh and retry. ",
    "Explain how TLS certificate pinning works on Android, with an example. ",
  };

  private Payloads() {}

  static String text(int chars, long seed) {
    Random random = new Random(seed);
    StringBuilder sb = new StringBuilder(chars + 128);
    while (sb.length() < chars) {
      sb.append(PIECES[random.nextInt(PIECES.length)]);
    }
    return sb.substring(0, chars);
  }
}
