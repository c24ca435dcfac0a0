/** Virtual-key authentication: key hashing and the in-memory key store. */
package io.pointsman.auth;
