package io.pointsman.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Generates, checks and hashes virtual keys. A key is {@code pm-} followed by 43 base64url
 * characters (32 random bytes). Stores keep only the SHA-256 hash. Thread-safe.
 */
public final class VirtualKeys {
  /** The prefix of every generated key. */
  public static final String PREFIX = "pm-";
  /** The longest presented key that is even hashed; longer input is refused unread. */
  public static final int MAX_LENGTH = 256;
  private static final SecureRandom RANDOM = new SecureRandom();

  private VirtualKeys() {}

  /**
   * Generates a new random key.
   *
   * @return the key; show it once, store only {@link #hash}
   */
  public static String generate() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /**
   * Returns whether a presented string is shaped like a key: 8 to {@value #MAX_LENGTH}
   * printable ASCII characters without spaces (so no header injection can ride on it).
   *
   * @param presented the presented string
   * @return true when well formed
   */
  public static boolean wellFormed(String presented) {
    if (presented == null || presented.length() < 8 || presented.length() > MAX_LENGTH) {
      return false;
    }
    for (int i = 0; i < presented.length(); i++) {
      char c = presented.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        return false;
      }
    }
    return true;
  }

  /**
   * Returns the SHA-256 hash of a key.
   *
   * @param key the key
   * @return 32 bytes
   */
  public static byte[] hash(String key) {
    return sha256().digest(key.getBytes(StandardCharsets.UTF_8));
  }

  private static final MessageDigest PROTOTYPE = newSha256();

  /** A fresh SHA-256 digest: cloning a prototype skips the provider lookup on every call. */
  private static MessageDigest sha256() {
    try {
      return (MessageDigest) PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256();
    }
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
