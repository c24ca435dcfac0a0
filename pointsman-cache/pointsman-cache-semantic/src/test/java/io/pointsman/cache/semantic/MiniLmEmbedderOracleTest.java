package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins {@link MiniLmEmbedder} to langchain4j's pipeline over the same model (Hugging Face's
 * Rust tokenizer through DJL, langchain4j's pooling), component by component.
 */
class MiniLmEmbedderOracleTest {
  private static final double TOLERANCE = 1e-5;

  private static EmbeddingModel oracle;
  private static MiniLmEmbedder embedder;

  @BeforeAll
  static void load() {
    oracle = new AllMiniLmL6V2QuantizedEmbeddingModel();
    embedder = MiniLmEmbedder.builder().build();
  }

  @AfterAll
  static void close() {
    embedder.close();
  }

  /** At least 100 inputs below 127 word pieces, where every window gives the same ids. */
  static List<String> inputs() {
    List<String> texts = new ArrayList<>(List.of(
        "Hello, world!",
        "How do I reverse a list in Python?",
        "What is the capital of France?",
        "a",
        "?",
        "   leading and trailing spaces   ",
        "tabs\tand\nnewlines\r\nmixed",
        "UPPER CASE AND MiXeD cAsE",
        "Café résumé naïve façade coöperate",
        "Straße in München, Ærøskøbing, Łódź",
        "İstanbul'da hava nasıl? ΟΔΥΣΣΕΥΣ και η θάλασσα",
        "Привет, как дела? Это тест.",
        "مرحبا بالعالم",
        "שלום עולם",
        "日本語のテキストと漢字",
        "中文分词测试：你好，世界！",
        "한국어 문장도 있습니다",
        "emoji 😀🎉 and a flag 🇫🇷",
        "zero\u200bwidth\u200cjoiners\u200d here",
        "control\u0001chars\u0007in\u001btext",
        "non\u00a0breaking\u2003spaces\u3000wide",
        "combining e\u0301 a\u0308 n\u0303",
        "full-width ＡＢＣ１２３",
        "ligature ﬁ ﬂ and ℃ ™ №",
        "math ∑ ∫ √ ≤ ≥ ≠ ∞",
        "currency $5 €10 £20 ¥30 ₹40",
        "punctuation!!! ??? ... --- ;;; ::: \"quotes\" 'single' `backtick`",
        "brackets (round) [square] {curly} <angle>",
        "email: someone@example.com, url: https://example.com/a?b=c&d=e",
        "path C:\\Users\\me\\file.txt and /usr/local/bin",
        "code: for (int i = 0; i < n; i++) { sum += a[i]; }",
        "snake_case camelCase kebab-case SCREAMING_CASE",
        "numbers 3.14159 2,718 1e-10 0x1F -42 +7",
        "dates 2024-01-31 and 31/01/2024 at 12:30",
        "version v1.2.3-beta+build.45",
        "hashtag #java @mention",
        "Supercalifragilisticexpialidocious antidisestablishmentarianism",
        "pneumonoultramicroscopicsilicovolcanoconiosis",
        "x".repeat(100),
        "y".repeat(101),
        "unknown ﷽ glyph",
        "Don't you think it's isn't won't can't shouldn't?",
        "U.S.A. e.g. i.e. etc.",
        "The quick brown fox jumps over the lazy dog.",
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
        "private\ue000use and \ufffd replacement",
        "surrogate pair 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛",
        "¿Dónde está la biblioteca? ¡Hola!",
        "Ελληνικά: αβγ ΑΒΓ ς σ",
        "Tiếng Việt có dấu",
        "हिन्दी पाठ",
        "ภาษาไทย",
        "Ⅻ Roman numerals ⅷ",
        "«guillemets» „low quotes“ ‹single›",
        "em—dash en–dash hyphen‐ minus−",
        "ellipsis… bullet • middle·dot",
        "SQL: SELECT * FROM users WHERE id = 5;",
        "JSON {\"a\": [1, 2, {\"b\": null}]}",
        "Explain recursion like I'm five.",
        "Summarize the following text in three bullet points."));
    String[] words = {"cache", "gateway", "tenant", "vector", "index", "redis", "model",
        "prompt", "token", "window"};
    for (int i = 1; i <= 50; i++) {
      StringBuilder sb = new StringBuilder();
      for (int w = 0; w < i * 2 && w < 90; w++) {
        sb.append(words[(w * 7 + i) % words.length]).append(w % 5 == 4 ? ". " : " ");
      }
      texts.add(sb.toString());
    }
    return texts;
  }

