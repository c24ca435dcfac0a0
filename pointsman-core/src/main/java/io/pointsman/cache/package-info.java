/** The default exact response cache and its canonical request keys. */
package io.pointsman.cache;
