/** JMH benchmarks, one class per stage, and the end-to-end overhead harness. */
package io.pointsman.jmh;
