/** Runnable examples: the quickstart on embedded defaults and a custom stage. */
package io.pointsman.examples;
