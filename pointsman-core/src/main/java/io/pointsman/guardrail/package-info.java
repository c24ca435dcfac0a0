/**
 * Input and output guardrails: message bounds (the gateway's default), the input and output
 * guardrail chains with per key, team and org actions, the detectors they run (secrets, prompt
 * injection, PII, blocked literals and regexes), the Aho–Corasick {@link
 * io.pointsman.guardrail.LiteralMatcher} and the {@link io.pointsman.guardrail.StreamWindowScanner}
 * for streams. See {@code docs/guardrails.md}.
 */
package io.pointsman.guardrail;
