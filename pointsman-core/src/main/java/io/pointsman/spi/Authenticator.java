package io.pointsman.spi;

import io.pointsman.PointsmanException;

/**
 * Stage 1, {@code identity.auth}: parses a presented virtual key and resolves the caller's
 * identity. Implementations must be thread-safe, must compare secrets in constant time and
 * must never log the key.
 */
@FunctionalInterface
public interface Authenticator {
  /**
   * Resolves an identity.
   *
   * @param presentedKey the key exactly as the caller presented it (possibly garbage)
   * @return the identity
   * @throws PointsmanException with status 401 when the key is malformed, unknown, expired or
   *     revoked
   */
  Identity authenticate(String presentedKey);
}