  @Test
  void matchesTheOracleOnMoreThanOneHundredInputs() {
    List<String> texts = inputs();
    assertThat(texts).hasSizeGreaterThanOrEqualTo(100);
    for (String text : texts) {
      assertClose(embedder.embed(text), oracle.embed(text).content().vector(), text);
    }
  }

  @Test
  void matchesTheOracleInBatches() {
    List<String> texts = inputs().subList(0, 40);
    List<float[]> ours = embedder.embedAll(texts);
    var theirs = oracle.embedAll(texts.stream().map(TextSegment::from).toList()).content();
    for (int i = 0; i < texts.size(); i++) {
      assertClose(ours.get(i), theirs.get(i).vector(), texts.get(i));
    }
  }

  @Test
  void matchesTheOracleUnderConcurrentCalls() throws Exception {
    List<String> texts = inputs();
    List<float[]> expected = new ArrayList<>();
    for (String text : texts) {
      expected.add(oracle.embed(text).content().vector());
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<float[]>> futures = new ArrayList<>();
      for (int round = 0; round < 2; round++) {
        for (String text : texts) {
          futures.add(pool.submit(() -> embedder.embed(text)));
        }
      }
      for (int i = 0; i < futures.size(); i++) {
        assertClose(futures.get(i).get(), expected.get(i % texts.size()), texts.get(i % texts.size()));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void matchesTheOracleAtItsOwnWindowOf128() {
    // The artifact's tokenizer.json truncates at 128 tokens, and langchain4j honours it.
    try (MiniLmEmbedder window128 = MiniLmEmbedder.builder().window(128).build()) {
      for (int pieces : new int[] {124, 125, 126, 127, 128, 129, 200, 1000}) {
        String text = "hello ".repeat(pieces - 3) + "world wide web";
        assertClose(window128.embed(text), oracle.embed(text).content().vector(), pieces + " pieces");
      }
    }
  }

  @Test
  void matchesTheOracleAtTheDefaultWindowOf256(@TempDir Path dir) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode json;
    try (InputStream in = getClass().getResourceAsStream(MiniLmEmbedder.QUANTIZED_TOKENIZER)) {
      json = (ObjectNode) mapper.readTree(in);
    }
    ((ObjectNode) json.get("truncation")).put("max_length", 256);
    Path tokenizer = dir.resolve("tokenizer-256.json");
    mapper.writeValue(tokenizer.toFile(), json);
    Path model = dir.resolve("model.onnx");
    try (InputStream in = getClass().getResourceAsStream(MiniLmEmbedder.QUANTIZED_MODEL)) {
      Files.copy(in, model);
    }
    EmbeddingModel oracle256 = new OnnxEmbeddingModel(model, tokenizer, PoolingMode.MEAN);
    for (int pieces : new int[] {126, 127, 128, 200, 252, 253, 254, 255, 256, 257, 300, 600}) {
      String text = "Tenant " + "cache ".repeat(pieces - 3) + "deadline";
      assertClose(embedder.embed(text), oracle256.embed(text).content().vector(), pieces + " pieces");
    }
  }

  @Test
  void embedsEmptyAndWhitespaceOnlyTextAsClsSep() {
    float[] empty = embedder.embed("");
    assertThat(norm(empty)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
    assertClose(embedder.embed("   \t\n"), empty, "whitespace");
    assertClose(embedder.embed("\u200b\u0000"), empty, "format and NUL characters");
    assertThatThrownBy(() -> oracle.embed("   ")).isInstanceOf(IllegalArgumentException.class);
  }

  private static double norm(float[] v) {
    double s = 0;
    for (float x : v) {
      s += x * x;
    }
    return Math.sqrt(s);
  }

  private static void assertClose(float[] ours, float[] theirs, String what) {
    assertThat(ours).as(what).hasSize(MiniLmEmbedder.DIMENSIONS);
    assertThat(theirs).as(what).hasSize(MiniLmEmbedder.DIMENSIONS);
    double worst = 0;
    for (int i = 0; i < ours.length; i++) {
      worst = Math.max(worst, Math.abs(ours[i] - theirs[i]));
    }
    assertThat(worst).as("largest component difference for %s", what).isLessThanOrEqualTo(TOLERANCE);
  }
}
