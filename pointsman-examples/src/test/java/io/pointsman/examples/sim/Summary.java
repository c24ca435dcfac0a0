package io.pointsman.examples.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Aggregates the results of many seeds into a report: what failed, where, with which seeds. */
final class Summary {
  private static final String COMMAND = "mvn -B -ntp -pl pointsman-examples -am test"
      + " -Dtest=SimulationTest -Dsurefire.failIfNoSpecifiedTests=false";

  /**
   * The one-line command that replays a seed alone, with the options of this run.
   *
   * @param seed the seed
   * @return the command
   */
  static String replay(long seed) {
    StringBuilder b = new StringBuilder(COMMAND);
    for (String p : new String[] {"pointsman.sim.faults", "pointsman.sim.singleChoice"}) {
      String v = System.getProperty(p);
      if (v != null) {
        b.append(" -D").append(p).append('=').append(v);
      }
    }
    return b.append(" -Dpointsman.sim.seed=").append(seed).toString();
  }

  private static final class PerInvariant {
    final Set<Long> seeds = new java.util.TreeSet<>();
    int violations;
    final Map<String, Integer> tags = new TreeMap<>();
    final Map<String, Integer> tagSets = new TreeMap<>();
    final Map<String, Long> tagSetSeed = new TreeMap<>();
    Simulation.Violation smallest;
  }

  private final Map<String, PerInvariant> invariants = new TreeMap<>();
  private final Map<String, int[]> profiles = new TreeMap<>();
  private final Map<String, int[]> singles = new TreeMap<>();
  private final Simulation.Stats stats = new Simulation.Stats();
  private final List<Simulation.Violation> first = new ArrayList<>();
  private int seeds;
  private int failedSeeds;

  void add(Simulation.Result r) {
    seeds++;
    stats.add(r.stats());
    String profile = r.profile().isEmpty() ? "(no faults)" : String.join("+",
        Simulation.names(r.profile()));
    if (r.profile().size() == 1) {
      singles.computeIfAbsent(profile, k -> new int[2])[0]++;
      if (!r.violations().isEmpty()) {
        singles.get(profile)[1]++;
      }
    }
    for (Fault f : r.profile().isEmpty() ? List.<Fault>of() : r.profile()) {
      profiles.computeIfAbsent(f.name(), k -> new int[2])[0]++;
    }
    if (r.profile().isEmpty()) {
      profiles.computeIfAbsent(profile, k -> new int[2])[0]++;
    }
    if (r.violations().isEmpty()) {
      return;
    }
    failedSeeds++;
    for (Fault f : r.profile()) {
      profiles.get(f.name())[1]++;
    }
    if (r.profile().isEmpty()) {
      profiles.get(profile)[1]++;
    }
    for (Simulation.Violation v : r.violations()) {
      if (first.size() < 10) {
        first.add(v);
      }
      PerInvariant p = invariants.computeIfAbsent(v.invariant(), k -> new PerInvariant());
      p.seeds.add(v.seed());
      p.violations++;
      for (String t : v.tags()) {
        p.tags.merge(t, 1, Integer::sum);
      }
      String set = v.tags().isEmpty() ? "(none)" : String.join(" ", v.tags());
      p.tagSets.merge(set, 1, Integer::sum);
      p.tagSetSeed.putIfAbsent(set, v.seed());
      if (p.smallest == null || v.tags().size() < p.smallest.tags().size()) {
        p.smallest = v;
      }
    }
  }

  int failedSeeds() {
    return failedSeeds;
  }

  List<Simulation.Violation> first() {
    return first;
  }

  String render(long firstSeed, double seconds) {
    StringBuilder b = new StringBuilder();
    b.append(String.format("gateway simulation: %d seeds from %d in %.1f s, %d failing seeds%n",
        seeds, firstSeed, seconds, failedSeeds));
    b.append(String.format("calls %d, provider sends %d, restarts %d, store wipes %d%n",
        stats.calls, stats.sends, stats.restarts, stats.wipes));
    b.append(String.format("documented overshoot (usage above the cap sent): %d calls, %d"
        + " micro-units excluded from the budget bound%n", stats.overshootCalls,
        stats.overshootMicros));
    b.append("outcomes (usage records): ").append(stats.outcomes).append('\n');
    b.append("faults and features met (calls or restarts): ")
        .append(new TreeMap<>(stats.tags)).append('\n');
    if (invariants.isEmpty()) {
      b.append("no invariant violated\n");
    }
    for (Map.Entry<String, PerInvariant> e : invariants.entrySet()) {
      PerInvariant p = e.getValue();
      b.append(String.format("%ninvariant %s: %d violations in %d seeds, e.g. seeds %s%n",
          e.getKey(), p.violations, p.seeds.size(), p.seeds.stream().limit(8).toList()));
      List<Map.Entry<String, Integer>> tags = new ArrayList<>(p.tags.entrySet());
      tags.sort(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()));
      b.append("  tags of the failing calls (count): ");
      Map<String, Integer> top = new LinkedHashMap<>();
      tags.stream().limit(12).forEach(t -> top.put(t.getKey(), t.getValue()));
      b.append(top).append('\n');
      List<Map.Entry<String, Integer>> sets = new ArrayList<>(p.tagSets.entrySet());
      sets.sort(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()));
      b.append("  most frequent tag sets of the failing step (count, first seed):\n");
      sets.stream().limit(10).forEach(t -> b.append(String.format("    %5d  seed %-6d %s%n",
          t.getValue(), p.tagSetSeed.get(t.getKey()), t.getKey())));
      b.append("  fewest-fault example: ").append(p.smallest).append('\n');
      b.append("  replay: ").append(replay(p.smallest.seed())).append('\n');
    }
    b.append("\nseeds per fault class in the profile (run / failing),"
        + " and of seeds whose profile is that class alone:\n");
    profiles.forEach((k, v) -> {
      int[] alone = singles.getOrDefault(k, new int[2]);
      b.append(String.format("  %-26s %6d / %-6d alone %6d / %d%n", k, v[0], v[1],
          k.startsWith("(") ? v[0] : alone[0], k.startsWith("(") ? v[1] : alone[1]));
    });
    return b.toString();
  }
}
