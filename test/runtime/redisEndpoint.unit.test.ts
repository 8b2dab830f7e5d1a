/**
 * Where Redis is (src/runtime/RedisEndpoint.ts): one server's URL kept as written, a Sentinel
 * URL parsed whole, REDIS_SENTINELS with REDIS_SENTINEL_NAME as the URL they stand for, and
 * each malformed value refused at start naming its variable, never repeating a password. Also
 * the ioredis options each endpoint makes (src/queue/redis/RedisConnection.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Option, Redacted, Result } from "effect"

import { connectionOptions } from "../../src/queue/redis/RedisConnection.js"
import { environment, QueueConfig } from "../../src/runtime/Config.js"
import { parseRedisEndpoint, type RedisEndpoint } from "../../src/runtime/RedisEndpoint.js"

const parsed = (text: string) => Result.getOrThrow(parseRedisEndpoint(text))
const refusal = (text: string) => Result.match(parseRedisEndpoint(text), { onFailure: String, onSuccess: () => "" })

const queue = (env: Record<string, string>) =>
  QueueConfig.pipe(Effect.provideService(ConfigProvider.ConfigProvider, environment(env)))

describe("Redis endpoint", () => {
  it("keeps one server's URL as written, for ioredis to read", () => {
    for (const url of ["redis://127.0.0.1:6379", "rediss://u:p%40ss@redis.example.com:6380/2", "REDIS://h", "h:6379"]) {
      expect(parsed(url)).toEqual({ _tag: "Server", url })
    }
  })

  it("parses a Sentinel URL: sentinels (26379 by default, IPv6 in brackets), the master's name and user, TLS", () => {
    expect(parsed("redis+sentinel://s1.example.com:26380,10.0.0.2,[::1]:5000/mymaster")).toEqual({
      _tag: "Sentinel",
      sentinels: [
        { host: "s1.example.com", port: 26380 },
        { host: "10.0.0.2", port: 26379 },
        { host: "::1", port: 5000 }
      ],
      name: "mymaster",
      username: undefined,
      password: undefined,
      tls: false
    })
    expect(parsed("rediss+sentinel://probe-eu:p%40ss%3Aw%2Fd@redis_sentinel_1:26379/status.master-1")).toEqual({
      _tag: "Sentinel",
      sentinels: [{ host: "redis_sentinel_1", port: 26379 }],
      name: "status.master-1",
      username: "probe-eu",
      password: "p@ss:w/d",
      tls: true
    })
    // A password alone is the default user's.
    expect(parsed("REDIS+SENTINEL://:secret@h:1/m")).toMatchObject({ username: undefined, password: "secret" })
  })

  it("refuses a malformed Sentinel URL, saying what is wrong and never the password", () => {
    const cases: Array<[string, RegExp]> = [
      ["redis+sentinel://h1:26379,h2:26379", /\[user:password@\]host:port\[,host:port…\]\/<master name>/],
      ["redis+sentinel://u:secret@h1:26379/", /master's name must be/],
      ["redis+sentinel://u:secret@h1:26379/m/0", /master's name must be/],
      ["redis+sentinel://u:secret@h1:26379/m x", /master's name must be/],
      ["redis+sentinel://u:secret@h1:65536/m", /"h1:65536" is not a sentinel's host:port/],
      ["redis+sentinel://u:secret@h1:0/m", /"h1:0"/],
      ["redis+sentinel://u:secret@h1:26379,,h2/m", /"" is not a sentinel's host:port/],
      ["redis+sentinel://u:secret@::1:26379/m", /IPv6 in brackets/],
      ["redis+sentinel://u:secret@[not-ip]:26379/m", /"\[not-ip\]:26379"/],
      ["redis+sentinel://u:secret@h1:port/m", /"h1:port"/],
      ["redis+sentinel://u:secret@/m", /"" is not a sentinel's host:port/],
      ["redis+sentinel://u:secret@h1/m?sentinelPassword=x", /no query or fragment.*REDIS_SENTINEL_PASSWORD/],
      ["redis+sentinel://u:sec/ret@h1/m", /percent-encoded/],
      ["redis+sentinel://u:secret%zz@h1/m", /not well percent-encoded/],
      [
        "redis-sentinel://u:secret@h1/m",
        /starts with redis:\/\/, rediss:\/\/, redis\+sentinel:\/\/ or rediss\+sentinel:\/\/, not redis-sentinel:\/\//
      ],
      ["sentinel://h1/m", /not sentinel:\/\//]
    ]
    for (const [url, message] of cases) {
      const said = refusal(url)
      expect(said, url).toMatch(message)
      expect(said, url).not.toContain("secret")
      expect(said, url).not.toContain("sec/ret")
    }
  })

  it.effect("REDIS_URL as it is; REDIS_SENTINELS with REDIS_SENTINEL_NAME as the Sentinel URL they stand for", () =>
    Effect.gen(function*() {
      const url = "redis+sentinel://svc:pw@127.0.0.1:26379/main"
      expect(Option.map((yield* queue({ REDIS_URL: url })).redisUrl, Redacted.value)).toEqual(Option.some(url))
      expect(Option.isNone((yield* queue({})).redisUrl)).toBe(true)

      const pair = yield* queue({
        REDIS_SENTINELS: "127.0.0.1:26379, [::1]:26380,sentinel-3",
        REDIS_SENTINEL_NAME: "main",
        REDIS_USERNAME: "probe-eu",
        REDIS_PASSWORD: "p@ss:word/1",
        REDIS_SENTINEL_PASSWORD: "sentinels"
      })
      const made = Option.getOrThrow(Option.map(pair.redisUrl, Redacted.value))
      expect(parsed(made)).toEqual({
        _tag: "Sentinel",
        sentinels: [{ host: "127.0.0.1", port: 26379 }, { host: "::1", port: 26380 }, {
          host: "sentinel-3",
          port: 26379
        }],
        name: "main",
        username: "probe-eu",
        password: "p@ss:word/1",
        tls: false
      })
      const noUser = Option.getOrThrow(
        Option.map((yield* queue({ REDIS_SENTINELS: "h:1", REDIS_SENTINEL_NAME: "m" })).redisUrl, Redacted.value)
      )
      expect(noUser).toBe("redis+sentinel://h:1/m")
    }))

  it.effect("refuses at start what does not hold together, naming the variable", () =>
    Effect.gen(function*() {
      const cases: Array<[Record<string, string>, string, RegExp]> = [
        [{ REDIS_URL: "redis+sentinel://u:secret@h1:26379" }, "REDIS_URL", /REDIS_URL: a Sentinel URL is/],
        [{ REDIS_URL: "http://u:secret@h1" }, "REDIS_URL", /not http:\/\//],
        [{ REDIS_URL: "redis://h", REDIS_SENTINELS: "h:1", REDIS_SENTINEL_NAME: "m" }, "REDIS_SENTINELS", /not both/],
        [{ REDIS_SENTINELS: "h:1" }, "REDIS_SENTINEL_NAME", /go together/],
        [{ REDIS_SENTINEL_NAME: "m" }, "REDIS_SENTINELS", /go together/],
        [{ REDIS_SENTINELS: "h:1,h:99999", REDIS_SENTINEL_NAME: "m" }, "REDIS_SENTINELS", /"h:99999"/],
        [{ REDIS_SENTINELS: "h:1", REDIS_SENTINEL_NAME: "my master" }, "REDIS_SENTINEL_NAME", /master's name/],
        [
          { REDIS_URL: "redis://h", REDIS_PASSWORD: "secret" },
          "REDIS_PASSWORD",
          /with REDIS_URL the user goes in the URL/
        ],
        [{ REDIS_USERNAME: "u" }, "REDIS_USERNAME", /master's user with REDIS_SENTINELS/],
        [{ REDIS_URL: "redis://h", REDIS_SENTINEL_PASSWORD: "secret" }, "REDIS_SENTINEL_PASSWORD", /no sentinels/]
      ]
      for (const [env, variable, message] of cases) {
        const error = yield* Effect.flip(queue(env))
        expect(error instanceof Config.ConfigError, JSON.stringify(env)).toBe(true)
        expect(String(error), JSON.stringify(env)).toContain(`at ["${variable}"]`)
        expect(String(error), JSON.stringify(env)).toMatch(message)
        expect(String(error), JSON.stringify(env)).not.toContain("secret")
      }
    }))

  it("makes ioredis' options: the sentinels, the master by name, TLS to both, reconnection on a demoted master's errors", () => {
    const sentinel = parsed("rediss+sentinel://svc:pw@a:1,b:2/main") as Extract<RedisEndpoint, { _tag: "Sentinel" }>
    const options = connectionOptions(sentinel, "-----BEGIN CERTIFICATE-----", "sentinels")
    expect(options).toMatchObject({
      sentinels: [{ host: "a", port: 1 }, { host: "b", port: 2 }],
      name: "main",
      role: "master",
      username: "svc",
      password: "pw",
      sentinelPassword: "sentinels",
      enableTLSForSentinelMode: true
    })
    // Its disconnect on `+switch-master` ends a connection still reconnecting from a dead master.
    expect(options.failoverDetector).toBeUndefined()
    expect(options.tls?.ca).toContain("-----BEGIN CERTIFICATE-----")
    expect(options.sentinelTLS?.ca).toContain("-----BEGIN CERTIFICATE-----")
    const plain = connectionOptions(parsed("redis+sentinel://a:1/main"), undefined)
    expect([plain.tls, plain.sentinelTLS, plain.username, plain.password, plain.sentinelPassword]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined
    ])
    const server = connectionOptions(parsed("redis://h:1"), undefined)
    expect([server.sentinels, server.tls]).toEqual([undefined, undefined])
    expect(connectionOptions(parsed("rediss://h:1"), undefined).tls).toEqual({})
    for (const made of [options, plain, server]) {
      expect(made.reconnectOnError?.(new Error("READONLY You can't write against a read only replica."))).toBe(2)
      expect(
        made.reconnectOnError?.(
          new Error("UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)")
        )
      ).toBe(2)
      expect(made.reconnectOnError?.(new Error("NOPERM this user has no permissions"))).toBe(false)
    }
  })
})
