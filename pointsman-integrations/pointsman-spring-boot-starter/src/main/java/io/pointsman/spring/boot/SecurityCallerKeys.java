package io.pointsman.spring.boot;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Objects;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The virtual key of the current Spring Security {@link Authentication}, read from a
 * configurable attribute ({@code pointsman.security.key-attribute}, default
 * {@code pointsman_key}):
 *
 * <ol>
 *   <li>{@code name}: the authentication's name ({@link Authentication#getName()});
 *   <li>else the principal's attribute of that name: a {@link Map} entry, an OAuth2 principal's
 *       {@code getAttribute(name)}, a JWT's {@code getClaim(name)}, or a bean property;
 *   <li>else the entry of that name in the authentication's details, when they are a map.
 * </ol>
 *
 * <p>With no authenticated principal (none, or anonymous) or no such attribute, the fallback
 * key is used (the configured {@code pointsman.default-key}); without one the call is refused
 * with 401. Reads the security context of the calling thread, so it must be asked on the
 * request's thread (the Spring AI chat model does, for call and stream alike). Thread-safe.
 */
public final class SecurityCallerKeys implements CallerKeys {
  private final String attribute;
  private final String fallback;

  /**
   * Creates the keys.
   *
   * @param attribute where the key is read ({@code name}, or an attribute name)
   * @param fallback the key of calls without an authenticated principal or attribute, or null
   *     to refuse them
   * @throws NullPointerException if attribute is null
   * @throws IllegalArgumentException if attribute is blank
   */
  public SecurityCallerKeys(String attribute, String fallback) {
    Objects.requireNonNull(attribute, "attribute");
    if (attribute.isBlank()) {
      throw new IllegalArgumentException("the key attribute must not be blank");
    }
    this.attribute = attribute;
    this.fallback = fallback;
  }

  @Override
  public String keyFor() {
    Authentication auth = SecurityContextHolder.getContext().getAuthentication();
    if (auth != null && auth.isAuthenticated() && !(auth instanceof AnonymousAuthenticationToken)) {
      String key = read(auth);
      if (key != null && !key.isBlank()) {
        return key;
      }
      if (fallback != null) {
        return fallback;
      }
      throw CallerKeys.missing("the authenticated principal has no virtual key in attribute '"
          + attribute + "' (pointsman.security.key-attribute)");
    }
    if (fallback != null) {
      return fallback;
    }
    throw CallerKeys.missing("no authenticated principal and no pointsman.default-key: the"
        + " call has no virtual key");
  }

  private String read(Authentication auth) {
    if ("name".equals(attribute)) {
      return auth.getName();
    }
    Object value = attributeOf(auth.getPrincipal());
    if (value == null && auth.getDetails() instanceof Map<?, ?> details) {
      value = details.get(attribute);
    }
    return value == null ? null : value.toString();
  }

  private Object attributeOf(Object principal) {
    if (principal == null || principal instanceof String) {
      return null;
    }
    if (principal instanceof Map<?, ?> map) {
      return map.get(attribute);
    }
    // OAuth2AuthenticatedPrincipal.getAttribute(String) and Jwt.getClaim(String), without a
    // dependency on spring-security-oauth2.
    for (String accessor : new String[] {"getAttribute", "getClaim"}) {
      try {
        Method m = principal.getClass().getMethod(accessor, String.class);
        Object value = m.invoke(principal, attribute);
        if (value != null) {
          return value;
        }
      } catch (NoSuchMethodException e) {
        // Not this kind of principal.
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }
    BeanWrapper bean = PropertyAccessorFactory.forBeanPropertyAccess(principal);
    return bean.isReadableProperty(attribute) ? bean.getPropertyValue(attribute) : null;
  }

  @Override
  public String toString() {
    return "SecurityCallerKeys{attribute=" + attribute + ", fallback="
        + (fallback == null ? "none" : "***") + "}";
  }
}
