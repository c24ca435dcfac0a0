package io.pointsman.provider;

/**
 * {@link StatusClassificationTest} again over the pulled path (the JDK client behind the transport SPI), the one
 * every transport other than the JDK's default takes.
 */
class StatusClassificationPulledTest extends StatusClassificationTest {
  @Override
  OpenAiProvider.Builder openAiBuilder() {
    return OpenAiProvider.builder().transport(ProviderTransportPulledTest.pulled(Fixtures.SHORT));
  }

  @Override
  AnthropicProvider.Builder anthropicBuilder() {
    return AnthropicProvider.builder()
        .transport(ProviderTransportPulledTest.pulled(Fixtures.SHORT));
  }
}
