/**
 * The configuration as the entry points read it (`environment`): a variable set to nothing
 * counts as unset, as docker-compose.yml passes the ones an operator left out.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"

import { AppConfig, environment, QueueConfig } from "../../src/Config.js"

describe("configuration", () => {
  it.effect("a variable set to nothing, or to blanks, is unset; one set to something is read", () =>
    Effect.gen(function*() {
      const unset = yield* AppConfig.pipe(Effect.withConfigProvider(environment({
        ADMIN_EMAIL: "",
        ADMIN_PASSWORD: "",
        SMTP_URL: " ",
        DATABASE_URL: "",
        PUBLIC_URL: "",
        TRUST_PROXY: "",
        PORT: ""
      })))
      expect([unset.adminEmail, unset.adminPassword, unset.smtpUrl, unset.databaseUrl]).toEqual([
        Option.none(),
        Option.none(),
        Option.none(),
        Option.none()
      ])
      expect([unset.port, unset.publicUrl]).toEqual([3000, "http://localhost:3000"])
      expect(
        Option.isNone((yield* QueueConfig.pipe(Effect.withConfigProvider(environment({ REDIS_URL: "" })))).redisUrl)
      ).toBe(true)

      const set = yield* AppConfig.pipe(Effect.withConfigProvider(environment({
        ADMIN_EMAIL: "ops@example.test",
        SMTP_URL: "smtp://mail:25",
        ROLES: "api, dispatcher"
      })))
      expect(set.adminEmail).toEqual(Option.some("ops@example.test"))
      expect(Option.map(set.smtpUrl, Redacted.value)).toEqual(Option.some("smtp://mail:25"))
      expect(set.roles).toEqual(["api", "dispatcher"])
    }))
})
