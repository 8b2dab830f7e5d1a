/**
 * The secret of a push monitor (docs/monitor-fleet.md, "Push monitors"): the job it watches
 * calls `/api/v1/push/<token>`. Only the token's SHA-256 is stored; the token is shown once, when
 * it is made (creation, rotation, a type change to push). An importer may bring the token of
 * another tool (Uptime Kuma's are 32 letters and digits) so existing cron lines keep working.
 * Pure (no node:crypto): the dashboard bundles it; the service makes and hashes tokens
 * (src/services/monitoring/PushTokens.ts).
 */
import { Schema } from "effect"

import { pattern } from "./Fields.js"

/**
 * What a token is made of: URL-safe, 32 characters when made here; one given may be as short as 8
 * (Uptime Kuma lets people set their own), still far beyond guessing over HTTP.
 */
export const pushTokenPattern = /^[A-Za-z0-9_-]{8,128}$/

export const PushToken = Schema.String.check(
  pattern(pushTokenPattern, "a push token is 8-128 of A-Z, a-z, 0-9, '_', '-'")
)

/** The path a push goes to, without the host: what the monitor's answers show as its target. */
export const pushPath = "/api/v1/push/"

/** A push monitor's `url` in every answer: its path with the token masked, as header values are. */
export const pushTarget = `${pushPath}********`
