/** The default single-deployment router. */
package io.pointsman.route;
