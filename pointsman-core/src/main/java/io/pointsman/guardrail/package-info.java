/** Input and output guardrails: the default message-bounds guardrail. */
package io.pointsman.guardrail;
