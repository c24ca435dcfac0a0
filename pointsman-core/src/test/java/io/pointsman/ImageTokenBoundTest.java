package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.TokenBounds;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Json;
import io.pointsman.spi.Admission;
import org.junit.jupiter.api.Test;

/**
 * Finding: every image part was bounded at a fixed 2,000 tokens, below what some models bill
 * for one image (gpt-4o-mini bills a high-detail 768 × 2048 image as 2,833 + 8 × 5,667 =
 * 48,169 tokens). Each model now carries its own per-image bound, with a safe default.
 */
class ImageTokenBoundTest {
  private static final String TWO_IMAGES = "{\"model\":\"%s\",\"messages\":[{\"role\":\"user\","
      + "\"content\":[{\"type\":\"text\",\"text\":\"compare\"},{\"type\":\"image_url\","
      + "\"image_url\":{\"url\":\"https://example.com/a.png\",\"detail\":\"high\"}},"
      + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://example.com/b.png\"}}]}]}";

  private static ChatRequest twoImages(String model) {
    return Json.readRequest(String.format(TWO_IMAGES, model));
  }

  @Test
  void theHoldBoundsEachImageAtTheModelsOwnImageBound() {
    BoundaryRig rig = new BoundaryRig();
    rig.catalog = ModelCatalog.builder()
        .model(ModelSpec.builder("m").contextWindow(128_000).maxOutputTokens(100)
            .price(BoundaryRig.PRICE).capabilities(ModelSpec.VISION)
            .imageTokens(48_169) // new API
            .build())
        .build();

    rig.gateway().chat(twoImages("m"), CallOptions.of(BoundaryRig.KEY));

    Admission admission = rig.limiter.admissions.get(0);
    assertThat(admission.inputTokens()).isGreaterThanOrEqualTo(2 * 48_169);
    assertThat(admission.worstCaseMicros())
        .isEqualTo(admission.inputTokens() + 100 * 2);
  }

  @Test
  void aModelWithoutItsOwnBoundUsesTheDefaultThatCoversOpenAiHighDetail() {
    BoundaryRig rig = new BoundaryRig();
    rig.catalog = ModelCatalog.builder()
        .model(ModelSpec.builder("m").contextWindow(128_000).maxOutputTokens(100)
            .price(BoundaryRig.PRICE).capabilities(ModelSpec.VISION).build())
        .build();

    rig.gateway().chat(twoImages("m"), CallOptions.of(BoundaryRig.KEY));

    // gpt-4o high detail: at most 85 + 8 tiles x 170 = 1,445; patch-based models up to 3,779.
    assertThat(rig.limiter.admissions.get(0).inputTokens()).isGreaterThanOrEqualTo(2 * 3_779);
  }

  @Test
  void theBoundsCountTheGivenImageBoundPerImagePart() {
    ChatRequest request = twoImages("m");
    assertThat(TokenBounds.upperBound(request, 1_000) - TokenBounds.upperBound(request, 10)) // new API
        .isEqualTo(2 * 990); // new API
    assertThat(TokenBounds.exact(request, 1_000) - TokenBounds.exact(request, 10)) // new API
        .isEqualTo(2 * 990); // new API
    assertThat(ModelSpec.builder("x").build().imageTokens()) // new API
        .isEqualTo(ModelSpec.DEFAULT_IMAGE_TOKENS).isEqualTo(4_096); // new API
  }
}
