package io.pointsman.cache.semantic;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes the labelled pair corpora {@code semantic/pairs-tuning.jsonl} and
 * {@code semantic/pairs-heldout.jsonl}: deterministic, from the templates and word lists below.
 * The two splits share no template and no vocabulary list: the tuning split speaks of
 * programming, cooking, science, geography, sport and music; the held-out split of money,
 * travel, health, history, home repair, law, gardening, cars and pets, with its own wording of
 * every family (other politeness wrappers, other swaps, other symbols).
 *
 * <p>Each line is one pair: {@code id}, {@code split}, {@code family}, {@code label}
 * ({@code same}: the cached answer answers the query; {@code different}: it does not),
 * {@code cached} and {@code query} (the last user turn of each), and for the request-level
 * families {@code cached_context} / {@code query_context}: the request around that turn
 * (model, system prompt and earlier turns, tools, tool choice, response format) as
 * OpenAI-style JSON. Without a context the request is the default one: model
 * {@code gpt-4o-mini}, system prompt {@code You are a helpful assistant.}.
 *
 * <p>{@code SemanticPairCorpusTest} fails when the committed files differ from what this
 * writes; to rewrite them:
 *
 * <pre>
 * mvn -q -B -ntp -o -pl pointsman-cache -am test -Dtest=SemanticPairCorpusTest \
 *   -Dsurefire.failIfNoSpecifiedTests=false -Dpointsman.writeCorpus=true
 * </pre>
 */
public final class SemanticCorpusGenerator {
  static final String TUNING = "tuning";
  static final String HELDOUT = "heldout";
  static final String DEFAULT_SYSTEM = "You are a helpful assistant.";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final String split;
  private final List<ObjectNode> out = new ArrayList<>();

  private SemanticCorpusGenerator(String split) {
    this.split = split;
  }

