/**
 * Where METRICS_PORT listens: without METRICS_TOKEN on loopback, whatever HOST says, so metrics
 * nobody asked a token for stay on the machine; METRICS_HOST decides otherwise, with a warning
 * when it exposes them beyond loopback without a token. The tests connect to 127.0.0.1 only.
 */
import type { AddressInfo } from "node:net"
import { Server } from "node:net"

import { expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Logger } from "effect"
import { vi } from "vitest"

import { MetricsServer } from "../../src/http/MetricsHttp.js"
import { minimumLogLevel, replaceDefaultLogger } from "../support/Logs.js"

/**
 * Starts the metrics server of `env` for the test's scope; answers the address it bound, as the
 * socket says (read through a spy on `address()`, which the server calls once it listens), and
 * what it logged.
 */
const start = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const lines: Array<{ readonly level: string; readonly message: string }> = []
    const logger = Logger.make(({ logLevel, message }) => {
      lines.push({ level: logLevel, message: (Array.isArray(message) ? message : [message]).join(" ") })
    })
    const addresses = vi.spyOn(Server.prototype, "address")
    const bound = yield* Layer.build(MetricsServer.pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))),
      Layer.provide(Layer.merge(replaceDefaultLogger(logger), minimumLogLevel("Info")))
    )).pipe(
      Effect.map(() => addresses.mock.results.at(-1)?.value as AddressInfo),
      Effect.ensuring(Effect.sync(() => addresses.mockRestore()))
    )
    return {
      address: bound.address,
      url: `http://127.0.0.1:${bound.port}/metrics`,
      /** The line that tells an operator where the metrics are. */
      logged: lines.some((line) => line.message === `Metrics on port ${bound.port} at ${bound.address}`),
      warnings: lines.filter((line) => line.level === "Warn").map((line) => line.message)
    }
  })

const scrape = (url: string, token?: string) =>
  Effect.promise(() => fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }))

it.effect("without METRICS_TOKEN, METRICS_PORT listens on loopback, even with HOST on every interface", () =>
  Effect.gen(function*() {
    for (const env of [{ METRICS_PORT: "0" }, { METRICS_PORT: "0", HOST: "0.0.0.0" }]) {
      const server = yield* start(env)
      expect(server.address, JSON.stringify(env)).toBe("127.0.0.1")
      expect(server.logged).toBe(true)
      expect(server.warnings).toEqual([])
      expect((yield* scrape(server.url)).status).toBe(200)
    }
  }))

it.effect("METRICS_HOST beyond loopback without a token is obeyed, with a warning", () =>
  Effect.gen(function*() {
    const server = yield* start({ METRICS_PORT: "0", METRICS_HOST: "0.0.0.0" })
    expect(server.address).toBe("0.0.0.0")
    expect(server.logged).toBe(true)
    expect(server.warnings).toEqual([expect.stringContaining("without METRICS_TOKEN beyond loopback (0.0.0.0)")])
    expect((yield* scrape(server.url)).status).toBe(200)
  }))

it.effect("with METRICS_TOKEN it listens on HOST, as before, and warns of nothing", () =>
  Effect.gen(function*() {
    const token = "metrics-host-token"
    const server = yield* start({ METRICS_PORT: "0", METRICS_TOKEN: token, HOST: "0.0.0.0" })
    expect(server.address).toBe("0.0.0.0")
    expect(server.warnings).toEqual([])
    expect((yield* scrape(server.url)).status).toBe(401)
    expect((yield* scrape(server.url, token)).status).toBe(200)
  }))
