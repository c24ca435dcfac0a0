/**
 * Routing strategies across provider deployments, passive health and cooldown, retry and
 * fallback policies, adaptive selection.
 *
 * <p>Not yet implemented: this module is a compiling skeleton until the router work lands.
 * The single-deployment default router lives in {@code pointsman-core}.
 */
package io.pointsman.router;
