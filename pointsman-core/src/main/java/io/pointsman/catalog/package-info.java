/** Models, prices, and the default model resolver with its token bounds. */
package io.pointsman.catalog;