  /**
   * Rewrites both corpus files under {@code src/test/resources/semantic/}.
   *
   * @param args ignored
   * @throws IOException if a file cannot be written
   */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of("src/test/resources/semantic");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("pairs-tuning.jsonl"), render(TUNING), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("pairs-heldout.jsonl"), render(HELDOUT),
        StandardCharsets.UTF_8);
  }

  /** Returns the JSONL text of one split. */
  static String render(String split) {
    SemanticCorpusGenerator g = new SemanticCorpusGenerator(split);
    if (split.equals(TUNING)) {
      g.tuning();
    } else {
      g.heldout();
    }
    StringBuilder sb = new StringBuilder();
    for (ObjectNode n : g.out) {
      sb.append(n.toString()).append('\n');
    }
    return sb.toString();
  }

  // ---------------------------------------------------------------------------------------
  // Building blocks

  private void pair(String family, boolean same, String cached, String query,
      ObjectNode cachedContext, ObjectNode queryContext) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("id", String.format(Locale.ROOT, "%s-%s-%03d", split.equals(TUNING) ? "t" : "h",
        family, count(family) + 1));
    n.put("split", split);
    n.put("family", family);
    n.put("label", same ? "same" : "different");
    n.put("cached", cached);
    n.put("query", query);
    if (cachedContext != null) {
      n.set("cached_context", cachedContext);
    }
    if (queryContext != null) {
      n.set("query_context", queryContext);
    }
    out.add(n);
  }

  private int count(String family) {
    int c = 0;
    for (ObjectNode n : out) {
      if (n.get("family").asText().equals(family)) {
        c++;
      }
    }
    return c;
  }

  /** Literal pairs, each row {cached, query}. */
  private void rows(String family, boolean same, String[][] rows) {
    for (String[] r : rows) {
      pair(family, same, r[0], r[1], null, null);
    }
  }

  /** A template with {a} and {b}; the query swaps the two values. */
  private void swaps(String family, String template, String[][] values) {
    for (String[] v : values) {
      pair(family, false, fill(template, v[0], v[1]), fill(template, v[1], v[0]), null, null);
    }
  }

  /** A template with {x}; each row {value in the cached text, value in the query}. */
  private void changes(String family, String template, String[][] values) {
    for (String[] v : values) {
      pair(family, false, template.replace("{x}", v[0]), template.replace("{x}", v[1]), null,
          null);
    }
  }

  private static String fill(String template, String a, String b) {
    return template.replace("{a}", a).replace("{b}", b);
  }

  /** Each base question against itself wrapped in the politeness forms, in turn. */
  private void politeness(String[] bases, String[][] wrappers) {
    for (int i = 0; i < bases.length; i++) {
      String[] w = wrappers[i % wrappers.length];
      String base = bases[i];
      String inner = w[0].isEmpty() ? base : lowerFirst(base);
      pair("politeness", true, base, w[0] + inner + w[1], null, null);
    }
  }

  /** Each base question against a casing and punctuation variant, in turn. */
  private void casing(String[] bases) {
    for (int i = 0; i < bases.length; i++) {
      String base = bases[i];
      String stripped = base.replaceAll("[?.!]+$", "");
      String variant;
      switch (i % 4) {
        case 0:
          variant = stripped.toLowerCase(Locale.ROOT);
          break;
        case 1:
          variant = stripped.toUpperCase(Locale.ROOT) + "?";
          break;
        case 2:
          variant = stripped + "??";
          break;
        default:
          variant = "  " + lowerFirst(stripped) + " ... ";
          break;
      }
      pair("casing_punctuation", true, base, variant, null, null);
    }
  }

  private static String lowerFirst(String s) {
    if (s.length() > 1 && Character.isUpperCase(s.charAt(1))) {
      return s; // an acronym opens the text
    }
    return Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }

  private static ObjectNode context(String model, String system, String[][] history,
      String tool, String toolChoice, String responseFormat) {
    ObjectNode c = MAPPER.createObjectNode();
    c.put("model", model);
    ArrayNode messages = c.putArray("messages");
    if (system != null) {
      messages.addObject().put("role", "system").put("content", system);
    }
    for (String[] turn : history) {
      messages.addObject().put("role", turn[0]).put("content", turn[1]);
    }
    if (tool != null) {
      ArrayNode tools = c.putArray("tools");
      for (String name : tool.split(",")) {
        ObjectNode t = tools.addObject();
        t.put("type", "function");
        ObjectNode f = t.putObject("function");
        f.put("name", name);
        f.put("description", "The " + name.replace('_', ' ') + " tool.");
        ObjectNode p = f.putObject("parameters");
        p.put("type", "object");
        p.putObject("properties").putObject("q").put("type", "string");
      }
    }
    if (toolChoice != null) {
      c.put("tool_choice", toolChoice);
    }
    if (responseFormat != null) {
      c.putObject("response_format").put("type", responseFormat);
    }
    return c;
  }

  private static ObjectNode plain() {
    return context("gpt-4o-mini", DEFAULT_SYSTEM, new String[0][], null, null, null);
  }

  private static ObjectNode withHistory(String system, String[][] history) {
    return context("gpt-4o-mini", system, history, null, null, null);
  }

  // ---------------------------------------------------------------------------------------
  // Tuning split: programming, cooking, science, geography, sport, music

  private void tuning() {
    String[] bases = {
        "How do I reverse a list in Python?",
        "What is the capital of Australia?",
        "How long should I boil an egg for a runny yolk?",
        "Why is the sky blue?",
        "How do I center a div with CSS?",
        "What is the boiling point of water at sea level?",
        "How many players are on a soccer team?",
        "What does a mitochondrion do?",
        "How do I remove duplicates from an array in JavaScript?",
        "What is the longest river in Europe?",
        "How do I make a sourdough starter?",
        "What causes the seasons on Earth?",
        "How do I tune a guitar by ear?",
        "What is a closure in programming?",
        "Which planet has the most moons?",
        "How do I caramelize onions?",
        "What is the offside rule in football?",
        "How do I merge two dictionaries in Python?",
        "What is photosynthesis?",
        "How do I read a file line by line in Java?",
        "What is the tallest mountain in Africa?",
        "How do I whip cream by hand?",
        "What is a major scale?",
        "How does a refrigerator keep food cold?",
        "What is the difference between a virus and a bacterium?",
        "How do I undo the last commit in Git?",
        "Where is the Atacama Desert?",
        "How do I keep pasta from sticking together?",
        "What is a time signature in music?",
        "How do I write a unit test in Go?",
        "What is the speed of sound in air?",
        "How do I temper chocolate?",
        "What is the population of Iceland?",
        "How do I convert a string to an integer in C?",
        "What is an isotope?",
        "How many strings does a cello have?",
    };
    politeness(bases, new String[][] {
        {"Can you tell me ", ""},
        {"", " Thanks!"},
        {"Please, ", ""},
        {"Hi! ", ""},
        {"Could you please tell me ", ""},
        {"", " Thank you."},
        {"Hello there. ", " Thanks in advance."},
        {"I would like to know: ", ""},
    });
    casing(bases);

    rows("contraction", true, new String[][] {
        {"What is the capital of Peru?", "What's the capital of Peru?"},
        {"Why does my code not compile?", "Why doesn't my code compile?"},
        {"I am getting a null pointer exception, why?", "I'm getting a null pointer exception, why?"},
        {"It is raining, can I still grill outside?", "It's raining, can I still grill outside?"},
        {"Why can't I import numpy?", "Why cannot I import numpy?"},
        {"What is a mutex?", "whats a mutex"},
        {"Why won't my bread rise?", "Why will my bread not rise?"},
        {"Why isn't my cake fluffy?", "Why is my cake not fluffy?"},
        {"What're the rules of cricket?", "What are the rules of cricket?"},
        {"Where's the Great Barrier Reef?", "Where is the Great Barrier Reef?"},
        {"Who's the composer of the Moonlight Sonata?", "Who is the composer of the Moonlight Sonata?"},
        {"Why don't penguins fly?", "Why dont penguins fly?"},
    });

    rows("synonym", true, new String[][] {
        {"How do I fix a flat bicycle tire?", "How do I repair a flat bicycle tire?"},
        {"What is the biggest ocean?", "What is the largest ocean?"},
        {"How do I choose a good knife for cooking?", "How do I pick a good knife for cooking?"},
        {"What are common mistakes in Python?", "What are common errors in Python?"},
        {"How do I begin learning piano?", "How do I start learning piano?"},
        {"Give me an example of a haiku.", "Give me a sample of a haiku."},
        {"What is the quickest way to peel garlic?", "What is the fastest way to peel garlic?"},
        {"What colour is copper sulfate?", "What color is copper sulfate?"},
        {"How do I optimise a SQL query?", "How do I optimize a SQL query?"},
        {"Is it difficult to learn Rust?", "Is it hard to learn Rust?"},
        {"How do I make my code run faster?", "How do I speed up my code?"},
        {"What is a good way to store fresh herbs?", "What is the best way to keep fresh herbs?"},
        {"How do I get rid of a stack overflow error?", "How do I solve a stack overflow error?"},
        {"What are the benefits of stretching?", "What are the advantages of stretching?"},
    });

    rows("reorder", true, new String[][] {
        {"In Python, how do I sort a dictionary by value?", "How do I sort a dictionary by value in Python?"},
        {"For a cake, how much baking powder do I need?", "How much baking powder do I need for a cake?"},
        {"In Git, how do I rename a branch?", "How do I rename a branch in Git?"},
        {"On Linux, how do I list open ports?", "How do I list open ports on Linux?"},
        {"With Maven, how do I skip tests?", "How do I skip tests with Maven?"},
        {"In chemistry, what is a mole?", "What is a mole in chemistry?"},
        {"What are the pros and cons of TypeScript?", "What are the cons and pros of TypeScript?"},
        {"How do I peel and chop a mango?", "How do I chop a mango after peeling it?"},
        {"Which is bigger, Canada or Brazil?", "Which is bigger, Brazil or Canada?"},
        {"When I run npm install, why do I get EACCES?", "Why do I get EACCES when I run npm install?"},
    });

    rows("typo", true, new String[][] {
        {"How do I reverse a string in Python?", "How do I reverse a string in Pyhton?"},
        {"What is the capital of Canada?", "What is the captial of Canada?"},
        {"How do I make pancakes?", "How do I make pancaeks?"},
        {"What is quantum entanglement?", "What is quantum entaglement?"},
        {"How do I install Docker on Ubuntu?", "How do I instal Docker on Ubuntu?"},
        {"What is the definition of a prime number?", "What is the defintion of a prime number?"},
        {"How does a transistor work?", "How does a transistor wrok?"},
        {"Who wrote the Four Seasons?", "Who wrote the Four Seasosn?"},
        {"What is a binary search tree?", "What is a binary serach tree?"},
        {"How do I knead dough properly?", "How do I knead dough propperly?"},
    });

    swaps("word_order", "Do {a} chase {b}?", new String[][] {
        {"cats", "mice"}, {"dogs", "cats"}, {"owls", "rats"}, {"sharks", "seals"}});
    swaps("word_order", "Should I add the {a} before the {b}?", new String[][] {
        {"eggs", "flour"}, {"salt", "yeast"}, {"oil", "garlic"}, {"milk", "butter"}});
    swaps("word_order", "Is {a} faster than {b}?", new String[][] {
        {"Java", "Python"}, {"quicksort", "mergesort"}, {"light", "sound"}, {"a cheetah", "a horse"}});
    swaps("word_order", "Convert this {a} code to {b}.", new String[][] {
        {"Python", "Go"}, {"Java", "Kotlin"}});

    rows("function_word", false, new String[][] {
        {"Recommend books by Carl Sagan.", "Recommend books about Carl Sagan."},
        {"Write a birthday poem for her.", "Write a birthday poem for me."},
        {"Write a song about my dog.", "Write a song for my dog."},
        {"Can I eat eggs and cheese together?", "Can I eat eggs or cheese together?"},
        {"Flights to Paris this weekend", "Flights from Paris this weekend"},
        {"Is the book on the table?", "Is the book under the table?"},
        {"What did he say to her?", "What did she say to him?"},
        {"Which countries border Spain?", "Which countries does Spain border?"},
        {"Songs like Yesterday by the Beatles", "Songs unlike Yesterday by the Beatles"},
        {"How do I cook rice in a pot?", "How do I cook rice without a pot?"},
        {"Is coffee good for you?", "Is coffee good for them?"},
        {"Who was president before Lincoln?", "Who was president after Lincoln?"},
        {"Should I cook the fish with the skin up?", "Should I cook the fish with the skin down?"},
        {"What can I cook with chicken and rice?", "What can I cook with chicken but no rice?"},
        {"Play some music by Bach.", "Play some music like Bach."},
        {"Is a tomato a fruit or a vegetable?", "Is a tomato a fruit and a vegetable?"},
    });

    rows("symbol", false, new String[][] {
        {"Is x > 5 true when x is 7?", "Is x < 5 true when x is 7?"},
        {"Simplify (a + b)^2", "Simplify (a - b)^2"},
        {"What does list[-1] return in Python?", "What does list[1] return in Python?"},
        {"Convert 100 $ to yen", "Convert 100 € to yen"},
        {"Is 100 Mbps fast enough for streaming?", "Is 100 MBps fast enough for streaming?"},
        {"What does a == b do in JavaScript?", "What does a === b do in JavaScript?"},
        {"What is the result of 7 % 3?", "What is the result of 7 / 3?"},
        {"Explain the && operator in C.", "Explain the || operator in C."},
        {"What does i++ do?", "What does i-- do?"},
        {"Is 5 MB bigger than 5 Mb?", "Is 5 Mb bigger than 5 MB?"},
        {"What does #include do in C?", "What does include do in C?"},
        {"What is 2^10?", "What is 2*10?"},
        {"What does @Override mean in Java?", "What does Override mean in Java?"},
        {"How do I use the -> operator in C++?", "How do I use the . operator in C++?"},
    });

    String longBase = "I am building a small web shop in Spring Boot. The products are stored in "
        + "PostgreSQL and the images in S3. Customers log in with email and password. ";
    changes("long_prompt", longBase + "How should I {x}?", new String[][] {
        {"store the password hashes", "store the product images"},
        {"cache the product list", "paginate the product list"},
        {"test the login flow", "test the checkout flow"},
        {"back up the database", "migrate the database"}});
    String recipe = "I have chicken thighs, rice, garlic, a lemon and some spinach. I want to "
        + "cook dinner for four people in under an hour. I own an oven and a large pan. ";
    changes("long_prompt", recipe + "{x}", new String[][] {
        {"What should I make?", "What dessert should I make?"},
        {"Can I do it all in the pan?", "Can I do it all in the oven?"},
        {"How long do the thighs need?", "How long does the rice need?"},
        {"Is the spinach needed?", "Is the lemon needed?"}});

    changes("number_unit", "How many grams of sugar are in {x}?", new String[][] {
        {"100 ml of cola", "330 ml of cola"}, {"one apple", "two apples"}});
    changes("number_unit", "Convert {x} to Fahrenheit.", new String[][] {
        {"20 degrees Celsius", "25 degrees Celsius"}, {"0 degrees Celsius", "0 Kelvin"}});
    changes("number_unit", "How far is {x} in miles?", new String[][] {
        {"10 km", "10 m"}, {"5 kilometers", "50 kilometers"}, {"a marathon", "a half marathon"}});
    changes("number_unit", "Bake at {x} for how long?", new String[][] {
        {"180°C", "180°F"}, {"200 degrees", "220 degrees"}});
    changes("number_unit", "What is {x}?", new String[][] {
        {"12 times 12", "12 times 13"}, {"the square root of 144", "the square root of 169"},
        {"15% of 80", "15% of 90"}, {"1,000 divided by 8", "10,000 divided by 8"},
        {"3.5 GB in MB", "3.5 GB in KB"}});

    changes("entity", "What is the capital of {x}?", new String[][] {
        {"France", "Spain"}, {"Austria", "Australia"}, {"Niger", "Nigeria"}});
    changes("entity", "Who composed {x}?", new String[][] {
        {"the Goldberg Variations", "the Enigma Variations"}, {"Swan Lake", "The Nutcracker"}});
    changes("entity", "How do I install {x} on Ubuntu?", new String[][] {
        {"Docker", "Podman"}, {"PostgreSQL", "MySQL"}, {"Node.js", "Deno"}});
    swaps("entity", "Did {a} acquire {b}?", new String[][] {
        {"Google", "YouTube"}, {"Microsoft", "GitHub"}});
    changes("entity", "What is the population of {x}?", new String[][] {
        {"Sweden", "Switzerland"}, {"Lagos", "Lisbon"}});

    rows("negation", false, new String[][] {
        {"Is Pluto a planet?", "Is Pluto not a planet?"},
        {"Why does my loop terminate?", "Why does my loop not terminate?"},
        {"Can dogs eat grapes?", "Can't dogs eat grapes?"},
        {"Bread recipe with yeast", "Bread recipe without yeast"},
        {"Which foods contain gluten?", "Which foods contain no gluten?"},
        {"Why is my test passing?", "Why is my test never passing?"},
        {"List the planets that have rings.", "List the planets that do not have rings."},
        {"Should I salt the pasta water?", "Should I not salt the pasta water?"},
        {"Is it safe to microwave plastic?", "Is it unsafe to microwave plastic?"},
        {"Which elements are metals?", "Which elements are non-metals?"},
        {"Why does Git track this file?", "Why does Git not track this file?"},
        {"Songs with lyrics for studying", "Songs without lyrics for studying"},
    });

    swaps("translation_direction", "Translate \"good morning\" from {a} to {b}.", new String[][] {
        {"English", "German"}, {"French", "Italian"}});
    swaps("translation_direction", "{a} to {b}: where is the train station?", new String[][] {
        {"English", "Spanish"}, {"Dutch", "English"}});
    changes("translation_direction", "Translate into {x}: the soup is too salty.", new String[][] {
        {"French", "Portuguese"}, {"Japanese", "Chinese"}});
    swaps("translation_direction", "Convert this recipe from {a} to {b} units.", new String[][] {
        {"metric", "imperial"}, {"imperial", "metric"}});

    changes("date", "What happened on {x}?", new String[][] {
        {"July 20, 1969", "July 21, 1969"}, {"9 November 1989", "9 November 1990"}});
    changes("date", "Which day of the week was {x}?", new String[][] {
        {"2000-01-01", "2001-01-01"}, {"March 3rd, 2021", "March 4th, 2021"}});
    changes("date", "Who won the World Cup in {x}?", new String[][] {
        {"2014", "2018"}, {"1998", "2002"}});
    changes("date", "What concerts are on {x} evening?", new String[][] {
        {"Friday", "Saturday"}, {"Monday", "Tuesday"}});
    changes("date", "What was the weather like in London {x}?", new String[][] {
        {"yesterday", "today"}, {"last week", "last year"}});

    rows("code_identifier", false, new String[][] {
        {"Why does getUser() return null?", "Why does getUsers() return null?"},
        {"Rename the variable fooBar to fooBaz.", "Rename the variable fooBar to fooQux."},
        {"What does `git reset --soft HEAD~1` do?", "What does `git reset --hard HEAD~1` do?"},
        {"Explain `SELECT * FROM users WHERE id = 1`", "Explain `SELECT * FROM user WHERE id = 1`"},
        {"Why is user_id undefined?", "Why is userId undefined?"},
        {"Fix: for (int i = 0; i < n; i++) sum += a[i];", "Fix: for (int i = 1; i < n; i++) sum += a[i];"},
        {"What does the -r flag of rm do?", "What does the -f flag of rm do?"},
        {"Why does `x.equals(y)` fail?", "Why does `x == y` fail?"},
        {"What is the time complexity of HashMap.get?", "What is the time complexity of TreeMap.get?"},
        {"Why does parseInt(\"08\") return 8?", "Why does parseFloat(\"08\") return 8?"},
    });


    // Second round of tuning pairs, written with the first.
    swaps("word_order", "Does {a} depend on {b}?", new String[][] {
        {"the kernel", "the driver"}, {"React", "Redux"}, {"pressure", "temperature"},
        {"the frontend", "the backend"}});
    swaps("word_order", "Can I substitute {a} for {b} in a cake?", new String[][] {
        {"butter", "oil"}, {"honey", "sugar"}, {"yogurt", "sour cream"}});
    swaps("word_order", "Is the set of {a} a subset of the {b}?", new String[][] {
        {"integers", "rationals"}, {"squares", "rectangles"}});
    rows("function_word", false, new String[][] {
        {"Who wrote the letter to the king?", "Who wrote the letter from the king?"},
        {"Is the function called before the loop?", "Is the function called inside the loop?"},
        {"Send the report to him.", "Send the report to us."},
        {"Can I bake bread with a rice cooker?", "Can I bake bread in a rice cooker?"},
        {"Are these mushrooms edible if cooked?", "Are these mushrooms edible unless cooked?"},
        {"Did the Beatles play with Elvis?", "Did the Beatles play for Elvis?"},
    });
    rows("symbol", false, new String[][] {
        {"Why is 0.1 + 0.2 != 0.3 in JavaScript?", "Why is 0.1 + 0.2 == 0.3 in JavaScript?"},
        {"What does x << 2 do?", "What does x >> 2 do?"},
        {"Is O(n) better than O(n^2)?", "Is O(n) better than O(n*2)?"},
        {"What does the ~ operator do in Python?", "What does the ! operator do in Python?"},
        {"How do I write a regex for \\d+?", "How do I write a regex for \\d*?"},
        {"What is 3 ** 2 in Python?", "What is 3 * 2 in Python?"},
    });
    changes("entity", "Who painted {x}?", new String[][] {
        {"the Mona Lisa", "the Last Supper"}});
    changes("entity", "What is the boiling point of {x}?", new String[][] {
        {"ethanol", "methanol"}, {"water", "heavy water"}});
    changes("entity", "How many moons does {x} have?", new String[][] {
        {"Mars", "Venus"}, {"Uranus", "Neptune"}});
    rows("negation", false, new String[][] {
        {"Does Python have a switch statement?", "Does Python have no switch statement?"},
        {"Can I freeze cooked rice?", "Can I never freeze cooked rice?"},
        {"Which animals are mammals?", "Which animals aren't mammals?"},
        {"Why does the compiler warn here?", "Why doesn't the compiler warn here?"},
    });
    changes("number_unit", "How many cups are in {x}?", new String[][] {
        {"a liter", "a gallon"}, {"2 pints", "3 pints"}});
    changes("number_unit", "What is {x} in binary?", new String[][] {
        {"10", "12"}, {"255", "256"}});
    changes("date", "Which team won the NBA finals in {x}?", new String[][] {
        {"2015", "2016"}});
    rows("code_identifier", false, new String[][] {
        {"What does `Arrays.asList` return?", "What does `List.of` return?"},
        {"Why does my_list.sort() return None?", "Why does sorted(my_list) return None?"},
        {"What is the default port of PostgreSQL, 5432?", "What is the default port of PostgreSQL, 5433?"},
        {"Why is `config.yaml` ignored?", "Why is `config.yml` ignored?"},
    });
    rows("synonym", true, new String[][] {
        {"How do I select a random element from a list?", "How do I choose a random element from a list?"},
        {"What is a good film about space?", "What is a good movie about space?"},
        {"How do I utilize a thread pool in Java?", "How do I use a thread pool in Java?"},
        {"Which are the biggest planets?", "Which are the largest planets?"},
    });
    rows("contraction", true, new String[][] {
        {"Why doesn't the oven heat up?", "Why does the oven not heat up?"},
        {"What's the speed of light?", "What is the speed of light?"},
        {"I've burnt the rice, what now?", "I have burnt the rice, what now?"},
    });
    rows("reorder", true, new String[][] {
        {"In Rust, what is a lifetime?", "What is a lifetime in Rust?"},
        {"If the dough is sticky, what should I add?", "What should I add if the dough is sticky?"},
        {"Who scored more goals, Messi or Ronaldo?", "Who scored more goals, Ronaldo or Messi?"},
    });

    String[][] h1 = {{"user", "I want to learn a language."}, {"assistant", "Which one?"}};
    String[][] h2 = {{"user", "I want to learn an instrument."}, {"assistant", "Which one?"}};
    String[][] h3 = {{"user", "Tell me about Paris."}, {"assistant", "Paris is the capital of France."}};
    String[][] h4 = {{"user", "Tell me about Rome."}, {"assistant", "Rome is the capital of Italy."}};
    String[][] h5 = {{"user", "My script is in Python."}, {"assistant", "Sure, paste it."}};
    String[][] h6 = {{"user", "My script is in Bash."}, {"assistant", "Sure, paste it."}};
    String[][] none = {};
    pair("conversation", false, "What is a good first step?", "What is a good first step?",
        withHistory(DEFAULT_SYSTEM, h1), withHistory(DEFAULT_SYSTEM, h2));
    pair("conversation", false, "How many people live there?", "How many people live there?",
        withHistory(DEFAULT_SYSTEM, h3), withHistory(DEFAULT_SYSTEM, h4));
    pair("conversation", false, "Why does it fail on line 3?", "Why does it fail on line 3?",
        withHistory(DEFAULT_SYSTEM, h5), withHistory(DEFAULT_SYSTEM, h6));
    pair("conversation", false, "What should I see first?", "What should I see first?",
        withHistory(DEFAULT_SYSTEM, h3), withHistory(DEFAULT_SYSTEM, none));
    pair("conversation", false, "Summarize the text above.", "Summarize the text above.",
        withHistory("You answer in French.", none), withHistory("You answer in English.", none));
    pair("conversation", false, "How do I start?", "How do I start?",
        withHistory("You are a chess coach.", none), withHistory("You are a running coach.", none));
    pair("conversation", false, "Is it done?", "Is it done?",
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "I put a steak on the grill."},
            {"assistant", "How thick is it?"}, {"user", "Two centimeters."}}),
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "I put a steak on the grill."},
            {"assistant", "How thick is it?"}, {"user", "Five centimeters."}}));
    pair("conversation", false, "And the next one?", "And the next one?",
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "What is the first prime?"},
            {"assistant", "2"}}),
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "What is the first prime?"},
            {"assistant", "2"}, {"user", "And the next one?"}, {"assistant", "3"}}));
    pair("conversation", true, "What is a good first step?", "What's a good first step?",
        withHistory(DEFAULT_SYSTEM, h1), withHistory(DEFAULT_SYSTEM, h1));
    pair("conversation", true, "How many people live there?", "How many people live there",
        withHistory(DEFAULT_SYSTEM, h3), withHistory(DEFAULT_SYSTEM, h3));
    pair("conversation", true, "Why does it fail on line 3?", "why does it fail on line 3?",
        withHistory(DEFAULT_SYSTEM, h5), withHistory(DEFAULT_SYSTEM, h5));
    pair("conversation", true, "How do I start?", "Please, how do I start?",
        withHistory("You are a chess coach.", none), withHistory("You are a chess coach.", none));
    pair("conversation", true, "Summarize the text above.", "Summarize the text above, please.",
        withHistory("You answer in French.", h3), withHistory("You answer in French.", h3));

    ObjectNode base = plain();
    pair("request_params", false, "What is the weather in Oslo?", "What is the weather in Oslo?",
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, "get_weather", null, null),
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, "get_forecast", null, null));
    pair("request_params", false, "What is the weather in Oslo?", "What is the weather in Oslo?",
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, "get_weather", "auto", null),
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, "get_weather", "none", null));
    pair("request_params", false, "List three sorting algorithms.",
        "List three sorting algorithms.",
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, null, null, "json_object"), base);
    pair("request_params", false, "List three sorting algorithms.",
        "List three sorting algorithms.", base,
        context("gpt-4o", DEFAULT_SYSTEM, none, null, null, null));
    pair("request_params", false, "Find me a pasta recipe.", "Find me a pasta recipe.",
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, "search_web", null, null), base);
    pair("request_params", false, "Find me a pasta recipe.", "Find me a pasta recipe.",
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, "search_web,get_recipe", null, null),
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, "search_web", null, null));
    pair("request_params", false, "Name a prime number.", "Name a prime number.",
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, null, null, "text"),
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, null, null, "json_object"));
    pair("request_params", true, "What is the weather in Oslo?", "What's the weather in Oslo?",
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, "get_weather", "auto", null),
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, "get_weather", "auto", null));
    pair("request_params", true, "List three sorting algorithms.",
        "list three sorting algorithms",
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, null, null, "json_object"),
        context("gpt-4o-mini", DEFAULT_SYSTEM, none, null, null, "json_object"));
    pair("request_params", true, "Name a prime number.", "Name a prime number, please.",
        context("gpt-4o", DEFAULT_SYSTEM, none, null, null, null),
        context("gpt-4o", DEFAULT_SYSTEM, none, null, null, null));
  }

  // ---------------------------------------------------------------------------------------
  // Held-out split: money, travel, health, history, home repair, law, gardening, cars, pets

  private void heldout() {
    String[] bases = {
        "What is compound interest?",
        "How do I renew my passport?",
        "What are the symptoms of dehydration?",
        "When did the Roman Empire fall?",
        "How do I unclog a kitchen sink?",
        "What is a power of attorney?",
        "When should I plant tulip bulbs?",
        "How often should I change my car's oil?",
        "How much should I feed a kitten?",
        "What is an index fund?",
        "Do I need a visa to visit Japan?",
        "How much water should an adult drink per day?",
        "Who was the first emperor of China?",
        "How do I patch a hole in drywall?",
        "What is the statute of limitations for a contract claim?",
        "How do I get rid of aphids on roses?",
        "Why is my check engine light on?",
        "How do I stop my dog from barking at night?",
        "What is a Roth IRA?",
        "What is the best time to visit Iceland?",
        "How can I lower my blood pressure naturally?",
        "What started the First World War?",
        "How do I fix a leaking faucet?",
        "What is the difference between a will and a trust?",
        "How deep should I plant potatoes?",
        "How do I jump-start a car?",
        "Why does my cat scratch the furniture?",
        "What is a credit score?",
        "What should I pack for a week in Lisbon?",
        "How long does a flu usually last?",
        "Who built the pyramids of Giza?",
        "How do I bleed a radiator?",
        "Can my landlord enter without notice?",
        "How do I compost kitchen scraps?",
        "What does a timing belt do?",
        "How do I trim a rabbit's nails?",
        "What is inflation?",
        "How early should I arrive at the airport for an international flight?",
    };
    politeness(bases, new String[][] {
        {"Hey, quick question: ", ""},
        {"", " Thank you so much!"},
        {"Could you tell me ", ""},
        {"Kindly answer this: ", ""},
        {"I was wondering, ", ""},
        {"Hello! ", " Cheers."},
        {"Do you know ", ""},
        {"Please help: ", " Thanks"},
        {"Can you please explain ", ""},
        {"I need to know: ", ""},
    });
    casing(bases);

    rows("contraction", true, new String[][] {
        {"What is a mortgage?", "What's a mortgage?"},
        {"Why doesn't my car start in the cold?", "Why does my car not start in the cold?"},
        {"I'm flying to Rome, what's the baggage limit?", "I am flying to Rome, what is the baggage limit?"},
        {"Why won't my lawn grow?", "Why will my lawn not grow?"},
        {"It's my first tax return, where do I start?", "It is my first tax return, where do I start?"},
        {"Why can't I sleep after coffee?", "Why cannot I sleep after coffee?"},
        {"What's the fine for speeding in France?", "What is the fine for speeding in France?"},
        {"Why isn't my basil growing?", "Why isnt my basil growing?"},
        {"They're asking for a deposit, is that legal?", "They are asking for a deposit, is that legal?"},
        {"Who's responsible for fixing a broken boiler?", "Who is responsible for fixing a broken boiler?"},
        {"Why didn't the Vikings settle America?", "Why did the Vikings not settle America?"},
        {"My dog's not eating, should I worry?", "My dog is not eating, should I worry?"},
    });

    rows("synonym", true, new String[][] {
        {"How do I repair a cracked windshield?", "How do I fix a cracked windshield?"},
        {"Should I buy or lease a car?", "Should I purchase or lease a car?"},
        {"How do I clean a sofa?", "How do I clean a couch?"},
        {"What is the largest desert in the world?", "What is the biggest desert in the world?"},
        {"Is it hard to grow orchids?", "Is it difficult to grow orchids?"},
        {"Can a physician refuse to treat a patient?", "Can a doctor refuse to treat a patient?"},
        {"Where should I go on holiday in May?", "Where should I go on vacation in May?"},
        {"How do I keep my kid safe online?", "How do I keep my child safe online?"},
        {"What is the cheapest way to travel across Europe?", "What is the least expensive way to travel across Europe?"},
        {"How do I lower my electricity bill?", "How do I reduce my electricity bill?"},
        {"What are the warning signs of a stroke?", "What are the early signs of a stroke?"},
        {"How do I get my deposit back from a landlord?", "How do I recover my deposit from a landlord?"},
        {"What is the best fertilizer for tomatoes?", "What is the ideal fertilizer for tomatoes?"},
        {"How do I stop my puppy biting?", "How do I keep my puppy from biting?"},
    });

    rows("reorder", true, new String[][] {
        {"In Spain, how much should I tip at a restaurant?", "How much should I tip at a restaurant in Spain?"},
        {"For a beginner, which index fund is best?", "Which index fund is best for a beginner?"},
        {"On a bicycle, how do I signal a left turn?", "How do I signal a left turn on a bicycle?"},
        {"At what age can a puppy be spayed?", "A puppy can be spayed at what age?"},
        {"Within the EU, do I need a passport?", "Do I need a passport within the EU?"},
        {"Using vinegar, how do I descale a kettle?", "How do I descale a kettle using vinegar?"},
        {"What are the advantages and disadvantages of renting?", "What are the disadvantages and advantages of renting?"},
        {"If I miss my connecting flight, what happens?", "What happens if I miss my connecting flight?"},
        {"Which is cheaper, gas or electric heating?", "Which is cheaper, electric or gas heating?"},
        {"Before a long drive, what should I check on my car?", "What should I check on my car before a long drive?"},
    });

    rows("typo", true, new String[][] {
        {"What is a mortgage broker?", "What is a morgage broker?"},
        {"How do I treat a sprained ankle?", "How do I treat a sprained ankel?"},
        {"When was the Magna Carta signed?", "When was the Magna Carta singed?"},
        {"How do I grow strawberries in pots?", "How do I grow strawberies in pots?"},
        {"What vaccines does my puppy need?", "What vacines does my puppy need?"},
        {"How do I change a tire?", "How do I chnage a tire?"},
        {"What is an emergency fund?", "What is an emergancy fund?"},
        {"Do I need travel insurance for Thailand?", "Do I need travel insurence for Thailand?"},
        {"How do I seal a bathtub?", "How do I seel a bathtub?"},
        {"What is probate?", "What is probait?"},
    });

    swaps("word_order", "Should I pay off {a} before {b}?", new String[][] {
        {"my credit card", "my student loan"}, {"the car loan", "the mortgage"},
        {"debt", "saving"}});
    swaps("word_order", "Is it better to buy {a} before {b}?", new String[][] {
        {"stocks", "bonds"}, {"gold", "silver"}});
    swaps("word_order", "Can {a} transmit diseases to {b}?", new String[][] {
        {"cats", "dogs"}, {"humans", "birds"}, {"ticks", "deer"}});
    swaps("word_order", "Did {a} defeat {b}?", new String[][] {
        {"Rome", "Carthage"}, {"England", "Spain"}});
    swaps("word_order", "Is driving from {a} to {b} shorter by the coast?", new String[][] {
        {"Nice", "Genoa"}, {"Porto", "Lisbon"}});

    rows("function_word", false, new String[][] {
        {"Find hotels near the airport.", "Find hotels far from the airport."},
        {"Recommend movies by Kurosawa.", "Recommend movies about Kurosawa."},
        {"Write a thank-you note for her.", "Write a thank-you note from her."},
        {"Can I take ibuprofen with paracetamol?", "Can I take ibuprofen instead of paracetamol?"},
        {"Is rent paid to the landlord or the agent?", "Is rent paid by the landlord or the agent?"},
        {"Trains from Munich to Vienna", "Trains via Munich to Vienna"},
        {"Should we sell the car or the van?", "Should we sell the car and the van?"},
        {"What did the Romans take from the Greeks?", "What did the Greeks take from the Romans?"},
        {"Is my dog allergic to chicken?", "Is your dog allergic to chicken?"},
        {"Can I plant roses under a tree?", "Can I plant roses above a tree?"},
        {"How much tax do I pay on my salary?", "How much tax does he pay on his salary?"},
        {"Ideas for a gift for my boss", "Ideas for a gift from my boss"},
        {"Who ruled England after Henry VIII?", "Who ruled England before Henry VIII?"},
        {"Can I sue my employer for this?", "Can my employer sue me for this?"},
        {"Should I water the lawn in the morning or the evening?", "Should I water the lawn in the morning and the evening?"},
        {"What foods are good for cats?", "What foods are good against cats?"},
    });

    rows("symbol", false, new String[][] {
        {"Is a savings rate > 4% good?", "Is a savings rate < 4% good?"},
        {"My blood pressure is 140/90, is that high?", "My blood pressure is 140/60, is that high?"},
        {"Price of a ticket in $", "Price of a ticket in £"},
        {"Is a 500 GB drive enough?", "Is a 500 Gb drive enough?"},
        {"Should my portfolio be +10% this year?", "Should my portfolio be -10% this year?"},
        {"Is 1 kWh of electricity expensive at 0.30 €?", "Is 1 kW of electricity expensive at 0.30 €?"},
        {"What does a return of 5% / year mean?", "What does a return of 5% * year mean?"},
        {"Tire pressure 2.2 bar vs 32 psi?", "Tire pressure 2.2 bar = 32 psi?"},
        {"Is my kitten's temperature of 39 °C normal?", "Is my kitten's temperature of 39 °F normal?"},
        {"Is an A+ energy rating good?", "Is an A- energy rating good?"},
        {"What does APR ≥ 20% mean for my loan?", "What does APR ≤ 20% mean for my loan?"},
        {"Is a 1:100 scale model big?", "Is a 1:10 scale model big?"},
        {"What does clause 4(a) of my lease mean?", "What does clause 4(b) of my lease mean?"},
        {"Compare the ETF's fee of 0.2% with 2%.", "Compare the ETF's fee of 0.2‰ with 2%."},
    });

    String lease = "My lease started in January and runs for twelve months. The rent is paid "
        + "monthly and the deposit was two months of rent. The flat is furnished and the "
        + "landlord lives abroad. ";
    changes("long_prompt", lease + "{x}", new String[][] {
        {"Can I end the lease early?", "Can the landlord end the lease early?"},
        {"Who pays for a broken washing machine?", "Who pays for a broken window?"},
        {"Can I sublet a room?", "Can I paint a room?"},
        {"When do I get the deposit back?", "When do I pay the deposit back?"}});
    String trip = "We are two adults and a child flying from Toronto to Lisbon in August. We "
        + "land at 7 am and want to spend three days in the city before driving south. ";
    changes("long_prompt", trip + "{x}", new String[][] {
        {"Where should we stay?", "Where should we eat?"},
        {"Do we need a car seat for the child?", "Do we need a visa for the child?"},
        {"Is it too hot to drive south in August?", "Is it too hot to walk around in August?"},
        {"What should we do on the first day?", "What should we do on the last day?"}});

    changes("number_unit", "Is a dose of {x} of ibuprofen safe?", new String[][] {
        {"200 mg", "2000 mg"}, {"400 mg", "400 g"}});
    changes("number_unit", "How much is {x} a month after tax?", new String[][] {
        {"a salary of 50,000", "a salary of 60,000"}, {"$4,000", "$40,000"}});
    changes("number_unit", "Is it safe to drive {x} on a spare tire?", new String[][] {
        {"50 miles", "50 kilometers"}, {"80 km/h", "80 mph"}});
    changes("number_unit", "What will {x} be worth in 10 years at 5% interest?", new String[][] {
        {"1,000 dollars", "1,500 dollars"}, {"10 thousand euros", "10 million euros"}});
    changes("number_unit", "How long does a flight of {x} take?", new String[][] {
        {"500 miles", "5,000 miles"}, {"two thousand kilometres", "two thousand miles"}});
    changes("number_unit", "Can a puppy of {x} eat dry food?", new String[][] {
        {"8 weeks", "8 months"}, {"three months", "four months"}});
    changes("number_unit", "Should I water the garden {x}?", new String[][] {
        {"twice a week", "twice a day"}});

    changes("entity", "Do I need a visa to visit {x}?", new String[][] {
        {"Canada", "China"}, {"Norway", "Nigeria"}, {"Georgia", "Armenia"}});
    changes("entity", "What caused the fall of {x}?", new String[][] {
        {"the Ming dynasty", "the Qing dynasty"}, {"Constantinople", "Babylon"}});
    changes("entity", "Is {x} a good first car?", new String[][] {
        {"a Toyota Corolla", "a Honda Civic"}, {"a Tesla Model 3", "a Tesla Model Y"}});
    swaps("entity", "Which is safer for a long trip, {a} or {b}?", new String[][] {
        {"Fiat", "Volvo"}});
    changes("entity", "How much does {x} cost per year?", new String[][] {
        {"owning a Labrador", "owning a Chihuahua"}, {"Netflix", "Spotify"},
        {"a season ticket to Arsenal", "a season ticket to Chelsea"}});

    rows("negation", false, new String[][] {
        {"Can I claim this expense?", "Can I not claim this expense?"},
        {"Is my landlord allowed to keep the deposit?", "Is my landlord not allowed to keep the deposit?"},
        {"Do cats need vaccines?", "Do cats never need vaccines?"},
        {"Plants that need full sun", "Plants that need no sun"},
        {"Why does my car start in the morning?", "Why doesn't my car start in the morning?"},
        {"Flights with a layover to Tokyo", "Flights without a layover to Tokyo"},
        {"Is it legal to record a phone call?", "Is it illegal to record a phone call?"},
        {"Should I take antibiotics for a cold?", "Shouldn't I take antibiotics for a cold?"},
        {"Which fruits are safe for dogs?", "Which fruits are unsafe for dogs?"},
        {"Is the museum open on Mondays?", "Is the museum closed on Mondays?"},
        {"Did the Allies invade Norway?", "Did the Allies never invade Norway?"},
        {"Does the warranty cover water damage?", "Does the warranty not cover water damage?"},
    });

    rows("translation_direction", false, new String[][] {
        {"Translate \"where is the pharmacy\" from Greek into Turkish.", "Translate \"where is the pharmacy\" from Turkish into Greek."},
        {"Translate from Korean to Thai: one ticket, please.", "Translate from Thai to Korean: one ticket, please."},
        {"How do you say \"check-in\" in Swedish?", "How do you say \"check-in\" in Finnish?"},
        {"Polish to Czech: the bill, please", "Czech to Polish: the bill, please"},
        {"Render this contract clause in Hindi.", "Render this contract clause in Urdu."},
        {"Translate \"I am allergic to nuts\" into Vietnamese.", "Translate \"I am allergic to nuts\" out of Vietnamese."},
        {"Convert the prices from euros to dollars.", "Convert the prices from dollars to euros."},
        {"Convert my height from feet to centimetres.", "Convert my height from centimetres to feet."},
    });

    changes("date", "Is the bank open on {x}?", new String[][] {
        {"December 24", "December 26"}, {"Easter Monday", "Easter Sunday"}});
    changes("date", "What was the exchange rate on {x}?", new String[][] {
        {"1 March 2020", "1 March 2021"}, {"2019-06-30", "2019-07-30"}});
    changes("date", "Is a flight on {x} cheaper?", new String[][] {
        {"a Tuesday", "a Thursday"}, {"the 3rd", "the 13th"}});
    changes("date", "What happened in Europe in {x}?", new String[][] {
        {"1848", "1868"}, {"the 1920s", "the 1930s"}});
    changes("date", "Can I file my taxes {x}?", new String[][] {
        {"after April 15", "after April 30"}, {"this month", "next month"}});

    rows("code_identifier", false, new String[][] {
        {"In my spreadsheet, why does =SUM(A1:A10) show 0?", "In my spreadsheet, why does =SUM(A1:A100) show 0?"},
        {"What does the error code P0420 mean?", "What does the error code P0430 mean?"},
        {"What does tax form W-2 cover?", "What does tax form W-9 cover?"},
        {"My router shows error E102, what now?", "My router shows error E201, what now?"},
        {"What does the flag --dry-run do in rsync?", "What does the flag --delete do in rsync?"},
        {"Why does `calcTax(income)` return NaN?", "Why does `calcTax(incomes)` return NaN?"},
        {"Is the VIN 1HGCM82633A004352 valid?", "Is the VIN 1HGCM82633A004353 valid?"},
        {"What is in Section 21 of the Housing Act?", "What is in Section 8 of the Housing Act?"},
        {"Explain the formula =VLOOKUP(B2,Rates,2,FALSE)", "Explain the formula =VLOOKUP(B2,Rates,3,FALSE)"},
        {"What does the ICD code J45 mean?", "What does the ICD code J44 mean?"},
    });


    // Second round of held-out pairs, written with the first.
    swaps("word_order", "Does {a} affect {b}?", new String[][] {
        {"my credit score", "my income"}, {"sleep", "stress"},
        {"interest rates", "house prices"}});
    swaps("word_order", "Should I move {a} into {b}?", new String[][] {
        {"my savings", "my pension"}, {"the ferns", "the shade"}});
    swaps("word_order", "Does {a} outrank {b}?", new String[][] {
        {"a colonel", "a major"}, {"a duke", "an earl"}});
    rows("function_word", false, new String[][] {
        {"Can I fly with my cat?", "Can I fly without my cat?"},
        {"Is the insurance paid by the tenant?", "Is the insurance paid for the tenant?"},
        {"Write a complaint to the airline.", "Write a complaint about the airline."},
        {"What did Napoleon sell to America?", "What did America sell to Napoleon?"},
        {"Do I plant garlic in autumn or spring?", "Do I plant garlic in autumn and spring?"},
        {"Can we bring the dog into the hotel?", "Can we bring the dog to the hotel?"},
    });
    rows("symbol", false, new String[][] {
        {"Is a cholesterol of 5.2 mmol/L > normal?", "Is a cholesterol of 5.2 mmol/L < normal?"},
        {"Should I convert my pension to a lump sum of 100k £?", "Should I convert my pension to a lump sum of 100k $?"},
        {"Is a credit card rate of 19.9% p.a. high?", "Is a credit card rate of 19.9% p.m. high?"},
        {"Is a 10 A fuse enough for a kettle?", "Is a 10 mA fuse enough for a kettle?"},
        {"What does a 2x4 board measure?", "What does a 2x6 board measure?"},
        {"Is +2 diopters strong for reading glasses?", "Is -2 diopters strong for reading glasses?"},
    });
    changes("entity", "When was {x} founded?", new String[][] {
        {"Harvard", "Yale"}, {"the Red Cross", "the United Nations"}});
    changes("entity", "What is the sales tax rate in {x}?", new String[][] {
        {"Texas", "Florida"}, {"Ontario", "Quebec"}});
    rows("negation", false, new String[][] {
        {"Can I deduct my home office?", "Can I never deduct my home office?"},
        {"Which plants are toxic to cats?", "Which plants are not toxic to cats?"},
        {"Do I have to pay the parking fine?", "Do I not have to pay the parking fine?"},
        {"Was the treaty ratified?", "Wasn't the treaty ratified?"},
    });
    changes("number_unit", "Is {x} a good resting heart rate?", new String[][] {
        {"60 bpm", "100 bpm"}});
    changes("number_unit", "How much is a {x} tip on 80 dollars?", new String[][] {
        {"15%", "20%"}});
    changes("number_unit", "Is a {x} mortgage too long?", new String[][] {
        {"30-year", "15-year"}});
    changes("date", "Did anything happen on {x}?", new String[][] {
        {"June 6, 1944", "June 6, 1945"}});
    rows("code_identifier", false, new String[][] {
        {"What does the warning light code C1201 mean?", "What does the warning light code C1210 mean?"},
        {"Is flight LH400 on time?", "Is flight LH401 on time?"},
        {"What does IRS form 1040-SR cover?", "What does IRS form 1040-NR cover?"},
        {"What is the torque spec for an M8 bolt?", "What is the torque spec for an M10 bolt?"},
    });
    rows("synonym", true, new String[][] {
        {"Can my mother claim me as a dependent?", "Can my mom claim me as a dependent?"},
        {"How do I choose a health insurance plan?", "How do I select a health insurance plan?"},
        {"Is my dog sick if it sleeps all day?", "Is my dog ill if it sleeps all day?"},
        {"What is the fastest route from Milan to Rome?", "What is the quickest route from Milan to Rome?"},
    });
    rows("contraction", true, new String[][] {
        {"We're renting a car in Crete, what's needed?", "We are renting a car in Crete, what is needed?"},
        {"Why aren't my hydrangeas blue?", "Why are my hydrangeas not blue?"},
        {"I'd like a quote for roof repair, where's a good start?", "I would like a quote for roof repair, where is a good start?"},
    });
    rows("reorder", true, new String[][] {
        {"In Portugal, is tap water safe to drink?", "Is tap water safe to drink in Portugal?"},
        {"When my tenant stops paying, what can I do?", "What can I do when my tenant stops paying?"},
        {"Which costs more to run, a dishwasher or a dryer?", "Which costs more to run, a dryer or a dishwasher?"},
    });

    String sys = "You are a travel agent.";
    String[][] g1 = {{"user", "I am going to Kyoto."}, {"assistant", "Lovely, when?"}};
    String[][] g2 = {{"user", "I am going to Cairo."}, {"assistant", "Lovely, when?"}};
    String[][] g3 = {{"user", "My account balance is 200 euros."}, {"assistant", "Noted."}};
    String[][] g4 = {{"user", "My account balance is 2000 euros."}, {"assistant", "Noted."}};
    String[][] g5 = {{"user", "My tomato leaves have yellow spots."}, {"assistant", "Since when?"}};
    String[][] g6 = {{"user", "My rose leaves have black spots."}, {"assistant", "Since when?"}};
    String[][] empty = {};
    pair("conversation", false, "What should I pack?", "What should I pack?",
        withHistory(sys, g1), withHistory(sys, g2));
    pair("conversation", false, "Can I afford the trip?", "Can I afford the trip?",
        withHistory(sys, g3), withHistory(sys, g4));
    pair("conversation", false, "What should I spray on them?", "What should I spray on them?",
        withHistory(DEFAULT_SYSTEM, g5), withHistory(DEFAULT_SYSTEM, g6));
    pair("conversation", false, "What should I pack?", "What should I pack?",
        withHistory(sys, g1), withHistory("You are a hiking guide.", g1));
    pair("conversation", false, "Is that normal?", "Is that normal?",
        withHistory("You are a veterinarian.", empty), withHistory("You are a car mechanic.", empty));
    pair("conversation", false, "Say it again, shorter.", "Say it again, shorter.",
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "Explain escrow."},
            {"assistant", "Escrow is money held by a third party until a deal closes."}}),
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "Explain probate."},
            {"assistant", "Probate is the court process that settles a will."}}));
    pair("conversation", false, "Which one is older?", "Which one is older?",
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "Compare Oxford and Cambridge."},
            {"assistant", "Both are old universities."}}),
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "Compare Harvard and Yale."},
            {"assistant", "Both are old universities."}}));
    pair("conversation", false, "Yes, go ahead.", "Yes, go ahead.",
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "Cancel my booking."},
            {"assistant", "Shall I cancel it?"}}),
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "Extend my booking."},
            {"assistant", "Shall I extend it?"}}));
    pair("conversation", true, "What should I pack?", "What should I pack, please?",
        withHistory(sys, g1), withHistory(sys, g1));
    pair("conversation", true, "Can I afford the trip?", "can i afford the trip",
        withHistory(sys, g3), withHistory(sys, g3));
    pair("conversation", true, "What should I spray on them?", "What should I spray on them",
        withHistory(DEFAULT_SYSTEM, g5), withHistory(DEFAULT_SYSTEM, g5));
    pair("conversation", true, "Is that normal?", "Is that normal??",
        withHistory("You are a veterinarian.", g6), withHistory("You are a veterinarian.", g6));
    pair("conversation", true, "Which one is older?", "Which one's older?",
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "Compare Oxford and Cambridge."},
            {"assistant", "Both are old universities."}}),
        withHistory(DEFAULT_SYSTEM, new String[][] {{"user", "Compare Oxford and Cambridge."},
            {"assistant", "Both are old universities."}}));

    ObjectNode base = plain();
    pair("request_params", false, "Book a table for two tonight.", "Book a table for two tonight.",
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "book_table", null, null),
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "find_restaurant", null, null));
    pair("request_params", false, "Book a table for two tonight.", "Book a table for two tonight.",
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "book_table", "required", null),
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "book_table", "auto", null));
    pair("request_params", false, "Summarize my last three bank transactions.",
        "Summarize my last three bank transactions.",
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "list_transactions", null, "json_object"),
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "list_transactions", null, null));
    pair("request_params", false, "Give me a packing list for Oslo.",
        "Give me a packing list for Oslo.", base,
        context("gpt-4.1", DEFAULT_SYSTEM, empty, null, null, null));
    pair("request_params", false, "Give me a packing list for Oslo.",
        "Give me a packing list for Oslo.",
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, null, null, "json_object"),
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, null, null, "text"));
    pair("request_params", false, "What is my account balance?", "What is my account balance?",
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "get_balance", null, null), base);
    pair("request_params", false, "What is my account balance?", "What is my account balance?",
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "get_balance", "none", null),
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "get_balance", "required", null));
    pair("request_params", true, "Book a table for two tonight.",
        "Please book a table for two tonight.",
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "book_table", "auto", null),
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "book_table", "auto", null));
    pair("request_params", true, "Give me a packing list for Oslo.",
        "give me a packing list for oslo",
        context("gpt-4.1", DEFAULT_SYSTEM, empty, null, null, "json_object"),
        context("gpt-4.1", DEFAULT_SYSTEM, empty, null, null, "json_object"));
    pair("request_params", true, "What is my account balance?", "What's my account balance?",
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "get_balance", null, null),
        context("gpt-4o-mini", DEFAULT_SYSTEM, empty, "get_balance", null, null));
  }
}
