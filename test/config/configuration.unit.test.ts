/**
 * The configuration as the entry points read it (`environment`): a variable set to nothing
 * counts as unset, as docker-compose.yml passes the ones an operator left out.
 */
import { describe, expect, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Option, Redacted } from "effect"

import { AppConfig, environment, MetricsConfig, QueueConfig } from "../../src/runtime/Config.js"

describe("configuration", () => {
  it.effect("a variable set to nothing, or to blanks, is unset; one set to something is read", () =>
    Effect.gen(function*() {
      const unset = yield* AppConfig.pipe(Effect.provideService(
        ConfigProvider.ConfigProvider,
        environment({
          ADMIN_EMAIL: "",
          ADMIN_PASSWORD: "",
          SMTP_URL: " ",
          DATABASE_URL: "",
          PUBLIC_URL: "",
          TRUST_PROXY: "",
          PORT: ""
        })
      ))
      expect([unset.adminEmail, unset.adminPassword, unset.smtpUrl, unset.databaseUrl]).toEqual([
        Option.none(),
        Option.none(),
        Option.none(),
        Option.none()
      ])
      expect([unset.port, unset.publicUrl]).toEqual([3000, "http://localhost:3000"])
      expect(
        Option.isNone(
          (yield* QueueConfig.pipe(
            Effect.provideService(ConfigProvider.ConfigProvider, environment({ REDIS_URL: "" }))
          )).redisUrl
        )
      ).toBe(true)

      const set = yield* AppConfig.pipe(Effect.provideService(
        ConfigProvider.ConfigProvider,
        environment({
          ADMIN_EMAIL: "ops@example.test",
          SMTP_URL: "smtp://mail:25",
          ROLES: "api, dispatcher"
        })
      ))
      expect(set.adminEmail).toEqual(Option.some("ops@example.test"))
      expect(Option.map(set.smtpUrl, Redacted.value)).toEqual(Option.some("smtp://mail:25"))
      expect(set.roles).toEqual(["api", "dispatcher"])
    }))

  describe("ports: 0 to 65535, 0 for any free port", () => {
    const app = (env: Record<string, string>) =>
      AppConfig.pipe(Effect.provideService(ConfigProvider.ConfigProvider, environment(env)))
    const metrics = (env: Record<string, string>) =>
      MetricsConfig.pipe(Effect.provideService(ConfigProvider.ConfigProvider, environment(env)))

    it.effect("PORT, METRICS_PORT and PROBE_METRICS_PORT take 0 and 65535", () =>
      Effect.gen(function*() {
        for (const port of [0, 1, 65535]) {
          expect((yield* app({ PORT: String(port) })).port).toBe(port)
          const both = yield* metrics({ METRICS_PORT: String(port), PROBE_METRICS_PORT: String(port) })
          expect([both.port, both.probePort]).toEqual([Option.some(port), Option.some(port)])
        }
        const unset = yield* metrics({})
        expect([unset.port, unset.probePort]).toEqual([Option.none(), Option.none()])
      }))

    it.effect("anything else is refused with a configuration error that names the variable", () =>
      Effect.gen(function*() {
        for (const text of ["65536", "-1", "abc", "1.5", "0x50", "80 ", "1e3"]) {
          const errors = [
            ["PORT", yield* Effect.flip(app({ PORT: text }))],
            ["METRICS_PORT", yield* Effect.flip(metrics({ METRICS_PORT: text }))],
            ["PROBE_METRICS_PORT", yield* Effect.flip(metrics({ PROBE_METRICS_PORT: text }))]
          ] as const
          for (const [name, error] of errors) {
            expect(error instanceof Config.ConfigError, `${name}=${text}`).toBe(true)
            expect(String(error), `${name}=${text}`).toContain(`at ["${name}"]`)
            expect(String(error), `${name}=${text}`).toContain(
              `${name} must be a port from 0 to 65535 (0: any free port), not ${JSON.stringify(text)}`
            )
          }
        }
      }))
  })
})
