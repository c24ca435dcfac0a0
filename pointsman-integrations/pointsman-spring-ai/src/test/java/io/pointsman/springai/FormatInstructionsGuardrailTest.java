package io.pointsman.springai;

import static org.assertj.core.api.Assertions.assertThatCode;

import io.pointsman.guardrail.InputGuardrailChain;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.ai.converter.BeanOutputConverter;
import org.springframework.ai.converter.ListOutputConverter;
import org.springframework.ai.converter.MapOutputConverter;

/**
 * The format instructions Spring AI's output converters append to a user message — taken from
 * the converters on the classpath, not copied — pass the default input guardrail chain (an
 * earlier injection classifier blocked BeanOutputConverter's after "List three cities and their
 * temperatures.").
 */
class FormatInstructionsGuardrailTest {
  record CityTemperature(String city, double temperature) {}

  record Film(String title, int year) {}

  record Actor(String name, List<Film> films) {}

  private static final Identity ANYONE = new Identity("k1", "user", "t1", "o1", Set.of(),
      Grant.all(), Grant.all(), Grant.all());

  private static final List<String> QUESTIONS = List.of(
      "List three cities and their temperatures.",
      "Generate the filmography of 5 movies for Tom Hanks.",
      "What is the weather in Paris?",
      "Name four rivers in Africa and their lengths.",
      "Give me the opening hours of the museum.");

  private static void passes(String user) {
    ChatRequest request = ChatRequest.builder().model("gpt-test")
        .addMessage(Message.user(user)).build();
    assertThatCode(() -> InputGuardrailChain.ofDefaults().check(ANYONE, request))
        .as(user).doesNotThrowAnyException();
  }

  @Test
  void beanMapAndListConverterInstructionsPassTheDefaultChain() {
    List<String> formats = List.of(
        new BeanOutputConverter<>(CityTemperature[].class).getFormat(),
        new BeanOutputConverter<>(CityTemperature.class).getFormat(),
        new BeanOutputConverter<>(Actor.class).getFormat(),
        new MapOutputConverter().getFormat(),
        new ListOutputConverter().getFormat());
    for (String question : QUESTIONS) {
      for (String format : formats) {
        // ChatClient appends the converter's format to the user text after a line break.
        passes(question + System.lineSeparator() + format);
      }
    }
  }
}
