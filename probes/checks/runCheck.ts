/** Runs the check a job names. A check never fails: every problem is a failed outcome. */
import type { Effect } from "effect"

import type { CheckDefinition, CheckOutcome } from "../../src/domain/CheckJob.js"
import type { OutboundGuard } from "../../src/services/OutboundGuard.js"
import { httpCheck } from "./http.js"
import { sslExpiryCheck } from "./sslExpiry.js"
import { tcpCheck } from "./tcp.js"

export interface CheckOptions {
  /** Extra trusted CA certificates (PEM) for `http` over TLS and `ssl_expiry`. */
  readonly extraCa?: string | undefined
  /** `ssl_expiry` fails when fewer days are left (default 14). */
  readonly sslWarningDays?: number | undefined
  /** Addresses no check connects to (OUTBOUND_DENY); the default list when not given. */
  readonly outbound?: OutboundGuard | undefined
}

export const runCheck = (check: CheckDefinition, options: CheckOptions = {}): Effect.Effect<CheckOutcome> => {
  switch (check.type) {
    case "http":
      return httpCheck(check, { extraCa: options.extraCa, outbound: options.outbound })
    case "tcp":
      return tcpCheck(check, { outbound: options.outbound })
    case "ssl_expiry":
      return sslExpiryCheck(check, {
        extraCa: options.extraCa,
        warningDays: options.sslWarningDays,
        outbound: options.outbound
      })
  }
}
