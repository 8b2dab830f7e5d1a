/**
 * The non-default settings as an operator writes them in the environment (`environment`, what
 * the entry points read), and the values refused at start. What each one changes is tested where
 * it acts: test/auth/sessionSettings.test.ts, test/monitoring/retention.test.ts,
 * test/probes/probeSettings.unit.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Exit, Option } from "effect"

import { ProbeConfig } from "../../probes/ProbeConfig.js"
import { AppConfig, environment } from "../../src/runtime/Config.js"

const read = <A, E>(config: Effect.Effect<A, E>, env: Record<string, string>) =>
  config.pipe(Effect.provideService(ConfigProvider.ConfigProvider, environment(env)))

describe("settings", () => {
  it.effect("reads SESSION_IDLE_TIMEOUT, SESSION_MAX_AGE and RESULTS_RETENTION_DAYS, with their defaults", () =>
    Effect.gen(function*() {
      const set = yield* read(AppConfig, {
        SESSION_IDLE_TIMEOUT: "30 minutes",
        SESSION_MAX_AGE: "2 hours",
        RESULTS_RETENTION_DAYS: "3"
      })
      expect(Duration.toMillis(set.sessionIdleTimeout)).toBe(30 * 60_000)
      expect(Duration.toMillis(set.sessionMaxAge)).toBe(2 * 3_600_000)
      expect(set.resultsRetentionDays).toBe(3)

      const unset = yield* read(AppConfig, { SESSION_IDLE_TIMEOUT: "", RESULTS_RETENTION_DAYS: "" })
      expect(Duration.toMillis(unset.sessionIdleTimeout)).toBe(12 * 3_600_000)
      expect(Duration.toMillis(unset.sessionMaxAge)).toBe(7 * 24 * 3_600_000)
      expect(unset.resultsRetentionDays).toBe(7)
    }))

  it.effect("refuses a duration it cannot read and a retention outside 1–3650 days", () =>
    Effect.gen(function*() {
      for (
        const env of [
          { SESSION_IDLE_TIMEOUT: "soon" },
          { SESSION_MAX_AGE: "7" },
          { RESULTS_RETENTION_DAYS: "0" },
          { RESULTS_RETENTION_DAYS: "3651" },
          { RESULTS_RETENTION_DAYS: "3.5" }
        ]
      ) {
        expect(Exit.isFailure(yield* Effect.exit(read(AppConfig, env))), JSON.stringify(env)).toBe(true)
      }
      expect((yield* read(AppConfig, { RESULTS_RETENTION_DAYS: "3650" })).resultsRetentionDays).toBe(3650)
    }))

  it.effect("reads SSL_EXPIRY_WARNING_DAYS (0 or more) and PROBE_EXTRA_CA_FILE", () =>
    Effect.gen(function*() {
      const set = yield* read(ProbeConfig, {
        SSL_EXPIRY_WARNING_DAYS: "30",
        PROBE_EXTRA_CA_FILE: "/etc/ssl/private-ca.pem"
      })
      expect(set.sslWarningDays).toBe(30)
      expect(set.extraCaFile).toEqual(Option.some("/etc/ssl/private-ca.pem"))

      const unset = yield* read(ProbeConfig, { SSL_EXPIRY_WARNING_DAYS: "", PROBE_EXTRA_CA_FILE: "" })
      expect(unset.sslWarningDays).toBe(14)
      expect(unset.extraCaFile).toEqual(Option.none())

      expect((yield* read(ProbeConfig, { SSL_EXPIRY_WARNING_DAYS: "0" })).sslWarningDays).toBe(0)
      expect(Exit.isFailure(yield* Effect.exit(read(ProbeConfig, { SSL_EXPIRY_WARNING_DAYS: "-1" })))).toBe(true)
    }))
})
